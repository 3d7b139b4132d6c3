# sdcMicro::suda2 references -> outputs/suda2.json (run by regenerate.sh).
# Per-record fields (score, disScore, contributionPercent columns) go through ref_rowwise;
# for cases stored by sample, every record with a nonzero score is stored as well
# ("nonzero": 0-based rows and the fields there), so the sparse scores are pinned exactly.
source("serialize.R")
ref_generate("suda2", "generate_suda2.R", function(case) {
  x <- ref_input(case$inputs$data)
  a <- case$args
  vars <- ref_arg(a, "variables")
  r <- suda2(x, variables = vars, missing = ref_arg(a, "missing", -999),
             DisFraction = ref_arg(a, "DisFraction", 0.01),
             original_scores = ref_arg(a, "original_scores", TRUE))
  cp <- as.data.frame(unclass(r$contributionPercent))
  names(cp) <- vars
  fields <- c(list(score = r$score, disScore = r$disScore), as.list(cp))
  alc <- r$attribute_level_contributions
  out <- list(
    variables = I(vars),
    rowwise = ref_rowwise(case, fields),
    attribute_contributions = list(variable = I(r$attribute_contributions$variable),
                                   contribution = I(r$attribute_contributions$contribution)),
    attribute_level_contributions = list(variable = I(as.character(alc$variable)),
                                         attribute = I(as.character(alc$attribute)),
                                         attribute_class = class(alc$attribute)[1],
                                         contribution = I(alc$contribution))
  )
  n <- length(r$score)
  if (!(n <= 100L || "rows-full" %in% unlist(case$tags))) {
    nz <- which(r$score != 0)
    out$nonzero <- c(list(rows = I(as.integer(nz - 1L))), lapply(fields, function(v) I(v[nz])))
  }
  out
})
