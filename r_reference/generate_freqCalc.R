# sdcMicro::freqCalc references -> outputs/freqCalc.json (run by regenerate.sh).
source("serialize.R")
ref_generate("freqCalc", "generate_freqCalc.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  f <- freqCalc(x, keyVars = ref_arg(a, "keyVars"), w = ref_arg(a, "w"), alpha = ref_arg(a, "alpha", 1))
  c(list(n1 = f$n1, n2 = f$n2), ref_rowwise(case, list(fk = f$fk, Fk = f$Fk)))
})
