# sdcMicro::IL_correl references -> outputs/IL_correl.json (run by regenerate.sh).
source("serialize.R")
ref_generate("IL_correl", "generate_IL_correl.R", function(case) {
  p <- ref_pair(case)
  list(value = as.numeric(IL_correl(p$x, p$xm)))
})
