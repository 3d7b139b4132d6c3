# Produce the masked inputs of the reference corpus with sdcMicro's own methods,
# stored as typed tables.
#
# Reads cases/masks.json (written by make_inputs.py). Every source table is one
# of the project's own inputs (synthetic tables and pysdc's demo data); no data
# set bundled with sdcMicro is used. The seeds below only drive the *masking*
# (addNoise, rankSwap, pram, ...); the masked tables are then stored, so every
# reference computation reads fixed inputs. A spec's optional args$keep lists
# the columns to store (all by default).
# Run from r_reference/ by regenerate.sh.

source("serialize.R")

specs <- fromJSON(file.path("cases", "masks.json"), simplifyVector = FALSE)$cases

for (spec in specs) {
  out <- file.path("inputs", spec$output)
  a <- spec$args
  x <- ref_read_table(file.path("inputs", spec$source))
  set.seed(spec$seed)
  vars <- unlist(a$variables)
  if (spec$method == "addNoise") {
    r <- addNoise(x[, vars, drop = FALSE], noise = a$noise, method = a$method)
    x[, vars] <- r$xm
  } else if (spec$method == "microaggregation") {
    r <- microaggregation(x[, vars, drop = FALSE], aggr = a$aggr, method = a$method)
    x[, vars] <- r$mx[, vars]
  } else if (spec$method == "rankSwap") {
    # rankSwap draws from its own C++ generator, seeded by its seed argument (by the
    # clock when NULL), not by set.seed: pass the seed to make it reproducible
    r <- suppressMessages(rankSwap(x[, vars, drop = FALSE], variables = vars, seed = spec$seed))
    x[, vars] <- r[, vars]
  } else if (spec$method == "pram") {
    r <- pram(x, variables = vars)
    for (v in vars) x[[v]] <- r[[paste0(v, "_pram")]]
  } else if (spec$method == "localSuppression") {
    keys <- unlist(a$keyVars)
    if (identical(a$via, "sdcObj")) {
      # the way sdcMicro's users run it: an sdcMicroObj, then the anonymised data
      sdc <- createSdcObj(x, keyVars = keys, weightVar = a$weightVar, hhId = a$hhId)
      sdc <- localSuppression(sdc, k = a$k)
      r <- extractManipData(sdc)
      for (v in keys) x[[v]] <- r[[v]]
    } else {
      r <- localSuppression(x, keyVars = keys, k = a$k)
      for (v in keys) x[[v]] <- r$xAnon[[v]]
    }
  } else if (spec$method == "topBotCoding") {
    v <- a$column
    value <- unname(quantile(x[[v]], a$quantile, na.rm = TRUE))
    x <- topBotCoding(x, value = value, replacement = value, kind = a$kind, column = v)
  } else {
    stop("unknown masking method ", spec$method)
  }
  keep <- unlist(a$keep)
  if (!is.null(keep)) x <- x[, keep, drop = FALSE]
  ref_write_table(x, out)
  cat("masked", spec$source, "with", spec$method, "->", out, "\n")
}
