# sdcMicro::ldiversity references -> outputs/ldiversity.json (run by regenerate.sh).
source("serialize.R")
ref_generate("ldiversity", "generate_ldiversity.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  l <- ldiversity(x, keyVars = ref_arg(a, "keyVars"), ldiv_index = ref_arg(a, "ldiv_index"),
                  l_recurs_c = ref_arg(a, "l_recurs_c", 2))
  m <- unclass(l)
  attributes(m) <- attributes(m)[c("dim", "dimnames")]
  list(columns = I(colnames(m)), values = ref_rowwise(case, as.list(as.data.frame(m))))
})
