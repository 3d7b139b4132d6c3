# sdcMicro side of benchmarks/run.py -- started by run.py (once per function and size), not meant to be run
# by hand.
#
#   Rscript benchmarks/bench_sdcmicro.R <dataset dir> <output .tsv> <repeats> <slow seconds> <task,task,...>
#
# Reads the dataset written by run.py ONCE (raw little-endian binary columns, read with base R's readBin:
# exact doubles, integer NA = INT_MIN, no extra package needed), then times each sdcMicro call with
# proc.time()[["elapsed"]] (wall clock) over `repeats` runs; a call whose first run takes longer than
# `slow seconds` is not repeated. Loading and conversion are outside the timed region.
#
# Memory, per run, two measures:
#   rss_mb: peak resident set size of this R process during the call above its resident size just
#           before the call (the kernel's VmHWM is reset by writing 5 to /proc/self/clear_refs; then
#           VmHWM after - VmRSS before). Counts everything: R heap, C/C++ (Rcpp) allocations.
#   gc_mb:  R's own heap accounting: gc(reset = TRUE) before, sum of "max used" (Mb) after minus
#           "used" before. Misses memory malloc'ed by C/C++ code and is only sampled at collections.
# One line per task is appended to the output file (tab-separated):
#   task  n  status  runs(comma-separated seconds)  rss_mb  gc_mb  message

args <- commandArgs(trailingOnly = TRUE)
data_dir <- args[[1]]
out_file <- args[[2]]
repeats <- as.integer(args[[3]])
slow_seconds <- as.numeric(args[[4]])
tasks <- strsplit(args[[5]], ",", fixed = TRUE)[[1]]

suppressPackageStartupMessages(library(sdcMicro))

# ---------------------------------------------------------------- data (not timed)
manifest <- read.table(file.path(data_dir, "manifest.tsv"), sep = "\t", header = TRUE,
                       stringsAsFactors = FALSE)
n <- manifest$n[[1]]
col <- function(name) {
  type <- manifest$type[manifest$name == name]
  con <- file(file.path(data_dir, paste0(name, ".bin")), "rb")
  on.exit(close(con))
  if (type == "int32") readBin(con, what = "integer", n = n, size = 4L, endian = "little")
  else readBin(con, what = "double", n = n, size = 8L, endian = "little")
}
keys <- c("k1", "k2", "k3", "k4", "k5")
num <- c("v1", "v2", "v3", "v4")
dat <- data.frame(k1 = col("k1"), k2 = col("k2"), k3 = col("k3"), k4 = col("k4"), k5 = col("k5"),
                  sens = col("sens"), w = col("w"), hid = col("hid"))
datm <- data.frame(k1 = col("k1m"), k2 = col("k2m"), k3 = col("k3m"), k4 = col("k4m"), k5 = col("k5m"),
                   w = col("w"))
x <- data.frame(v1 = col("v1"), v2 = col("v2"), v3 = col("v3"), v4 = col("v4"))
xm <- data.frame(v1 = col("m1"), v2 = col("m2"), v3 = col("m3"), v4 = col("m4"))

# ---------------------------------------------------------------- tasks
# Each entry: list(setup = function() <untimed preparation, returns its state>, run = function(state) <call>)
plain <- function(f) list(setup = function() NULL, run = function(state) f())
TASKS <- list(
  d_utility_IL1 = plain(function() dUtility(x, xm = xm, method = "IL1")),
  d_utility_IL1s = plain(function() dUtility(x, xm = xm, method = "IL1s")),
  d_utility_eigen = plain(function() dUtility(x, xm = xm, method = "eigen")),
  d_utility_robeigen = list(setup = function() set.seed(1),
                            run = function(state) dUtility(x, xm = xm, method = "robeigen")),
  il_correl = plain(function() IL_correl(x, xm)),
  il_variables = plain(function() IL_variables(x, xm)),
  freq_calc = plain(function() freqCalc(dat, keyVars = keys, w = "w")),
  freq_calc_missing = plain(function() freqCalc(datm, keyVars = keys, w = "w")),
  indiv_risk_exact = list(setup = function() freqCalc(dat, keyVars = keys, w = "w"),
                          run = function(state) indivRisk(state, method = "exact")),
  measure_risk_w = plain(function() measure_risk(dat, keyVars = keys, w = "w")),
  measure_risk_w_hid = plain(function() measure_risk(dat, keyVars = keys, w = "w", hid = "hid")),
  ldiversity = plain(function() ldiversity(dat, keyVars = keys, ldiv_index = "sens")),
  suda2 = plain(function() suda2(dat, variables = keys)),
  # kAnon_violations needs an sdcMicroObj; createSdcObj computes the frequencies it counts, so it is timed too
  k_anon_violations = plain(function() kAnon_violations(createSdcObj(dat, keyVars = keys), FALSE, 3)),
  d_risk = plain(function() dRisk(x, xm = xm)),
  d_risk_rmd = list(setup = function() set.seed(1), run = function(state) dRiskRMD(x, xm = xm)),
  mod_risk = plain(function() modRisk(dat, method = "default", weights = "w",
                                      formulaM = as.formula(paste("~", paste(keys, collapse = " + "))),
                                      bound = 2))
)

status_kb <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(strsplit(trimws(sub(paste0("^", field, ":"), "", line)), "[[:space:]]+")[[1]][[1]])
}
can_reset_hwm <- tryCatch({ writeLines("5", "/proc/self/clear_refs"); TRUE }, error = function(e) FALSE,
                          warning = function(w) FALSE)

one_run <- function(task, state) {
  invisible(gc())
  if (can_reset_hwm) writeLines("5", "/proc/self/clear_refs")
  rss0 <- status_kb("VmRSS")
  g0 <- gc(reset = TRUE)
  t0 <- proc.time()[["elapsed"]]
  res <- task$run(state)
  t1 <- proc.time()[["elapsed"]]
  hwm <- status_kb("VmHWM")
  g1 <- gc()
  rm(res)
  list(seconds = t1 - t0,
       rss_mb = if (can_reset_hwm) (hwm - rss0) / 1024 else NA_real_,
       gc_mb = sum(g1[, 6]) - sum(g0[, 2]))
}

emit <- function(...) {
  cat(paste(..., sep = "\t"), "\n", sep = "", file = out_file, append = TRUE)
}

for (name in tasks) {
  task <- TASKS[[name]]
  if (is.null(task)) { emit(name, n, "error", "", "", "", "unknown task"); next }
  msg <- ""
  runs <- numeric(0); rss <- numeric(0); gcm <- numeric(0)
  status <- tryCatch({
    state <- task$setup()
    for (i in seq_len(repeats)) {
      r <- one_run(task, state)
      runs <- c(runs, r$seconds); rss <- c(rss, r$rss_mb); gcm <- c(gcm, r$gc_mb)
      if (r$seconds > slow_seconds) break
    }
    rm(state)
    "ok"
  }, error = function(e) { msg <<- gsub("[\t\n]", " ", conditionMessage(e)); "error" })
  emit(name, n, status, paste(sprintf("%.6f", runs), collapse = ","),
       if (length(rss)) sprintf("%.1f", max(rss)) else "",
       if (length(gcm)) sprintf("%.1f", max(gcm)) else "", msg)
}
