# sdcMicro's shuffle with regmethod = "MM" (MASS's rlm from its S-estimate lqs; issue 28, family 4)
# -> outputs/shuffle_mm.json. Cases from cases/shuffle_mm.json (make_cases_shuffle_mm.py); run from r_reference/
# by `Rscript generate_protect_shuffle_mm.R` (regenerate.sh: `regenerate.sh protect_shuffle_mm`).
#
# Stored per case as generate_protect_shuffle.R does (its ref_shuffle_case): set.seed(seed), then
# shuffle(obj = <data.frame>, form = as.formula(form), ...); the shuffled, perturbed and egapd values as
# hexadecimal doubles, or MD5 and 51 evenly spaced rows beyond 100 records; after: sprintf("%a", runif(1)).
source("serialize.R")

source("generate_protect_shuffle.R")  # ref_shuffle_case (sourced: it does not run its own cases)

ref_generate("shuffle_mm", "generate_protect_shuffle_mm.R", ref_shuffle_case)
