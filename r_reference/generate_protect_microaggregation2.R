# sdcMicro's microaggregation with methods pca, rmd, influence, clustpca (issue 28, family 3)
# -> outputs/microaggregation_more.json. Cases from cases/microaggregation_more.json
# (make_cases_microaggregation_more.py); run from r_reference/ by `Rscript generate_protect_microaggregation2.R`
# (regenerate.sh: `regenerate.sh protect_microaggregation2`).
#
# Each case runs through ref_microaggregation_case (microaggregation_case.R, the runner every microaggregation
# generator shares): the arguments under sdcMicro's names (a case's `weights` names a column of the input, whose
# values are sdcMicro's weights vector; `seed` is set.seed(seed) before the call); stored per case are the
# returned list's method, aggr and measure and, per column of mx, its R class, the MD5 of its values written
# one per line with sprintf("%.17g") and the values themselves for up to 100 records (else 51 evenly spaced
# rows); R's warnings.
source("serialize.R")
source("microaggregation_case.R")

ref_generate("microaggregation_more", "generate_protect_microaggregation2.R", ref_microaggregation_case)
