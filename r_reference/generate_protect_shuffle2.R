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

ref_generate("shuffle_more", "generate_protect_shuffle2.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(obj = x, form = as.formula(a$form))
  for (nm in c("method", "covmethod", "regmethod", "gadp")) if (!is.null(a[[nm]])) args[[nm]] <- a[[nm]]
  if (!is.null(a$weights)) args$weights <- x[[a$weights]]
  set.seed(a$seed)
  res <- do.call(shuffle, args)
  after <- sprintf("%a", runif(1))
  per <- function(m) {
    if (is.null(m)) return(NULL)
    m <- as.matrix(m)
    setNames(lapply(seq_len(ncol(m)), function(j) ref_values_record(ref_hex(m[, j]))), colnames(m))
  }
  eg <- res$egapd
  # regmethod = "MM" returns egapd without column names: they are the responses' (those of shuffled)
  if (!is.null(eg) && is.null(colnames(eg))) colnames(eg) <- colnames(res$shuffled)
  list(columns = I(colnames(res$shuffled)), shuffled = per(res$shuffled), perturbed = per(res$perturbed),
       egadp = per(eg), after = after)
})
