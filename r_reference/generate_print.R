# What sdcMicro's print methods show (measure_risk, freqCalc, indivRisk, ldiversity) -> outputs/print.json
# (cases from make_cases_print.py). Each result: the printed text (stdout, then the messages print
# writes) and the numbers it is made of, unrounded.
source("serialize.R")
ref_generate("print", "generate_print.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  fun <- a$fun
  keys <- ref_arg(a, "keyVars")
  w <- ref_arg(a, "w")
  if (fun == "measure_risk") {
    res <- measure_risk(x, keyVars = keys, w = w, hid = ref_arg(a, "hid"))
    rk <- res$Res[, "risk"]
    nums <- list(global_risk_ER = res$global_risk_ER, global_risk_pct = res$global_risk_pct,
                 global_threshold = res$global_threshold, hier_risk_ER = res$hier_risk_ER,
                 hier_risk_pct = res$hier_risk_pct, median_risk = median(rk), mad_risk = mad(rk))
  } else if (fun %in% c("freqCalc", "indivRisk")) {
    f <- freqCalc(x, keyVars = keys, w = w, alpha = ref_arg(a, "alpha", 1))
    res <- if (fun == "freqCalc") f else indivRisk(f)
    nums <- if (fun == "freqCalc") list(n1 = f$n1, n2 = f$n2) else
      list(median_risk = median(res$rk), mad_risk = mad(res$rk), qual = res$qual)
  } else {
    res <- ldiversity(x, keyVars = keys, ldiv_index = ref_arg(a, "ldiv_index"))
    cols <- grep("_Distinct_Ldiversity$", colnames(res), value = TRUE)
    nums <- lapply(setNames(cols, cols), function(cc) as.list(unclass(summary(as.numeric(res[, cc])))))
  }
  msgs <- character(0)
  out <- withCallingHandlers(capture.output(print(res)), message = function(m) {
    msgs <<- c(msgs, conditionMessage(m))
    invokeRestart("muffleMessage")
  })
  list(text = paste(c(out, msgs), collapse = "\n"), numbers = nums)
})
