# sdcMicro's rankSwap (issue 28, family 4) -> outputs/rankSwap.json. Cases from cases/rankSwap.json
# (make_cases_rankSwap.py); run from r_reference/ by `Rscript generate_protect_rankswap.R`.
#
# rankSwap's C++ draws from its own generator seeded by its seed argument (not set.seed); a TopPercent or
# BottomPercent that leaves one extreme group empty but not the other aborts R in sdcMicro 5.8.0, so no case has it
# (both empty is defined: a case). Stored per case and
# variable: the swapped values as hexadecimal doubles (sprintf("%a"), NA as "NA"), all of them (n <= 20000).
source("serialize.R")

ref_generate("rankSwap", "generate_protect_rankswap.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(obj = x, variables = unlist(a$variables), seed = a$seed)
  for (nm in c("TopPercent", "BottomPercent", "R0", "P", "K0")) if (!is.null(a[[nm]])) args[[nm]] <- a[[nm]]
  res <- suppressMessages(do.call(rankSwap, args))
  vars <- args$variables
  list(variables = I(vars), values = setNames(lapply(vars, function(v) I(ref_hex(res[[v]]))), vars))
})
