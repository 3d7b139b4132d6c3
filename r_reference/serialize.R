# The one shared serializer for pysdc's stored sdcMicro references.
#
# Every generate_<function>.R script sources this file and writes its output
# through ref_generate(), so all reference values are written the same way:
#   * doubles with 17 significant digits (sprintf("%.17g")), which round-trip
#     exactly to IEEE doubles;
#   * NA, NaN, Inf and -Inf kept distinct, as the JSON strings "NA", "NaN",
#     "Inf" and "-Inf" (character NA is JSON null);
#   * vectors of length 1 are written as scalars unless wrapped in I(), which
#     always gives a JSON array (used for per-record results);
#   * a header with the R and sdcMicro versions, the script name and the date,
#     marked "generated -- do not edit".
#
# Inputs are read in pysdc's typed-table format ("pysdc-table-1"): a CSV
# (optionally gzipped) with NA for missing values plus a sidecar
# <stem>.schema.json giving each column's R class and factor levels.
#
# Requires: sdcMicro (the thing being referenced) and jsonlite (an import of
# sdcMicro, used here only to *read* case lists and schemas).

suppressPackageStartupMessages({
  library(sdcMicro)
  library(jsonlite)
})

# ---------------------------------------------------------------- JSON writer

ref_json_string <- function(s) {
  out <- character(length(s))
  for (i in seq_along(s)) {
    if (is.na(s[i])) { out[i] <- "null"; next }
    t <- enc2utf8(s[i])
    t <- gsub("\\", "\\\\", t, fixed = TRUE)
    t <- gsub("\"", "\\\"", t, fixed = TRUE)
    t <- gsub("\n", "\\n", t, fixed = TRUE)
    t <- gsub("\r", "\\r", t, fixed = TRUE)
    t <- gsub("\t", "\\t", t, fixed = TRUE)
    out[i] <- paste0("\"", t, "\"")
  }
  out
}

ref_json_number <- function(x) {
  out <- character(length(x))
  if (is.integer(x)) {
    out <- as.character(x)
    out[is.na(x)] <- "\"NA\""
    return(out)
  }
  x <- as.double(x)
  nan <- is.nan(x)
  na <- is.na(x) & !nan
  pinf <- !is.na(x) & x == Inf
  ninf <- !is.na(x) & x == -Inf
  ok <- !(nan | na | pinf | ninf)
  out[ok] <- sprintf("%.17g", x[ok])
  out[nan] <- "\"NaN\""
  out[na] <- "\"NA\""
  out[pinf] <- "\"Inf\""
  out[ninf] <- "\"-Inf\""
  out
}

ref_json_atoms <- function(x) {
  if (is.factor(x)) return(ref_json_string(as.character(x)))
  if (is.character(x)) return(ref_json_string(x))
  if (is.logical(x)) {
    out <- ifelse(x, "true", "false")
    out[is.na(x)] <- "\"NA\""
    return(out)
  }
  if (is.numeric(x)) return(ref_json_number(x))
  stop("ref_json: cannot serialize an object of class ", paste(class(x), collapse = "/"))
}

ref_json <- function(x, indent = 0L) {
  pad <- strrep("  ", indent + 1L)
  pad0 <- strrep("  ", indent)
  if (is.null(x)) return("null")
  if (is.matrix(x)) x <- as.data.frame(x, stringsAsFactors = FALSE)
  if (is.data.frame(x)) x <- lapply(as.list(x), function(col) I(col))
  if (is.list(x)) {
    if (length(x) == 0L) return(if (is.null(names(x))) "[]" else "{}")
    parts <- vapply(x, ref_json, character(1), indent = indent + 1L)
    if (is.null(names(x))) {
      return(paste0("[\n", paste0(pad, parts, collapse = ",\n"), "\n", pad0, "]"))
    }
    keys <- ref_json_string(names(x))
    return(paste0("{\n", paste0(pad, keys, ": ", parts, collapse = ",\n"), "\n", pad0, "}"))
  }
  as_array <- inherits(x, "AsIs") || length(x) != 1L
  if (inherits(x, "AsIs")) class(x) <- setdiff(class(x), "AsIs")
  atoms <- ref_json_atoms(x)
  if (!as_array) return(atoms)
  if (!is.null(names(x)) && !inherits(x, "factor")) {
    keys <- ref_json_string(names(x))
    return(paste0("{", paste0(keys, ": ", atoms, collapse = ", "), "}"))
  }
  paste0("[", paste(atoms, collapse = ", "), "]")
}

# ------------------------------------------------------------ typed tables

ref_schema_path <- function(path) sub("\\.csv(\\.gz)?$", ".schema.json", path)

