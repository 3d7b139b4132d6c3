# sdcMicro's shuffle on R's random stream (issue 28, family 4) -> outputs/shuffle.json. Cases from
# cases/shuffle.json (make_cases_shuffle.py); run from r_reference/ by `Rscript generate_protect_shuffle.R`
# (regenerate.sh: `regenerate.sh protect_shuffle`).
#
# Each case runs set.seed(seed) and then shuffle(obj = <data.frame>, form = as.formula(form), ...). Stored per
# case: the column names of the returned matrices; per response the shuffled, perturbed and egapd values as
# hexadecimal doubles (sprintf("%a"), NA as "NA") for up to 100 records, else the MD5 of all values written one
# per line and 51 evenly spaced rows (egapd NULL when gadp = FALSE); after: sprintf("%a", runif(1)) drawn after
# the call (the stream must be left where R leaves it).
source("serialize.R")

# One case of shuffle (this script's and generate_protect_shuffle2.R's).
ref_shuffle_case <- function(case) {
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
  # regmethod = "MM" returns egapd without column names, and with methods "ds2" and "mvn" (whose perturbed values
  # are that EGADP's) shuffled and perturbed too: they are the responses' (the formula's left-hand side)
  responses <- trimws(strsplit(strsplit(a$form, "~", fixed = TRUE)[[1]][1], "+", fixed = TRUE)[[1]])
  named <- function(m) {
    if (!is.null(m) && is.null(colnames(m))) colnames(m) <- responses
    m
  }
  eg <- named(res$egapd)
  shuffled <- named(res$shuffled)
  list(columns = I(colnames(shuffled)), shuffled = per(shuffled), perturbed = per(named(res$perturbed)),
       egadp = per(eg), after = after)
}

if (sys.nframe() == 0L) {  # run by Rscript, not sourced
  ref_generate("shuffle", "generate_protect_shuffle.R", ref_shuffle_case)
}
