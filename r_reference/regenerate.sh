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
    set -- dUtility IL_correl IL_variables freqCalc indivRisk measure_risk ldiversity
    rm -f inputs/*.csv.gz inputs/*.schema.json
    python3 make_inputs.py
    Rscript make_masked_inputs.R
fi
for f in "$@"; do
    Rscript "generate_$f.R"
done