ref_read_table <- function(path) {
  schema <- fromJSON(ref_schema_path(path), simplifyVector = FALSE)
  if (!identical(schema$format, "pysdc-table-1")) stop("unknown table format in ", ref_schema_path(path))
  cols <- schema$columns
  cls <- vapply(cols, function(col) col$r_class, character(1))
  names(cls) <- vapply(cols, function(col) col$name, character(1))
  read_cls <- ifelse(cls %in% c("factor", "ordered"), "character", cls)
  df <- read.csv(path, na.strings = "NA", colClasses = unname(read_cls), check.names = FALSE,
                 stringsAsFactors = FALSE, strip.white = FALSE, encoding = "UTF-8")
  if (!identical(names(df), names(cls))) stop("columns of ", path, " do not match its schema")
  for (j in seq_along(cols)) {
    if (cls[j] %in% c("factor", "ordered")) {
      lev <- vapply(cols[[j]]$levels, as.character, character(1))
      df[[j]] <- factor(df[[j]], levels = lev, ordered = cls[j] == "ordered")
    }
  }
  df
}

ref_r_class <- function(col) {
  if (is.ordered(col)) return("ordered")
  if (is.factor(col)) return("factor")
  if (is.logical(col)) return("logical")
  if (is.integer(col)) return("integer")
  if (is.numeric(col)) return("numeric")
  if (is.character(col)) return("character")
  stop("ref_write_table: no typed-table class for ", paste(class(col), collapse = "/"))
}

# Write a data.frame in the typed-table format (used for masked inputs produced
# by sdcMicro's own methods).
ref_write_table <- function(df, path) {
  df <- as.data.frame(df, stringsAsFactors = FALSE)
  out <- df
  schema_cols <- list()
  for (j in seq_along(df)) {
    col <- df[[j]]
    cls <- ref_r_class(col)
    entry <- list(name = names(df)[j], r_class = cls)
    if (cls %in% c("factor", "ordered")) entry$levels <- I(levels(col))
    schema_cols[[j]] <- entry
    if (cls == "numeric") {
      v <- sprintf("%.17g", col)
      v[is.na(col)] <- "NA"
      v[!is.na(col) & col == Inf] <- "Inf"
      v[!is.na(col) & col == -Inf] <- "-Inf"
      out[[j]] <- v
    } else if (cls %in% c("factor", "ordered")) {
      out[[j]] <- as.character(col)
    }
  }
  quote_cols <- which(vapply(df, function(col) is.character(col) || is.factor(col), logical(1)))
  con <- if (grepl("\\.gz$", path)) gzfile(path, "w") else file(path, "w")
  write.table(out, con, sep = ",", na = "NA", row.names = FALSE, col.names = TRUE,
              quote = if (length(quote_cols)) quote_cols else FALSE, qmethod = "double", eol = "\n")
  close(con)
  schema <- list(format = "pysdc-table-1", columns = schema_cols)
  writeLines(ref_json(schema), ref_schema_path(path), useBytes = TRUE)
  invisible(path)
}

# ---------------------------------------------------------- running cases

