# sdcMicro::recordLinkage references -> outputs/recordLinkage.json.
#
# recordLinkage exists in sdcMicro's development version 5.8.1 (not on CRAN; 5.8.0 lacks it). Run with a
# library holding that version first on the path, e.g.
#   R_LIBS=/path/to/dev-library Rscript generate_recordLinkage.R
# Where the sdcMicro found lacks recordLinkage, this script says so and leaves the stored output as it is
# (so regenerate.sh keeps working with 5.8.0).
#
# Stored per case: the matched pairs (x_row, y_row 1-based, distance, correct_match, n_best), the counts
# and the distances; files with an id column or R's read.csv files (eusilc, no schema); `.head` in the
# arguments selects the first records of both files (not an argument of recordLinkage).
source("serialize.R")
if (!exists("recordLinkage", envir = asNamespace("sdcMicro"), inherits = FALSE)) {
  cat(sprintf("generate_recordLinkage.R: sdcMicro %s has no recordLinkage (5.8.1 does); outputs/recordLinkage.json",
              as.character(packageVersion("sdcMicro"))),
      "left unchanged. Run with R_LIBS pointing at a library with sdcMicro 5.8.1.\n")
  quit(status = 0)
}

read_side <- function(file) {
  path <- file.path("inputs", file)
  if (file.exists(ref_schema_path(path))) ref_input(file) else read.csv(path, check.names = FALSE)
}

ref_generate("recordLinkage", "generate_recordLinkage.R", function(case) {
  x <- read_side(case$inputs$x)
  y <- read_side(case$inputs$y)
  a <- case$args
  h <- a[[".head"]]
  if (!is.null(h)) {
    x <- x[seq_len(h), , drop = FALSE]
    y <- y[seq_len(h), , drop = FALSE]
  }
  args <- list(x = x, y = y, vars = unlist(a$vars))
  if (!is.null(a$distance)) args$distance <- a$distance
  if (!is.null(a$weights)) args$weights <- as.numeric(unlist(a$weights))
  if (!is.null(a$x_id)) args$x_id <- a$x_id
  if (!is.null(a$y_id)) args$y_id <- a$y_id
  if (!is.null(a$na_action)) args$na_action <- a$na_action
  if (!is.null(a$tol)) args$tol <- as.numeric(a$tol)
  o <- do.call(recordLinkage, args)
  m <- o$matches
  list(x_row = I(m$x_row), y_row = I(m$y_row), distance = I(m$distance),
       correct_match = I(m$correct_match), n_best = I(m$n_best),
       correct_matches = o$correct_matches, correct_match_rate = o$correct_match_rate,
       mean_distance = o$mean_distance, total_distance = o$total_distance)
})
