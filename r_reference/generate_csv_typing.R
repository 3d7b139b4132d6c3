# R's read.csv on the stored CSV corpus inputs/csv_typing (made by make_inputs_csv_typing.py)
# -> outputs/csv_typing.json: each column's class and values, as read.csv types them with its default
# arguments or the case's dialect (sep, dec, na.strings). Run by regenerate.sh.
source("serialize.R")
ref_csv_values <- function(x) {
  if (is.logical(x)) return(ifelse(is.na(x), NA_character_, ifelse(x, "TRUE", "FALSE")))
  if (is.integer(x)) return(ifelse(is.na(x), NA_character_, as.character(x)))
  if (is.double(x)) {
    out <- sprintf("%.17g", x)
    out[is.nan(x)] <- "NaN"
    out[is.na(x) & !is.nan(x)] <- NA_character_
    out[!is.na(x) & x == Inf] <- "Inf"
    out[!is.na(x) & x == -Inf] <- "-Inf"
    return(out)
  }
  as.character(x)
}
ref_generate("csv_typing", "generate_csv_typing.R", function(case) {
  a <- case$args
  d <- read.csv(case$inputs$file, sep = ref_arg(a, "sep", ","), dec = ref_arg(a, "dec", "."),
                na.strings = as.character(unlist(ref_arg(a, "na_strings", "NA"))))
  list(columns = I(names(d)),
       classes = I(vapply(d, function(x) class(x)[1], "")),
       values = lapply(d, function(x) I(ref_csv_values(x))))
})