# Evaluate expr, capturing the value, R's error message (if any) and warnings.
ref_run <- function(expr) {
  warnings <- character(0)
  value <- withCallingHandlers(
    tryCatch(list(ok = TRUE, value = force(expr)),
             error = function(e) list(ok = FALSE, error = conditionMessage(e))),
    warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  value$warnings <- unique(warnings)
  value
}

ref_header <- function(fun, script) {
  list(
    generated = paste0("generated by r_reference/", script, " -- do not edit; regenerate with r_reference/regenerate.sh"),
    "function" = fun,
    script = script,
    r_version = R.version.string,
    sdcmicro_version = as.character(packageVersion("sdcMicro")),
    robustbase_version = as.character(packageVersion("robustbase")),
    date = format(Sys.Date(), "%Y-%m-%d")
  )
}

ref_arg <- function(args, name, default = NULL) {
  v <- args[[name]]
  if (is.null(v)) return(default)
  if (is.list(v)) v <- unlist(v)
  v
}

ref_load_cases <- function(fun) {
  spec <- fromJSON(file.path("cases", paste0(fun, ".json")), simplifyVector = FALSE)
  spec$cases
}

# Inputs are read afresh for every case: sdcMicro converts some inputs to
# data.tables by reference, so a cached copy could be altered between cases.
ref_input <- function(file) {
  if (is.null(file)) return(NULL)
  ref_read_table(file.path("inputs", file))
}

# Run runner(case) for each case of cases/<fun>.json and write outputs/<fun>.json.
# runner returns a named list (the sdcMicro result); errors become "error".
ref_generate <- function(fun, script, runner) {
  cases <- ref_load_cases(fun)
  out <- vector("list", length(cases))
  for (i in seq_along(cases)) {
    case <- cases[[i]]
    res <- ref_run(runner(case))
    entry <- list(id = case$id, inputs = case$inputs, args = case$args)
    if (is.null(entry$inputs)) entry$inputs <- structure(list(), names = character(0))
    if (is.null(entry$args)) entry$args <- structure(list(), names = character(0))
    entry$tags <- I(as.character(unlist(case$tags)))
    if (res$ok && !is.null(res$value)) {
      entry$result <- res$value
    } else if (res$ok) {
      entry$result <- NULL
      entry$r_returned_null <- TRUE
    } else {
      entry$error <- res$error
    }
    entry$warnings <- I(as.character(res$warnings))
    out[[i]] <- entry
  }
  doc <- list(header = ref_header(fun, script), cases = out)
  dir.create("outputs", showWarnings = FALSE)
  path <- file.path("outputs", paste0(fun, ".json"))
  writeLines(ref_json(doc), path, useBytes = TRUE)
  n_err <- sum(vapply(out, function(e) !is.null(e$error), logical(1)))
  cat(sprintf("%s: %d cases (%d sdcMicro errors) -> %s\n", fun, length(out), n_err, path))
  invisible(out)
}

# Per-record results: all rows for small data (n <= 100) or cases tagged
# "rows-full"; otherwise 51 evenly spaced rows (0-based indices in "rows")
# plus each field's sum over all rows in "row_sums" (unless sums = FALSE).
ref_rowwise <- function(case, fields, sums = TRUE) {
  n <- length(fields[[1]])
  tags <- unlist(case$tags)
  if (n <= 100L || "rows-full" %in% tags) return(lapply(fields, I))
  idx <- unique(round(seq(1, n, length.out = 51)))
  out <- list(n_rows = n, rows = I(as.integer(idx - 1L)))
  out <- c(out, lapply(fields, function(v) I(v[idx])))
  if (sums) out$row_sums <- lapply(fields, function(v) sum(as.numeric(v)))
  out
}

# Subset x and xm to inputs$columns when a case asks for it.
ref_pair <- function(case) {
  x <- ref_input(case$inputs$x)
  xm <- ref_input(case$inputs$xm)
  cols <- unlist(case$inputs$columns)
  if (!is.null(cols)) {
    x <- x[, cols, drop = FALSE]
    xm <- xm[, cols, drop = FALSE]
  }
  list(x = x, xm = xm)
}

# The data.frame of a protection case: inputs/<data> (read by its schema when there is one, else read.csv),
# the columns of inputs$factor made factors with the listed levels, then only inputs$columns when given.
ref_case_input <- function(case) {
  file <- case$inputs$data
  path <- file.path("inputs", file)
  x <- if (file.exists(ref_schema_path(path))) ref_input(file) else read.csv(path, check.names = FALSE)
  fac <- case$inputs$factor
  for (nm in names(fac)) x[[nm]] <- factor(x[[nm]], levels = unlist(fac[[nm]]))
  cols <- unlist(case$inputs$columns)
  if (!is.null(cols)) x <- x[, cols, drop = FALSE]
  x
}

# Doubles as hexadecimal text (sprintf("%a")), NA as "NA".
ref_hex <- function(v) {
  out <- sprintf("%a", as.double(v))
  out[is.na(v)] <- "NA"
  out
}

# The MD5 of text written one value per line.
ref_md5_lines <- function(text) {
  f <- tempfile()
  writeLines(text, f, useBytes = TRUE)
  on.exit(unlink(f))
  unname(as.character(tools::md5sum(f)))
}

# n and the MD5 of text; all values for up to 100, else 51 evenly spaced rows (0-based) and their values.
ref_values_record <- function(text) {
  n <- length(text)
  out <- list(n = n, md5 = ref_md5_lines(text))
  if (n <= 100L) {
    out$values <- I(text)
  } else {
    idx <- unique(round(seq(1, n, length.out = 51)))
    out$rows <- I(as.integer(idx - 1L))
    out$values <- I(text[idx])
  }
  out
}

# Doubles as decimal text with 17 significant digits (sprintf("%.17g")), NA as "NA".
ref_g17 <- function(v) {
  out <- sprintf("%.17g", as.double(v))
  out[is.na(v)] <- "NA"
  out
}

# One numeric column: its R class, the MD5 of its values (ref_g17, one per line), how many are missing, and the
# values for up to 100 records, else 51 evenly spaced rows (0-based) and their values.
ref_column_record <- function(v) {
  out <- list(class = class(v)[1], md5 = ref_md5_lines(ref_g17(v)), n_na = sum(is.na(v)))
  n <- length(v)
  if (n <= 100L) {
    out$values <- I(as.double(v))
  } else {
    idx <- unique(round(seq(1, n, length.out = 51)))
    out$rows <- I(as.integer(idx - 1L))
    out$values <- I(as.double(v[idx]))
  }
  out
}
