# sdcMicro's localSuppression and localSupp (issue 28, family 2) -> outputs/localSuppression.json,
# outputs/localSupp.json. Cases from cases/<function>.json (make_cases_localSuppression.py); run from
# r_reference/ by `Rscript generate_protect_suppression.R` (regenerate.sh: `regenerate.sh protect_suppression`).
#
# Stored per case: for every key variable the 0-based rows where it is missing after suppression
# (xAnon, or the sdcMicroObj's manipKeyVars), sdcMicro's supps and totalSupps (one row, or one per
# stratum and "Total", with their row names), newSupps and importance. eusilc.csv.gz (R's write.csv,
# no schema) is read with read.csv and its text keys made factors with the case's levels.
source("serialize.R")

na_rows <- function(df, keys) {
  lapply(stats::setNames(keys, keys), function(v) I(as.integer(which(is.na(df[[v]])) - 1L)))
}

supp_table <- function(s) {
  s <- as.data.frame(s)
  list(rows = I(if (nrow(s) == 1L) "Total" else rownames(s)),
       values = lapply(s, function(v) I(as.integer(v))))
}

ref_generate("localSuppression", "generate_protect_suppression.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  keys <- unlist(a$keyVars)
  k <- unlist(a$k)
  imp <- if (is.null(a$importance)) NULL else unlist(a$importance)
  combs <- if (is.null(a$combs)) NULL else unlist(a$combs)
  strata <- if (is.null(a$strataVars)) NULL else unlist(a$strataVars)
  if (identical(a$obj, "sdcMicroObj")) {
    sdc <- createSdcObj(x, keyVars = keys, strataVar = strata)
    sdc <- localSuppression(sdc, k = k, importance = imp, combs = combs)
    ls <- sdc@localSuppression
    xa <- as.data.frame(sdc@manipKeyVars)
  } else {
    args <- list(obj = x, k = k, importance = imp, combs = combs, keyVars = keys, strataVars = strata)
    if (!is.null(a$alpha)) args$alpha <- a$alpha
    ls <- do.call(localSuppression, args)
    xa <- ls$xAnon
  }
  list(na = na_rows(xa, keys), supps = supp_table(ls$supps), totalSupps = supp_table(ls$totalSupps),
       newSupps = as.integer(ls$newSupps), importance = I(as.integer(ls$importance)), n = nrow(xa))
})

ref_generate("localSupp", "generate_protect_suppression.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  keys <- unlist(a$keyVars)
  sdc <- createSdcObj(x, keyVars = keys, w = a$w)
  rk <- sdc@risk$individual[, 1]
  sdc <- localSupp(sdc, threshold = a$threshold, keyVar = a$keyVar)
  ls <- sdc@localSuppression
  xa <- as.data.frame(sdc@manipKeyVars)
  list(na = na_rows(xa, keys), supps = supp_table(ls$supps), totalSupps = supp_table(ls$totalSupps),
       newSupps = as.integer(ls$newSupps), n_risk_above = sum(rk > a$threshold), n = nrow(xa))
})
