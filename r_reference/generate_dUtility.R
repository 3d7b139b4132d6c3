# sdcMicro::dUtility references -> outputs/dUtility.json (run by regenerate.sh).
# robeigen depends on R's random number stream (robustbase::covMcd draws random
# subsets): its value is stored for set.seed(k), k = 1..10, so a tolerance can be
# judged against sdcMicro's own spread.
# Cases with "xm_matrix": true under "inputs" hand xm to sdcMicro as a numeric matrix
# (as.matrix(), after the column selection), as its help page does with addNoise(x)$xm:
# IL1/IL1s then read xm[[i]], a single element, for column i (a known divergence).
source("serialize.R")
ref_generate("dUtility", "generate_dUtility.R", function(case) {
  p <- ref_pair(case)
  if (isTRUE(case$inputs$xm_matrix)) p$xm <- as.matrix(p$xm)
  method <- case$args$method
  if (identical(method, "robeigen")) {
    vals <- vapply(1:10, function(k) {
      set.seed(k)
      v <- dUtility(p$x, p$xm, method = "robeigen")
      if (is.null(v)) NA_real_ else as.numeric(v)
    }, numeric(1))
    return(list(values_by_seed = I(vals), seeds = I(1:10)))
  }
  v <- dUtility(p$x, p$xm, method = method)
  if (is.null(v)) NULL else list(value = as.numeric(v))
})
