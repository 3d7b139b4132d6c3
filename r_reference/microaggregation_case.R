# One case of sdcMicro's microaggregation (issue 28, family 3): the runner that ref_generate() (serialize.R) calls
# for every case of generate_protect_microaggregation.R (outputs/microaggregation.json),
# generate_protect_microaggregation2.R (microaggregation_more.json), generate_protect_microaggregation_clust.R
# (microaggregation_clust.json) and generate_protect_microaggregation_measures.R (microaggregation_measures.json).
# Sourced after serialize.R; runs nothing itself.
#
# The case's stored input is read (ref_case_input); its arguments are passed under sdcMicro's names: variables and
# strata_variables (lists), weights (a column of the input whose values are sdcMicro's weights vector), aggr,
# method, measure, trim, nc, clustermethod, transf, varsort; a case's seed is set.seed(seed) before the call.
# Stored per case: the returned list's method, aggr, measure, its names, fot (when sdcMicro keeps it), mx's column
# names and rows, and per aggregated column of mx its R class, the MD5 of its values written one per line with
# sprintf("%.17g") (NA as "NA") and the values themselves for up to 100 records (else 51 evenly spaced rows)
# (ref_column_record); whether every other column came back unchanged.

ref_microaggregation_case <- function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(obj = x)
  if (!is.null(a$variables)) args$variables <- unlist(a$variables)
  if (!is.null(a$strata_variables)) args$strata_variables <- unlist(a$strata_variables)
  if (!is.null(a$weights)) args$weights <- x[[a$weights]]
  for (nm in c("aggr", "method", "measure", "trim", "nc", "clustermethod", "transf", "varsort")) {
    if (!is.null(a[[nm]])) args[[nm]] <- a[[nm]]
  }
  if (!is.null(a$seed)) set.seed(a$seed)
  res <- do.call(microaggregation, args)
  mx <- as.data.frame(res$mx)
  vars <- if (is.null(a$variables)) names(x) else unlist(a$variables)
  out <- list(method = res$method, aggr = res$aggr, measure = res$measure, names = I(names(res)),
              mx_columns = I(names(mx)), n = nrow(mx))
  if (!is.null(res$fot)) out$fot <- res$fot
  out$mx <- lapply(mx[vars], ref_column_record)
  others <- setdiff(names(mx), vars)
  if (length(others)) out$others_unchanged <- identical(mx[others], x[others])
  out
}
