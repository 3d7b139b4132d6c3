# sdcMicro's recoding methods (issue 28, family 1) -> outputs/globalRecode.json, groupAndRename.json,
# topBotCoding.json, mvTopCoding.json. Cases from cases/<function>.json (make_cases_<function>.py); run from
# r_reference/ by `Rscript generate_protect_recode.R` (regenerate.sh: `regenerate.sh protect_recode`).
#
# Stored per case: the recoded column's R class, its factor levels and integer codes (globalRecode,
# groupAndRename), or the rows that changed (0-based) with their new values (topBotCoding, mvTopCoding),
# and whether every other column came back unchanged. eusilc.csv.gz (R's write.csv, no schema) is read
# with read.csv, as a user would.
source("serialize.R")

num_arg <- function(v) {
  if (is.null(v)) return(NULL)
  v <- unlist(v)
  if (is.character(v)) as.numeric(v) else v  # "Inf" / "-Inf" as strings in the case lists
}

# NA in a case list (JSON null) is a list element NULL: keep it as NA of the other elements' type
na_arg <- function(args, name) {
  if (!name %in% names(args)) return(NULL)
  v <- args[[name]]
  if (is.null(v)) NA else num_arg(v)
}

others_unchanged <- function(x, out, column) {
  keep <- setdiff(names(x), column)
  identical(as.data.frame(out)[keep], x[keep])
}

coded <- function(col) {
  out <- list(class = class(col)[1])
  if (is.factor(col)) out$levels <- I(levels(col))
  out$values <- I(as.integer(col))
  out
}

changed_rows <- function(a, b) {
  which(is.na(a) != is.na(b) | (!is.na(a) & !is.na(b) & a != b))
}

ref_generate("globalRecode", "generate_protect_recode.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(x, column = a$column, breaks = num_arg(a$breaks))
  if ("labels" %in% names(a)) args$labels <- unlist(a$labels)
  if (!is.null(a$method)) args$method <- a$method
  if (!is.null(a$seed)) set.seed(a$seed)
  out <- do.call(globalRecode, args)
  c(coded(out[[a$column]]), list(others_unchanged = others_unchanged(x, out, a$column)))
})

ref_generate("groupAndRename", "generate_protect_recode.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  out <- groupAndRename(x, var = a$var, before = as.character(unlist(a$before)),
                        after = as.character(unlist(a$after)), addNA = isTRUE(a$addNA))
  c(coded(out[[a$var]]), list(others_unchanged = others_unchanged(x, out, a$var)))
})

ref_generate("topBotCoding", "generate_protect_recode.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(x, value = na_arg(a, "value"), replacement = na_arg(a, "replacement"), column = a$column)
  if (!is.null(a$kind)) args$kind <- a$kind
  out <- do.call(topBotCoding, args)
  col <- out[[a$column]]
  rows <- changed_rows(x[[a$column]], col)
  list(class = class(col)[1], n = length(col), n_na = sum(is.na(col)), rows = I(as.integer(rows - 1L)),
       values = I(col[rows]), others_unchanged = others_unchanged(x, out, a$column))
})

ref_generate("mvTopCoding", "generate_protect_recode.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(x)
  if (!is.null(a$maha)) args$maha <- num_arg(a$maha)
  if (!is.null(a$center)) args$center <- num_arg(a$center)
  if (!is.null(a$alpha)) args$alpha <- a$alpha
  if (!is.null(a$seed)) set.seed(a$seed)
  out <- as.data.frame(do.call(mvTopCoding, args))
  changed <- sort(unique(unlist(lapply(names(x), function(v) changed_rows(x[[v]], out[[v]])))))
  list(class = I(vapply(out, function(v) class(v)[1], character(1))), columns = I(names(out)),
       rows = I(as.integer(changed - 1L)),
       values = lapply(out, function(v) I(v[changed])))
})
