# sdcMicro's microaggregation where cluster::clara ends with an empty medoid (missing values) -> outputs/
# microaggregation_clara.json (cases from make_cases_microaggregation_clara.py); run from r_reference/ by
# `Rscript generate_protect_microaggregation_clara.R` (regenerate.sh: `regenerate.sh protect_microaggregation_clara`).
#
# Each case reads its stored input and calls microaggregation with the case's arguments under sdcMicro's names.
# Stored per case: what sdcMicro returns (the method, aggr, measure, n, and per variable of mx its values), or its
# error, with R's warnings. Beside each case: cluster::clara(x, nc)'s medoids on the same variables (clara_i_med;
# 0 marks the medoid without records of its own), so the reference shows why sdcMicro stops.
source("serialize.R")

ref_generate("microaggregation_clara", "generate_protect_microaggregation_clara.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  vars <- unlist(a$variables)
  args <- list(obj = x, variables = vars)
  for (nm in c("aggr", "method", "measure", "nc", "clustermethod", "transf")) {
    if (!is.null(a[[nm]])) args[[nm]] <- a[[nm]]
  }
  med <- suppressWarnings(cluster::clara(x[vars], a$nc, correct.d = TRUE))$i.med
  message(case$id, ": clara's medoids ", paste(med, collapse = " "))
  res <- do.call(microaggregation, args)
  mx <- as.data.frame(res$mx)
  list(method = res$method, aggr = res$aggr, measure = res$measure, n = nrow(mx), clara_i_med = I(med),
       mx = lapply(mx[vars], function(v) I(v)))
})
