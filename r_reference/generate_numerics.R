# Real-data numerics references (issue 24, findings 3, 4, 6) -> outputs/numerics.json.
# Cases from cases/numerics.json (make_cases_numerics.py); run from r_reference/ by
# `regenerate.sh numerics`. Needs sdcMicro (and robustbase, its import).
#
# The real-data cases read R's write.csv files. R's read.csv parses decimals with R_strtod, which is
# not correctly rounded: a few values come out one ulp away from a correctly rounded parse (pandas,
# pysdc). The near-singular measures stored here are rounding noise, so they are computed on the
# correctly rounded doubles: read_exact() parses each decimal as an exact integer mantissa (at most 15
# digits, as write.csv writes them) divided or multiplied by an exact power of ten -- one correctly
# rounded operation. How many values read.csv parses differently, and sdcMicro's value on read.csv's
# doubles, are stored beside.
source("serialize.R")

exact_number <- function(s) {
  out <- rep(NA_real_, length(s))
  ok <- !is.na(s) & s != "NA"
  m <- regmatches(s[ok], regexec("^(-?)([0-9]*)\\.?([0-9]*)(?:[eE]([-+]?[0-9]+))?$", s[ok], perl = TRUE))
  v <- vapply(m, function(g) {
    if (length(g) == 0L) return(NA_real_)
    digits <- sub("^0+", "", paste0(g[3], g[4]))
    e <- if (nzchar(g[5])) as.integer(g[5]) else 0L
    k <- nchar(g[4]) - e  # value = mantissa / 10^k
    if (!nzchar(digits)) return(if (g[2] == "-") -0 else 0)
    if (nchar(digits) > 15L || abs(k) > 22L) return(NA_real_)  # outside the exact fast path
    mant <- as.numeric(digits)  # an integer below 2^53: exact
    r <- if (k > 0L) mant / 10^k else mant * 10^(-k)
    if (g[2] == "-") -r else r
  }, numeric(1))
  if (anyNA(v[!is.na(m)])) stop("a decimal outside the exactly parsable range")
  out[ok] <- v
  out
}

read_exact <- function(file) {
  path <- file.path("inputs", file)
  txt <- read.csv(path, colClasses = "character", check.names = FALSE, na.strings = character(0))
  rx <- read.csv(path, check.names = FALSE)  # what a user's read.csv gives
  num <- names(rx)[vapply(rx, is.numeric, logical(1))]
  ex <- rx
  for (v in num) ex[[v]] <- exact_number(txt[[v]])
  list(exact = ex, readcsv = rx, numeric = num)
}

differing <- function(a, b) sum(!(is.na(a) & is.na(b)) & (is.na(a) != is.na(b) | a != b), na.rm = TRUE)

ref_generate("numerics", "generate_numerics.R", function(case) {
  a <- case$args
  kind <- case$kind
  if (kind == "indivRisk-series") {
    fk <- as.numeric(unlist(a$fk))
    Fk <- fk * a$ratio
    f <- structure(list(freqCalc = data.frame(key = rep(NA_integer_, length(fk))), keyVars = "key",
                        w = NULL, fk = fk, Fk = Fk, n1 = sum(fk == 1), n2 = sum(fk == 2), alpha = 1),
                   class = "freqCalc")
    r <- indivRisk(f, method = a$method)
    return(list(fk = I(fk), Fk = I(Fk), rk = I(r$rk)))
  }
  if (kind == "indivRisk-keys") {
    keys <- unlist(a$keyVars)
    x <- if (!is.null(case$inputs$data)) ref_input(case$inputs$data) else read_exact(case$inputs$csv)$exact
    for (k in keys) if (is.character(x[[k]])) x[[k]] <- factor(x[[k]])  # as createSdcObj does
    f <- freqCalc(x, keyVars = keys)
    f$Fk <- f$fk * a$ratio
    r <- indivRisk(f, method = a$method)
    u <- sort(unique(f$fk))
    first <- match(u, f$fk)
    return(list(n_records = nrow(x), fk = I(u), n = I(as.integer(tabulate(match(f$fk, u), length(u)))),
                Fk = I(f$Fk[first]), rk = I(r$rk[first]),
                rk_constant_within_fk = all(r$rk == r$rk[first][match(f$fk, u)])))
  }
  if (kind %in% c("dUtility-eigen", "dUtility-robeigen")) {
    X <- read_exact(case$inputs$csv_x)
    XM <- read_exact(case$inputs$csv_xm)
    cols <- if (identical(a$columns, "numeric")) X$numeric else unlist(a$columns)
    n_diff <- differing(as.matrix(X$exact[cols]), as.matrix(X$readcsv[cols])) +
      differing(as.matrix(XM$exact[cols]), as.matrix(XM$readcsv[cols]))
    one <- function(x, xm, seed) {
      if (!is.null(seed)) set.seed(seed)
      dUtility(x, xm, method = a$method)
    }
    if (kind == "dUtility-eigen") {
      x <- X$exact[cols]
      e1 <- eigen(var(scale(x), na.rm = TRUE, use = "pairwise.complete.obs"))$values
      return(list(columns = I(cols), value = one(x, XM$exact[cols], NULL),
                  value_readcsv = one(X$readcsv[cols], XM$readcsv[cols], NULL),
                  readcsv_values_differing = n_diff, eigen_x = I(e1)))
    }
    seeds <- as.integer(unlist(a$seeds))
    x <- na.omit(X$exact[cols])
    set.seed(seeds[1])
    mcd <- robustbase::covMcd(scale(x))
    return(list(columns = I(cols), seeds = I(seeds),
                values_by_seed = I(vapply(seeds, function(s) one(X$exact[cols], XM$exact[cols], s), numeric(1))),
                values_by_seed_readcsv = I(vapply(seeds, function(s) one(X$readcsv[cols], XM$readcsv[cols], s),
                                                  numeric(1))),
                readcsv_values_differing = n_diff,
                singularity_x = if (is.null(mcd$singularity)) NULL else mcd$singularity$type,
                on_hyperplane_x = sum(mcd$mcd.wt), eigen_mcd_x = I(eigen(mcd$cov)$values)))
  }
  stop("unknown case kind ", kind)
})
