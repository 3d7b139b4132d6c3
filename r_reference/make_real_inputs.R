# Real-data inputs of the reference corpus: laeken's `eusilc` (synthetic EU-SILC, 14,827 persons in
# 6,000 households; Debian's r-cran-laeken, so CI has it too), written the way users receive real
# files: by R's write.csv (text keys, NA for missing values), and a masked copy made by sdcMicro's
# addNoise (set.seed(1)) on the numeric variables, also written by write.csv.
# The CSV files are the inputs: pysdc reads them with its own reader, sdcMicro's scripts with
# read.csv (R's R_strtod may parse a decimal one ulp away from pandas: that is part of the case).
# Run from r_reference/ by regenerate.sh (needs sdcMicro for the masking).

suppressPackageStartupMessages({library(laeken); library(sdcMicro)})
data(eusilc, package = "laeken")
x <- eusilc
num <- c("py010n", "hy040n", "hy050n", "eqIncome")
write_csv_gz <- function(df, path) {
  con <- gzfile(path, "w")
  on.exit(close(con))
  write.csv(df, con, row.names = FALSE)
}
write_csv_gz(x, file.path("inputs", "eusilc.csv.gz"))
set.seed(1)
xm <- x
xm[, num] <- addNoise(x[, num], noise = 150, method = "additive")$xm
write_csv_gz(xm, file.path("inputs", "eusilc_masked.csv.gz"))
cat("wrote inputs/eusilc.csv.gz and inputs/eusilc_masked.csv.gz\n")
