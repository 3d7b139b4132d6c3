# sdcMicro::infoLoss references -> outputs/infoLoss.json (run by regenerate.sh).
# Every component of the result; the cell table with its keys as text (as.character, NA kept).
source("serialize.R")
custom <- list(squareD = function(x, y) (x - y)^2)
ref_generate("infoLoss", "generate_infoLoss.R", function(case) {
  a <- case$args
  data <- ref_input(case$inputs$data)
  swapped <- ref_input(case$inputs$data_swapped)
  args <- list(data = data, data_swapped = swapped, table_vars = ref_arg(a, "table_vars"))
  for (nm in c("metric", "hid", "probs", "quantvals", "exclude_zeros", "only_inner_cells")) {
    if (!is.null(a[[nm]])) args[[nm]] <- ref_arg(a, nm)
  }
  if (!is.null(a$apply_quantvals)) {
    args$apply_quantvals <- if (identical(a$apply_quantvals, "none")) character(0) else ref_arg(a, "apply_quantvals")
  }
  if (!is.null(a$custom_metric)) args$custom_metric <- custom[ref_arg(a, "custom_metric")]
  r <- do.call(infoLoss, args)
  cv <- as.data.frame(r$cellvalues)
  keys <- lapply(args$table_vars, function(v) I(as.character(cv[[v]])))
  names(keys) <- args$table_vars
  cum <- names(r)[startsWith(names(r), "cumdistr")]
  meas <- as.data.frame(r$measures)
  list(
    cellvalues = list(keys = keys, count_o = I(as.integer(cv$count_o)), count_s = I(as.integer(cv$count_s))),
    overview = list(noise = I(r$overview$noise), cnt = I(r$overview$cnt), pct = I(r$overview$pct)),
    measures = list(what = I(as.character(meas$what)), columns = I(setdiff(names(meas), "what")),
                    values = lapply(meas[setdiff(names(meas), "what")], I)),
    cumdistr = lapply(r[cum], function(t) list(cat = I(t$cat), cnt = I(as.integer(t$cnt)), pct = I(t$pct))),
    false_zero = r$false_zero, false_nonzero = r$false_nonzero, exclude_zeros = r$exclude_zeros
  )
})
