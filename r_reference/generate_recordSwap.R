# sdcMicro::recordSwap references -> outputs/recordSwap.json (run by regenerate.sh).
# sdcMicro's own seed (its C++ std::mt19937), not set.seed. Stored per record, in the order sdcMicro
# returns them (by hid): the household each record's geography came from, and the swapped columns.
source("serialize.R")
ref_generate("recordSwap", "generate_recordSwap.R", function(case) {
  a <- case$args
  data <- ref_input(case$inputs$data)
  args <- list(data = data, hid = a$hid, hierarchy = ref_arg(a, "hierarchy"),
               similar = lapply(a$similar, unlist), swaprate = a$swaprate, k_anonymity = a$k_anonymity,
               risk_variables = ref_arg(a, "risk_variables"), return_swapped_id = TRUE, seed = a$seed,
               log_file_name = tempfile(fileext = ".txt"))
  if (!is.null(a$carry_along)) args$carry_along <- ref_arg(a, "carry_along")
  if (!is.null(a$risk)) { args$risk <- ref_arg(a, "risk"); args$risk_threshold <- a$risk_threshold }
  s <- as.data.frame(do.call(recordSwap, args))
  moved <- unique(c(args$hierarchy, args$carry_along))
  out <- list(hid = I(as.integer(s$hid)), hid_swapped = I(as.integer(s$hid_swapped)),
              n_swapped_households = length(unique(s$hid[s$hid != s$hid_swapped])),
              not_swapped = I(integer(0)))
  out$columns <- lapply(s[moved], function(v) I(as.integer(v)))
  if (file.exists(args$log_file_name)) {
    txt <- readLines(args$log_file_name)
    out$log <- I(txt)
  }
  out
})
