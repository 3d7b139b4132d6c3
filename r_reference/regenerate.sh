#!/bin/sh
# Regenerate pysdc's whole sdcMicro reference corpus (inputs, masked inputs,
# case lists and outputs). Needs python3 with pysdc importable, and R with
# sdcMicro installed; it never installs anything.
#
#   r_reference/regenerate.sh            # everything
#   r_reference/regenerate.sh freqCalc   # only some functions' outputs
#
# Afterwards: `pysdc parity` rewrites parity_reports/.
set -eu
cd "$(dirname "$0")"
if ! Rscript -e 'if (!requireNamespace("sdcMicro", quietly = TRUE)) quit(status = 1)' >/dev/null 2>&1; then
    echo "regenerate.sh: the R package sdcMicro is not installed; install it first (this script does not)." >&2
    exit 1
fi
if [ "$#" -eq 0 ]; then
    rm -f inputs/*.csv.gz inputs/*.schema.json
    python3 make_inputs.py
    Rscript make_masked_inputs.R
    Rscript make_real_inputs.R
    for m in make_cases_*.py; do  # case lists of measures and methods that keep their own
        [ -e "$m" ] && python3 "$m"
    done
    # every reference script: the registry's measures (python3 -m pysdc._registry --r-names) and methods, R's
    # random streams, numerics, createSdcObj, print, the export list ... (generate_recordLinkage.R leaves its
    # output alone, saying why, where the installed sdcMicro lacks recordLinkage)
    set --
    for g in generate_*.R; do
        f="${g#generate_}"
        set -- "$@" "${f%.R}"
    done
fi
for f in "$@"; do
    Rscript "generate_$f.R"
done
