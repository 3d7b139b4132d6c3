# sdcMicro's microaggregation methods clustpca, influence, clustpppca and pppca (issue 28, family 3)
# -> outputs/microaggregation_clust.json. Cases from cases/microaggregation_clust.json
# (make_cases_microaggregation_clust.py); run from r_reference/ by `Rscript generate_protect_microaggregation_clust.R`
# (regenerate.sh: `regenerate.sh protect_microaggregation_clust`).
#
# Stored per case as generate_protect_microaggregation.R does: the returned list's method, aggr, measure, and per
# column of mx its R class, the MD5 of its values written one per line with sprintf("%.17g") (NA as "NA"), and the
# values themselves for up to 100 records (else 51 evenly spaced rows). A case's `seed` is set.seed(seed) before
# the call; a case's `weights` names a column of the input, whose values are passed as sdcMicro's weights.
source("serialize.R")

ref_generate("microaggregation_clust", "generate_protect_microaggregation_clust.R", function(case) {
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
})
