# sdcMicro's perturbation methods on R's random stream (issue 28, family 4) -> outputs/addNoise.json,
# outputs/pram.json. Cases from cases/<function>.json (make_cases_addNoise.py, make_cases_pram.py); run from
# r_reference/ by `Rscript generate_protect_perturbation.R` (regenerate.sh: `regenerate.sh protect_perturbation`).
#
# Each case runs set.seed(seed) and then sdcMicro's function on a data.frame. Stored per case:
# - addNoise: the returned list's method, noise, p, delta; per perturbed column its values as hexadecimal
#   doubles (sprintf("%a"), NA as "NA") for up to 100 records, else the MD5 of all values written one per
#   line with sprintf("%a") and 51 evenly spaced rows;
# - pram: per variable the 1-based codes of <variable>_pram (the same MD5 rule for large inputs), the
#   transition matrix Rs (row by row, hexadecimal, the same MD5 rule), pd, alpha, the summary (nrChanges, percChanges) and the
#   transitions (names "from --> to" of the 1-based codes, counts);
# - after: sprintf("%a", runif(1)) drawn after the call: the stream must be left where R leaves it.
source("serialize.R")

num_or_na <- function(v) if (is.na(v)) "NA" else v

ref_generate("addNoise", "generate_protect_perturbation.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(obj = x)
  if (!is.null(a$variables)) args$variables <- unlist(a$variables)
  for (nm in c("noise", "method", "delta", "p")) if (!is.null(a[[nm]])) args[[nm]] <- a[[nm]]
  set.seed(a$seed)
  res <- do.call(addNoise, args)
  after <- sprintf("%a", runif(1))
  xm <- as.data.frame(res$xm)
  list(method = res$method, noise = num_or_na(res$noise), p = num_or_na(res$p), delta = num_or_na(res$delta),
       xm_class = class(res$xm)[1], columns = I(names(xm)),
       xm = lapply(xm, function(v) ref_values_record(ref_hex(v))), after = after)
})

ref_generate("pram", "generate_protect_perturbation.R", function(case) {
  x <- ref_case_input(case)
  a <- case$args
  args <- list(obj = x, variables = unlist(a$variables))
  if (!is.null(a$strata_variables)) args$strata_variables <- unlist(a$strata_variables)
  if (!is.null(a$pd)) args$pd <- unlist(a$pd)
  if (!is.null(a$alpha)) args$alpha <- unlist(a$alpha)
  if (!is.null(a$pd_matrix)) {
    levs <- levels(x[[args$variables[1]]])
    m <- do.call(rbind, lapply(a$pd_matrix, unlist))
    rownames(m) <- colnames(m) <- levs
    args$pd <- m
  }
  set.seed(a$seed)
  res <- do.call(pram, args)
  after <- sprintf("%a", runif(1))
  vars <- args$variables
  params <- attr(res, "pram_params")
  summ <- attr(res, "summary")
  tr <- attr(res, "transitions")
  per <- lapply(seq_along(vars), function(i) {
    v <- vars[i]
    codes <- as.integer(res[[paste0(v, "_pram")]])
    p <- params[[v]]
    list(codes = ref_values_record(ifelse(is.na(codes), "NA", as.character(codes))),
         Rs = ref_values_record(ref_hex(t(p$Rs))), L = nrow(p$Rs),
         pd = if (is.matrix(p$pd)) "matrix" else p$pd, alpha = num_or_na(p$alpha),
         nrChanges = summ$nrChanges[i], percChanges = summ$percChanges[i],
         transitions = setNames(as.list(as.integer(tr[[v]]$Frequency)), tr[[v]]$transition))
  })
  names(per) <- vars
  list(columns = I(names(res)), class = class(res)[1], variables = per, after = after)
})
