# sdcMicro's createSdcObj workflow on files as users receive them -> outputs/createSdcObj.json
# (cases from make_cases_createSdcObj.py). Each case reads a CSV with read.csv (text stays text, as
# in R >= 4), optionally makes columns factors with given levels, and runs createSdcObj (with
# LC_COLLATE=C when the case asks for it: the factor levels made from text follow the collation).
# Stored: the key variables' levels, the numbers print(sdc, "risk") shows (unrounded), measure_risk's
# individual risk, kAnon_violations, suda2(sdc), ldiversity(sdc) and modRisk(sdc, "IPF").
# Run: r_reference/regenerate.sh createSdcObj
source("serialize.R")
ref_generate("createSdcObj", "generate_createSdcObj.R", function(case) {
  a <- case$args
  x <- read.csv(file.path("inputs", case$inputs$csv), encoding = "UTF-8")
  fl <- a$factor_levels
  for (v in names(fl)) x[[v]] <- factor(x[[v]], levels = unlist(fl[[v]]))
  keys <- ref_arg(a, "keyVars")
  sens <- ref_arg(a, "sensibleVar")
  old <- Sys.getlocale("LC_COLLATE")
  if (identical(a$collation, "C")) Sys.setlocale("LC_COLLATE", "C")
  sdc <- tryCatch(createSdcObj(x, keyVars = keys, weightVar = ref_arg(a, "weightVar"), hhId = ref_arg(a, "hhId"),
                               sensibleVar = sens),
                  finally = Sys.setlocale("LC_COLLATE", old))
  mk <- sdc@manipKeyVars
  levs <- lapply(setNames(keys, keys), function(k) if (is.factor(mk[[k]])) I(levels(mk[[k]])) else NULL)
  cls <- lapply(setNames(keys, keys), function(k) class(mk[[k]])[1])
  g <- sdc@risk$global
  ind <- sdc@risk$individual
  rk <- ind[, "risk"]
  txt <- character(0)
  printed <- withCallingHandlers(capture.output(p <- print(sdc, "risk")), message = function(m) {
    txt <<- c(txt, conditionMessage(m)); invokeRestart("muffleMessage")
  })
  out <- list(
    collate = if (identical(a$collation, "C")) "C" else Sys.getlocale("LC_COLLATE"),
    key_classes = cls,
    levels = levs[!vapply(levs, is.null, logical(1))],
    print_risk = list(text = paste(c(printed, txt), collapse = "\n"),
                      risky_obs = sum((rk > median(rk) + 2 * mad(rk)) & (rk > 0.1)),
                      risk_ER = g$risk_ER, risk_pct = g$risk_pct,
                      hier_risk_ER = g$hier_risk_ER, hier_risk_pct = g$hier_risk_pct),
    measure_risk = ref_rowwise(case, list(risk = rk, fk = ind[, "fk"], Fk = ind[, "Fk"])),
    kAnon_violations = list(
      unweighted = I(vapply(c(2, 3, 5), function(k) as.numeric(kAnon_violations(sdc, weighted = FALSE, k = k)), 0)),
      weighted = I(vapply(c(2, 3, 5), function(k) as.numeric(kAnon_violations(sdc, weighted = TRUE, k = k)), 0)))
  )
  if (!identical(a$suda2, FALSE)) {
    s <- suppressWarnings(suda2(sdc))@risk$suda2
    nz <- which(s$score != 0)
    out$suda2 <- list(rowwise = ref_rowwise(case, list(score = s$score, disScore = s$disScore)),
                      n_positive = length(nz),
                      # the data.frame method on the same file: text keys through as.numeric (NA)
                      data_frame_n_positive = sum(suppressWarnings(suda2(x, variables = keys))$score != 0),
                      nonzero = list(rows = I(as.integer(nz - 1L)), score = I(s$score[nz]),
                                     disScore = I(s$disScore[nz])))
  }
  if (!is.null(sens)) {
    ld <- ref_run(ldiversity(sdc)@risk$ldiversity)
    l <- ld$value
    cols <- colnames(l)
    out$ldiversity <- list(warnings = I(as.character(ld$warnings)),
                           rowwise = ref_rowwise(case, lapply(setNames(cols, cols), function(cc) as.numeric(l[, cc]))),
                           median_distinct = lapply(setNames(sens, sens), function(v)
                             median(as.numeric(l[, paste0(v, "_Distinct_Ldiversity")]))))
  }
  if (!is.null(a$modRisk)) {
    bound <- ref_arg(a, "modRisk_bound", Inf)
    m <- modRisk(sdc, method = "IPF", formulaM = as.formula(a$modRisk), bound = bound)@risk$model
    out$modRisk_IPF <- list(formula = a$modRisk, bound = bound, gr1 = m$gr1, gr2 = m$gr2,
                            n_cells = length(m$inclProb))
  }
  out
})
