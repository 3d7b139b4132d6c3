# sdcMicro::modRisk references -> outputs/modRisk.json (run by regenerate.sh).
#
# Each case calls modRisk(data, method, weights, formulaM = as.formula(formulaM), bound) on
# a stored input. Stored per case: gr1, gr2, gr1perc, gr2perc, method, and two vectors
# (all values up to 300 entries, else 51 evenly spaced ones with "rows" (0-based), plus
# "n" and the "sum" over all entries):
#   fitted   -- stats::fitted of the model: glm methods a vector named by grid row
#               ("names", integers); IPF the loglm table, listed as as.data.frame.table
#               does (first variable fastest), with each variable's level label in "keys";
#   inclProb -- one value per retained key combination.
source("serialize.R")
suppressPackageStartupMessages(library(MASS))

mr_vector <- function(v, keys = NULL) {
  n <- length(v)
  idx <- if (n <= 300L) seq_len(n) else unique(round(seq(1, n, length.out = 51)))
  out <- list(n = n, rows = I(as.integer(idx - 1L)), values = I(as.numeric(unname(v))[idx]),
              sum = sum(as.numeric(v)))
  if (!is.null(names(v))) out$names <- I(as.integer(names(v)[idx]))
  if (!is.null(keys)) out$keys <- lapply(keys, function(k) I(as.character(k)[idx]))
  out
}

ref_generate("modRisk", "generate_modRisk.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  bound <- ref_arg(a, "bound", Inf)
  res <- modRisk(x, method = ref_arg(a, "method"), weights = ref_arg(a, "weights"),
                 formulaM = as.formula(ref_arg(a, "formulaM")), bound = bound)
  fit <- res$fitted
  if (identical(res$method, "IPF")) {
    df <- as.data.frame.table(fit, stringsAsFactors = FALSE)
    fitted <- mr_vector(df[[ncol(df)]], keys = df[-ncol(df)])
  } else {
    fitted <- mr_vector(fit)
  }
  list(gr1 = res$gr1, gr2 = res$gr2, gr1perc = res$gr1perc, gr2perc = res$gr2perc,
       method = res$method, fitted = fitted, inclProb = mr_vector(res$inclProb))
})
