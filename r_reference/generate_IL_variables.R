# sdcMicro::IL_variables references -> outputs/IL_variables.json (run by regenerate.sh).
source("serialize.R")
ref_generate("IL_variables", "generate_IL_variables.R", function(case) {
  p <- ref_pair(case)
  r <- IL_variables(p$x, p$xm)
  list(value = as.numeric(r), per_variable = as.list(attr(r, "indiv_distances")), n = attr(r, "n"))
})
