# sdcMicro::measure_risk references -> outputs/measure_risk.json (run by regenerate.sh).
# The public data.frame method of measure_risk fails whenever alpha is passed
# (the argument is matched twice), so every case calls sdcMicro's internal
# worker sdcMicro:::measure_riskWORK, which the public method calls with alpha = 1.
source("serialize.R")
ref_generate("measure_risk", "generate_measure_risk.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  m <- sdcMicro:::measure_riskWORK(
    data = x, keyVars = ref_arg(a, "keyVars"), w = ref_arg(a, "w"), hid = ref_arg(a, "hid"),
    max_global_risk = ref_arg(a, "max_global_risk", 0.01), fast_hier = ref_arg(a, "fast_hier", TRUE),
    alpha = ref_arg(a, "alpha", 1))
  res <- as.data.frame(m$Res)
  out <- m[setdiff(names(m), "Res")]
  out <- lapply(out, function(v) if (is.null(v)) NULL else as.numeric(v))
  c(out, list(Res = ref_rowwise(case, as.list(res))))
})
