# laeken::gini references -> outputs/gini.json (run by regenerate.sh; needs laeken).
#
# Each case runs gini(inc, weights, sort, na.rm = na.rm)$value on a stored input. Bootstrap cases
# ("boot" argument: R replicates, seeds, alpha) also store, for each seed k, laeken's naive bootstrap
#   gini(..., var = "bootstrap", bootType = "naive", R = R, seed = k, alpha = alpha)$var / $ci
# and the resamples R drew (boot::boot.array(indices = TRUE), one row per replicate, 1-based): the
# same draws are reproduced here with boot::boot (laeken's bootVar calls it after set.seed(seed), on
# incomes truncated with as.integer), and the script stops unless they give laeken's numbers exactly.
source("serialize.R")
suppressPackageStartupMessages({ library(laeken); library(boot) })

ref_generate("gini", "generate_gini.R", function(case) {
  d <- ref_input(case$inputs$data)
  a <- case$args
  inc <- d[[ref_arg(a, "inc")]]
  wname <- ref_arg(a, "weights")
  w <- if (is.null(wname)) NULL else d[[wname]]
  sname <- ref_arg(a, "sort")
  srt <- if (is.null(sname)) NULL else d[[sname]]
  na_rm <- isTRUE(ref_arg(a, "na.rm", FALSE))
  g <- gini(inc, weights = w, sort = srt, na.rm = na_rm)
  out <- list(value = g$value, n = length(inc))
  b <- a$boot
  if (!is.null(b)) {
    R <- as.integer(b$R); alpha <- as.numeric(b$alpha)
    reps <- lapply(unlist(b$seeds), function(k) {
      gb <- gini(inc, weights = w, na.rm = na_rm, var = "bootstrap", bootType = "naive", R = R,
                 seed = k, alpha = alpha)
      dd <- data.frame(inc = as.numeric(as.integer(inc)))
      dd$weight <- w
      set.seed(k)
      bb <- boot(dd, function(x, i) gini(x$inc[i], x$weight[i], na.rm = na_rm)$value, R = R,
                 strata = rep.int(1, nrow(dd)))
      ci <- boot.ci(bb, conf = 1 - alpha, type = "perc")$percent[4:5]
      stopifnot(identical(unname(ci), unname(gb$ci)), identical(var(bb$t[, 1]), gb$var))
      idx <- boot.array(bb, indices = TRUE)
      list(seed = k, var = gb$var, ci = I(unname(gb$ci)), replicates = I(bb$t[, 1]),
           indices = lapply(seq_len(nrow(idx)), function(r) I(as.integer(idx[r, ]))))
    })
    out$boot <- list(R = R, alpha = alpha, by_seed = reps)
  }
  out
})
