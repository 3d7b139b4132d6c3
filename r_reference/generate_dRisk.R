# sdcMicro::dRisk references -> outputs/dRisk.json (run by regenerate.sh).
source("serialize.R")
# x and xm of a case: inputs$columns selects the same columns of both, inputs$x_columns and
# inputs$xm_columns each side's (to record sdcMicro's behaviour with different columns)
drisk_sides <- function(case) {
  p <- ref_pair(case)
  xc <- unlist(case$inputs$x_columns)
  if (!is.null(xc)) p$x <- p$x[, xc, drop = FALSE]
  mc <- unlist(case$inputs$xm_columns)
  if (!is.null(mc)) p$xm <- p$xm[, mc, drop = FALSE]
  p
}
ref_generate("dRisk", "generate_dRisk.R", function(case) {
  p <- drisk_sides(case)
  k <- case$args$k
  v <- if (is.null(k)) dRisk(p$x, xm = p$xm) else dRisk(p$x, xm = p$xm, k = k)
  list(value = as.numeric(v))
})
