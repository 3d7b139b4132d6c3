"""The bridge's own R code and its cached accessor, and the one string heuristic.

:data:`H` gives the R helper closures (evaluated once, into a private environment,
the first time one is used -- which starts R); nothing else fills or caches them.
The heuristic that decides whether a character vector travels as distinct values
plus codes (:func:`few_distinct` in Python, ``str_out`` in R) is defined here once,
with its thresholds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._runtime import LOCK, start

__all__ = ["H", "helpers", "few_distinct", "FEW_N", "SAMPLE_N", "FEW_DISTINCT"]

#: up to this many strings, a vector always travels as its distinct values plus codes
FEW_N = 4000
#: longer vectors: the size of the evenly spread sample that decides
SAMPLE_N = 1000
#: ... codes are used when the sample has at most this many distinct values
FEW_DISTINCT = 250


def few_distinct(values: np.ndarray) -> bool:
    """Guess from an evenly spread sample whether strings repeat a lot (Python side of ``str_out``)."""
    n = len(values)
    if n <= FEW_N:
        return True
    sample = values[:: n // SAMPLE_N][:SAMPLE_N]
    return len(pd.unique(sample)) <= FEW_DISTINCT


# Our own R helpers, evaluated once into a private environment.
_R_HELPERS = r"""
list(
  run = function(fun, args) {
    env <- new.env(parent = globalenv())
    nm <- if (length(args)) paste0(".pysdc_a", seq_along(args)) else character(0)
    for (i in seq_along(args)) assign(nm[i], args[[i]], envir = env)
    assign(".pysdc_f", fun, envir = env)
    cl <- as.call(c(list(as.name(".pysdc_f")), lapply(nm, as.name)))
    an <- names(args)
    if (!is.null(an)) names(cl) <- c("", an)
    warns <- character(0); wcalls <- character(0); msgs <- character(0)
    # printed output and messages go to one connection, in the order R emits them; message
    # lines carry a leading \036 so that the two can be told apart afterwards
    .pysdc_out <- character(0)
    con <- textConnection(".pysdc_out", "w", local = TRUE)
    short <- function(cl) if (is.null(cl)) "" else paste(deparse(cl, nlines = 1L, width.cutoff = 100L), collapse = "")
    nsink <- sink.number()
    res <- withCallingHandlers(
      tryCatch({
        value <- NULL
        sink(con)
        value <- withVisible(eval(cl, env))
        list(TRUE, value$value, "")
      }, error = function(e) list(FALSE, conditionMessage(e), short(conditionCall(e)))),
      warning = function(w) {
        warns <<- c(warns, conditionMessage(w)); wcalls <<- c(wcalls, short(conditionCall(w)))
        invokeRestart("muffleWarning")
      },
      message = function(m) {
        txt <- conditionMessage(m)
        msgs <<- c(msgs, sub("\n$", "", txt))
        cat(gsub("(^|\n)(?=.)", "\\1\036", txt, perl = TRUE), file = con, sep = "")
        invokeRestart("muffleMessage")
      })
    while (sink.number() > nsink) sink()
    close(con)
    list(res[[1]], res[[2]], res[[3]], warns, wcalls, msgs, .pysdc_out)
  },
  locate = function(name, pkgs) {
    # the first of pkgs whose namespace exports the function name ("" if none)
    for (p in pkgs) {
      if (identical(p, "base")) {
        if (exists(name, envir = baseenv(), mode = "function", inherits = FALSE)) return(p)
      } else if (requireNamespace(p, quietly = TRUE) && name %in% getNamespaceExports(p)) {
        f <- get(name, envir = asNamespace(p))
        if (is.function(f)) return(p)
      }
    }
    ""
  },
  getfun = function(name, pkg) {
    tryCatch(
      if (is.null(pkg)) get(name, envir = globalenv(), mode = "function")
      else if (identical(pkg, "base")) get(name, envir = baseenv(), mode = "function")
      else getExportedValue(pkg, name),
      error = function(e) conditionMessage(e))
  },
  getns = function(name, pkg) tryCatch(get(name, envir = asNamespace(pkg), mode = "function"),
                                       error = function(e) conditionMessage(e)),
  guard = function(f, ...) tryCatch(list(TRUE, f(...)), error = function(e) list(FALSE, conditionMessage(e))),
  formula = function(text) tryCatch(list(TRUE, stats::as.formula(text, env = globalenv())),
                                    error = function(e) list(FALSE, conditionMessage(e))),
  has_pkg = function(pkg) requireNamespace(pkg, quietly = TRUE),
  pkg_version = function(pkg) if (requireNamespace(pkg, quietly = TRUE)) as.character(utils::packageVersion(pkg)) else NA_character_,
  r_version = function() paste(R.version$major, R.version$minor, sep = "."),
  str_in = function(r, na, utf8) {
    x <- strsplit(rawToChar(r), "\037", fixed = TRUE, useBytes = TRUE)[[1L]]
    if (utf8) Encoding(x) <- "UTF-8"
    if (!is.null(na)) x[na] <- NA_character_
    x
  },
  str_out = function(x, few_n, sample_n, few_distinct) {
    n <- length(x)
    few <- n <= few_n || length(unique(x[seq.int(1L, n, length.out = sample_n)])) <= few_distinct
    codes <- NULL
    if (few) { u <- unique(x); codes <- match(x, u) } else u <- x
    na <- which(is.na(u))
    u8 <- enc2utf8(u); u8[na] <- ""
    hassep <- any(grepl("\037", u8, fixed = TRUE, useBytes = TRUE))
    raw <- if (hassep || !length(u8)) raw(0) else charToRaw(paste0(u8, collapse = "\037"))
    list(codes, length(u), raw, hassep, u, na)
  },
  str_index = function(u, codes) u[codes],
  set_class = function(x, cls) { class(x) <- cls; x },
  as_character = function(x) as.character(x),
  row_names = function(x) if (.row_names_info(x, 1L) < 0L) NULL else attr(x, "row.names"),
  nrow = function(x) .row_names_info(x, 2L),
  is_s4 = function(x) isS4(x),
  class_of = function(x) class(x),
  # a call or a symbol must not be passed to an R function as such (the argument would evaluate it): it
  # travels boxed in a list
  deparse_boxed = function(b) paste(deparse(b[[1L]], width.cutoff = 500L), collapse = "\n"),
  slot = function(x, name) methods::slot(x, name),
  attr = function(x, name) attr(x, name, exact = TRUE),
  item = function(x, key) if (isS4(x)) methods::slot(x, key) else x[[key]],
  unclass_any = function(x) {
    if (isS4(x)) { sn <- methods::slotNames(x); structure(lapply(sn, function(s) methods::slot(x, s)), names = sn) }
    else unclass(x)
  },
  set_seed = function(seed) set.seed(seed),
  # R's stream as it stands; without one R seeds itself first (set.seed(NULL)), as its next draw would
  random_seed = function() {
    if (!exists(".Random.seed", envir = globalenv(), inherits = FALSE)) set.seed(NULL)
    get(".Random.seed", envir = globalenv(), inherits = FALSE)
  },
  load_data = function(name) { e <- new.env(); utils::data(list = name, package = "sdcMicro", envir = e); get(name, envir = e) },
  sdc_names = function(obj) {
    nm <- colnames(obj@origData)
    f <- function(i) if (is.null(i)) character(0) else if (is.character(i)) i else nm[i]
    list(key_vars = f(obj@keyVars), num_vars = f(obj@numVars), w = f(obj@weightVar), hid = f(obj@hhId),
         strata = f(obj@strataVar), sensitive = f(obj@sensibleVar), pram_vars = f(obj@pramVars),
         deleted_vars = f(obj@deletedVars), has_prev = !is.null(obj@prev))
  },
  pkg_datasets = function(pkg) unname(utils::data(package = pkg)$results[, "Item"])
)
"""


_cache: dict = {}


def helpers() -> dict:
    """The R helper closures by name (starts R and evaluates them once)."""
    if not _cache:
        with LOCK:
            if not _cache:
                ri = start()
                lst = ri.baseenv["eval"](ri.parse(_R_HELPERS))
                _cache.update({lst.names[i]: lst[i] for i in range(len(lst))})
    return _cache


class _Helpers:
    """``H["name"]``: the helper closure ``name`` (see :func:`helpers`)."""

    def __getitem__(self, name: str):
        return helpers()[name]


H = _Helpers()
