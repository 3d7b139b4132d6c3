# stats::lm / stats::glm references -> outputs/regression.json (run by regenerate.sh).
#
# Each case fits the formula on x and on xm (after keeping the records with <positive> > 0 when the
# case names such a column), with weights = the named column, and stores for each side the
# coefficient names, coef(summary(fit)) (estimate, std. error), confint(fit, level = level) (lm: t
# quantiles; glm: R 4.2 profiles the likelihood through MASS's confint.glm) and
# confint.default(fit, level = level) (Wald), df.residual and the number of records used; for a glm
# also the profile confint interpolates (profile(fit, alpha = (1 - level)/4): per estimated
# coefficient the values it was fixed at, par, and the signed root deviance, z).
source("serialize.R")
suppressPackageStartupMessages(library(MASS))

rg_side <- function(data, a) {
  pos <- ref_arg(a, "positive")
  if (!is.null(pos)) data <- data[!is.na(data[[pos]]) & data[[pos]] > 0, , drop = FALSE]
  fam <- ref_arg(a, "family", "gaussian")
  level <- as.numeric(ref_arg(a, "level", 0.95))
  wname <- ref_arg(a, "weights")
  args <- list(formula = as.formula(ref_arg(a, "formula")), data = data)
  if (!is.null(wname)) args$weights <- data[[wname]]
  fit <- if (fam == "gaussian") do.call("lm", args) else do.call("glm", c(args, list(family = get(fam)())))
  cs <- coef(summary(fit))
  b <- coef(fit)
  se <- rep(NA_real_, length(b)); names(se) <- names(b)
  se[rownames(cs)] <- cs[, 2]
  ci <- suppressMessages(confint(fit, level = level))
  if (is.null(dim(ci))) ci <- matrix(ci, nrow = 1L)  # MASS's confint on a one-coefficient glm: a vector
  cd <- confint.default(fit, level = level)
  out <- list(names = I(names(b)), estimate = I(unname(b)), se = I(unname(se)),
              lower = I(unname(ci[, 1])), upper = I(unname(ci[, 2])),
              lower_wald = I(unname(cd[, 1])), upper_wald = I(unname(cd[, 2])),
              df_residual = as.integer(df.residual(fit)), n = as.integer(nobs(fit)))
  if (fam != "gaussian") {
    # the profile confint interpolates: profile(fit, alpha = (1 - level)/4) (what confint.glm calls),
    # for each estimated coefficient the values it was fixed at and the signed root deviance z
    pr <- suppressWarnings(profile(fit, alpha = (1 - level) / 4))
    est <- names(b)[!is.na(b)]
    out$profile <- lapply(setNames(est, est), function(nm) {
      pv <- pr[[nm]]$par.vals
      list(par = I(unname(if (is.matrix(pv)) pv[, nm] else pv)), z = I(unname(pr[[nm]]$z)))
    })
  }
  out
}

ref_generate("regression", "generate_regression.R", function(case) {
  x <- ref_input(case$inputs$x)
  xm <- ref_input(case$inputs$xm)
  list(x = rg_side(x, case$args), xm = rg_side(xm, case$args))
})
