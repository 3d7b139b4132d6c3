# sdcMicro's microaggregation methods (issue 28, family 3) -> outputs/microaggregation.json, outputs/mafast.json.
# Cases from cases/<function>.json (make_cases_microaggregation.py); run from r_reference/ by
# `Rscript generate_protect_microaggregation.R` (regenerate.sh: `regenerate.sh protect_microaggregation`).
#
# microaggregation's cases run through ref_microaggregation_case (microaggregation_case.R, shared with the
# other microaggregation generators). Stored per case: the returned list's method, aggr, measure and fot (when
# sdcMicro keeps it), and per column of mx (microaggregation) or per aggregated variable (mafast): its R class,
# the MD5 of its values written one per line with sprintf("%.17g") (NA as "NA"), and the values themselves for
# up to 100 records (else 51 evenly spaced rows). eusilc.csv.gz (R's write.csv, no schema) is read with read.csv.
source("serialize.R")
source("microaggregation_case.R")

ref_generate("microaggregation", "generate_protect_microaggregation.R", ref_microaggregation_case)

ref_generate("mafast", "generate_protect_microaggregation.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(obj = x, variables = unlist(a$variables))
  if (!is.null(a$by)) args$by <- unlist(a$by)
  if (!is.null(a$aggr)) args$aggr <- a$aggr
  if (!is.null(a$measure)) args$measure <- match.fun(a$measure)
  res <- as.data.frame(do.call(mafast, args))
  vars <- unlist(a$variables)
  others <- setdiff(names(x), vars)
  list(columns = I(names(res)), n = nrow(res), mx = lapply(res[vars], ref_column_record),
       others_unchanged = identical(res[others], x[others]))
})
