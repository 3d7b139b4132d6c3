# sdcMicro's shuffle with methods mvn, mlm, ds2, ds_cov, covmethod = "mcd" and regmethod = "MM" (issue 28,
# family 4) -> outputs/shuffle_more.json. Cases from cases/shuffle_more.json (make_cases_shuffle_more.py); run
# from r_reference/ by `Rscript generate_protect_shuffle2.R` (regenerate.sh: `regenerate.sh protect_shuffle2`).
#
# Stored per case as generate_protect_shuffle.R does: set.seed(seed), then shuffle(obj = <data.frame>, form =
# as.formula(form), ...); the column names of the returned matrices; per response the shuffled, perturbed and
# egapd values as hexadecimal doubles (sprintf("%a"), NA as "NA") for up to 100 records, else the MD5 of all
# values written one per line and 51 evenly spaced rows (egapd's columns named as the responses where sdcMicro
# leaves them unnamed: regmethod = "MM"); after: sprintf("%a", runif(1)) drawn after the call.
source("serialize.R")

source("generate_protect_shuffle.R")  # ref_shuffle_case (sourced: it does not run its own cases)

ref_generate("shuffle_more", "generate_protect_shuffle2.R", ref_shuffle_case)
