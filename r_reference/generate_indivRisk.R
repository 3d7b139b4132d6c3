# sdcMicro::indivRisk references -> outputs/indivRisk.json (run by regenerate.sh).
# Each case computes freqCalc first; its fk and Fk are stored next to rk so the
# native indiv_risk can be checked on exactly sdcMicro's frequencies.
source("serialize.R")
ref_generate("indivRisk", "generate_indivRisk.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  f <- freqCalc(x, keyVars = ref_arg(a, "keyVars"), w = ref_arg(a, "w"), alpha = ref_arg(a, "alpha", 1))
  r <- indivRisk(f, method = ref_arg(a, "method", "approx"), qual = ref_arg(a, "qual", 1),
                 survey = ref_arg(a, "survey", TRUE))
  c(list(method = r$method, qual = r$qual),
    ref_rowwise(case, list(fk_in = f$fk, Fk_in = f$Fk, rk = r$rk), sums = FALSE))
})
