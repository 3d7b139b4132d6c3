# R's stats::kmeans(x, k, iter.max) with its defaults (Hartigan-Wong, nstart = 1) -> outputs/kmeans.json,
# the references of pysdc.core.kmeans (tests/core/test_kmeans_hw.py). Needs only base R (no sdcMicro, no
# packages): run it from r_reference/ with
#   Rscript generate_kmeans.R
# Inputs: inputs/kmeans/<name>.csv (written by make_inputs_kmeans.py) and cases/kmeans.json (one case a line
# of that list: input, k, seed, iter_max). Each case is set.seed(seed); kmeans(x, k, iter.max = iter_max);
# stored: the clusters, centres, sizes, within sums of squares, iter, ifault (or R's error message), R's
# warnings, and runif(1) drawn afterwards (the stream's position). Doubles as %.17g (round-trips exactly).
RNGkind("Mersenne-Twister", "Inversion", "Rejection")

num <- function(x) ifelse(is.na(x), "\"NA\"", sprintf("%.17g", as.double(x)))
int <- function(x) as.character(x)
arr <- function(x, f = num) paste0("[", paste(f(x), collapse = ", "), "]")
str <- function(s) paste0("\"", gsub("\"", "\\\\\"", s), "\"")

# the case list is JSON written by make_inputs_kmeans.py, one case per object: read the four fields by pattern
txt <- paste(readLines("cases/kmeans.json"), collapse = "")
objs <- regmatches(txt, gregexpr("\\{[^{}]*\\}", txt))[[1]]
field <- function(o, name) {
  m <- regmatches(o, regexec(paste0("\"", name, "\": (\"[^\"]*\"|[-0-9]+)"), o))[[1]][2]
  gsub("\"", "", m)
}

out <- character(0)
for (o in objs) {
  id <- field(o, "id"); inp <- field(o, "input")
  k <- as.integer(field(o, "k")); seed <- as.integer(field(o, "seed")); it <- as.integer(field(o, "iter_max"))
  x <- as.matrix(read.csv(file.path("inputs", "kmeans", paste0(inp, ".csv")), header = FALSE))
  dimnames(x) <- NULL
  set.seed(seed)
  warns <- character(0)
  res <- withCallingHandlers(
    tryCatch(kmeans(x, k, iter.max = it), error = function(e) conditionMessage(e)),
    warning = function(w) { warns <<- c(warns, conditionMessage(w)); invokeRestart("muffleWarning") })
  after <- runif(1)
  head <- paste0("{\"id\": ", str(id), ", \"input\": ", str(inp), ", \"k\": ", k, ", \"seed\": ", seed,
                 ", \"iter_max\": ", it, ", ")
  body <- if (is.character(res)) {
    paste0("\"error\": ", str(res))
  } else {
    paste0("\"cluster\": ", arr(res$cluster, int), ", \"centers\": ", arr(t(res$centers)),
           ", \"size\": ", arr(res$size, int), ", \"withinss\": ", arr(res$withinss),
           ", \"iter\": ", res$iter, ", \"ifault\": ", if (is.null(res$ifault)) "null" else res$ifault)
  }
  out <- c(out, paste0(head, body, ", \"warnings\": [", paste(vapply(warns, str, ""), collapse = ", "),
                       "], \"runif_after\": ", num(after), "}"))
}
hdr <- paste0("{\"_generated\": \"generated -- do not edit\", \"script\": \"generate_kmeans.R\", \"R\": ",
              str(R.version.string), ", \"date\": ", str(format(Sys.Date())), ",\n \"cases\": [\n")
tmp <- "outputs/kmeans.json.tmp"
writeLines(paste0(hdr, paste(out, collapse = ",\n"), "\n]}"), tmp)
file.rename(tmp, "outputs/kmeans.json")
