# sdcMicro::dRiskRMD references -> outputs/dRiskRMD.json (run by regenerate.sh).
# dRiskRMD calls robustbase::covMcd, which draws random subsets from R's random stream:
# the result is stored for set.seed(k), k = 1..10 (by_seed), so pysdc's own MCD can be
# judged against sdcMicro's spread. cov_seed1 is covMcd(scale(x))$cov after set.seed(1) --
# the very covariance dRiskRMD uses after set.seed(1) (scale() draws nothing) -- stored
# column-major with cov_dim, so the native distance/risk step can be checked exactly.
source("serialize.R")
drisk_sides <- function(case) {
  p <- ref_pair(case)
  xc <- unlist(case$inputs$x_columns)
  if (!is.null(xc)) p$x <- p$x[, xc, drop = FALSE]
  mc <- unlist(case$inputs$xm_columns)
  if (!is.null(mc)) p$xm <- p$xm[, mc, drop = FALSE]
  p
}
ref_generate("dRiskRMD", "generate_dRiskRMD.R", function(case) {
  p <- drisk_sides(case)
  a <- case$args
  args <- list(p$x, xm = p$xm)
  if (!is.null(a$k)) args$k <- a$k
  if (!is.null(a$k2)) args$k2 <- a$k2
  by_seed <- lapply(1:10, function(s) {
    set.seed(s)
    r <- do.call(dRiskRMD, args)
    c(list(risk1 = r$risk1, risk2 = r$risk2, wrisk1 = r$wrisk1, wrisk2 = r$wrisk2,
           indexRisk1 = I(as.integer(unname(r$indexRisk1))),
           indexRisk2 = I(as.integer(unname(r$indexRisk2))),
           indexRisk2_null = is.null(r$indexRisk2)),
      ref_rowwise(case, list(riskvec1 = r$riskvec1, riskvec2 = r$riskvec2)))
  })
  set.seed(1)
  cv <- robustbase::covMcd(scale(p$x))$cov
  list(seeds = I(1:10), by_seed = by_seed, cov_seed1 = I(as.vector(cv)), cov_dim = I(dim(cv)))
})
