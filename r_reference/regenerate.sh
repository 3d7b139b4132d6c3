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
    # every measure of pysdc's registry (pysdc/_registry.py), by its sdcMicro name
    # shellcheck disable=SC2046
    set -- $(cd .. && python3 -m pysdc._registry --r-names)
    rm -f inputs/*.csv.gz inputs/*.schema.json
    python3 make_inputs.py
    Rscript make_masked_inputs.R
    Rscript make_real_inputs.R
    for m in make_cases_*.py; do  # case lists of measures that keep their own
        [ -e "$m" ] && python3 "$m"
    done
    set -- "$@" protect_recode  # the recoding methods (issue 28): generate_protect_recode.R
    set -- "$@" protect_perturbation rnormal  # addNoise/pram (issue 28, family 4) and R's normal/sample references
    set -- "$@" recordSwap  # targeted record swapping (issue 28, item 5): generate_recordSwap.R
    set -- "$@" protect_suppression  # localSuppression/localSupp (issue 28, family 2)
fi
for f in "$@"; do
    Rscript "generate_$f.R"
done
