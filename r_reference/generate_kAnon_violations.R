# sdcMicro::kAnon_violations references -> outputs/kAnon_violations.json (run by regenerate.sh).
# kAnon_violations needs an sdcMicroObj: createSdcObj(data, keyVars, weightVar, alpha) computes
# measure_risk's fk/Fk (missing keys counted with alpha), which kAnon_violations counts below round(k).
source("serialize.R")
ref_generate("kAnon_violations", "generate_kAnon_violations.R", function(case) {
  d <- ref_input(case$inputs$data)
  a <- case$args
  sdc <- createSdcObj(d, keyVars = ref_arg(a, "keyVars"), weightVar = ref_arg(a, "weightVar"),
                      alpha = as.numeric(ref_arg(a, "alpha", 1)))
  v <- kAnon_violations(sdc, as.logical(a$weighted), as.numeric(a$k))
  list(value = as.integer(v), k_rounded = as.numeric(attr(v, "k")))
})
