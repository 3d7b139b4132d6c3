# robustbase::covMcd on R's random stream -> outputs/covMcd.json, the references of pysdc's MCD with
# random_state = s (tests/core/test_mcd_rstream.py). Run from r_reference/ (regenerate.sh does not; run it
# by hand after a robustbase update):  Rscript generate_covMcd.R
#
# For each stored input (its numeric columns, complete records, scale()d as sdcMicro's robeigen and
# dRiskRMD do) and seed: set.seed(seed); covMcd(x) with sdcMicro's (default) arguments, then a second
# covMcd on the same stream (of the first input's reversed records) to pin how far the first call
# advanced it. Stored: raw and final estimates, best, crit, the weights, the exact-fit kind, and the
# stream position afterwards (.Random.seed[2], the first and the last of the 624 words).
source("serialize.R")
suppressPackageStartupMessages(library(robustbase))

inputs <- list(
  list(file = "num5.csv.gz"), list(file = "num50.csv.gz"), list(file = "num200.csv.gz"),
  list(file = "num200__mdav3.csv.gz"), list(file = "num200__addnoise10.csv.gz"),
  list(file = "num1000.csv.gz"), list(file = "num1000__rankswap.csv.gz"),
  list(file = "demo.csv.gz", columns = c("income", "expenditure", "savings")),
  list(file = "demo_masked.csv.gz", columns = c("income", "expenditure", "savings")),
  list(file = "drisk_small15.csv.gz"), list(file = "drisk_small20.csv.gz"),
  list(file = "drisk_dup60.csv.gz"), list(file = "num_mixed.csv.gz", columns = c("v1", "v2", "i1", "l1")),
  list(file = "num_singular.csv.gz"), list(file = "num_zeros.csv.gz"))
seeds <- c(1L, 2L, 3L, 42L)
# hand-made inputs (stored in the output as "x"): 11 records (odd n: robustbase centres by the mean
# of the 5th and 6th smallest values, not by the median), two variables equal on most records with two
# huge values (C-step subsets whose covariance is singular only to rounding), a logical variable
literal <- list(
  odd11 = data.frame(c0 = c(0, -2.5, -2.5, 1e6, 3.3, 1, 3.3, 0, 1, 1e6, 1),
                     c1 = c(FALSE, FALSE, TRUE, TRUE, TRUE, FALSE, TRUE, FALSE, TRUE, TRUE, FALSE),
                     c2 = c(0, 0, -2.5, -2.5, 3.3, 1, 0, 3.3, 1, 1e6, 1)),
  odd11m = data.frame(c0 = c(1e6, 3.3, 3.3, 3.3, 0, 1e6, -2.5, 1e6, 1, 0, 0),
                      c1 = c(TRUE, FALSE, FALSE, TRUE, FALSE, TRUE, TRUE, TRUE, TRUE, FALSE, TRUE),
                      c2 = c(-2.5, -2.5, 0, 0, 1, 1e6, 0, -2.5, 3.3, 0, 0)))
for (nm in names(literal)) inputs[[length(inputs) + 1]] <- list(literal = nm)

state <- function() {
  s <- .Random.seed
  list(mti = s[2], first = s[3], last = s[length(s)])
}

cases <- list()
for (inp in inputs) {
  d <- if (is.null(inp$literal)) ref_input(inp$file) else literal[[inp$literal]]
  if (!is.null(inp$columns)) d <- d[, inp$columns, drop = FALSE]
  x <- scale(data.matrix(d))
  for (seed in c(seeds, if (!is.null(inp$literal)) 0L)) {
    set.seed(seed)
    w <- character(0)
    m <- withCallingHandlers(covMcd(x), warning = function(e) {
      w <<- c(w, conditionMessage(e)); invokeRestart("muffleWarning")
    })
    after1 <- state()
    m2 <- suppressWarnings(covMcd(x[rev(seq_len(nrow(x))), , drop = FALSE]))
    cases[[length(cases) + 1]] <- list(
      id = paste0(if (is.null(inp$literal)) sub("\\.csv\\.gz$", "", inp$file) else inp$literal,
                  if (!is.null(inp$columns)) ":cols" else "", ":seed", seed),
      input = inp$file, columns = if (is.null(inp$columns)) NULL else I(inp$columns),
      x = if (is.null(inp$literal)) NULL else lapply(as.data.frame(data.matrix(d)), I), seed = seed,
      n = nrow(x), p = ncol(x), quan = m$quan,
      raw_cov = I(as.vector(m$raw.cov)), raw_center = I(as.vector(m$raw.center)),
      cov = I(as.vector(m$cov)), center = I(as.vector(m$center)),
      best = if (is.null(m$best)) NULL else I(as.integer(m$best)),
      crit = m$crit, mcd_wt = I(as.vector(m$mcd.wt)),
      singularity = if (is.null(m$singularity)) NULL else m$singularity$kind,
      warnings = I(unique(w)),
      state_after = after1, second_cov = I(as.vector(m2$cov)), state_after_second = state())
  }
}
doc <- list(header = ref_header("covMcd", "generate_covMcd.R"), cases = cases)
writeLines(ref_json(doc), file.path("outputs", "covMcd.json"), useBytes = TRUE)
cat(sprintf("covMcd: %d cases -> outputs/covMcd.json\n", length(cases)))
