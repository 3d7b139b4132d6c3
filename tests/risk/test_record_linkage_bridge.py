"""pysdc.r.record_linkage against sdcMicro's development recordLinkage (5.8.1), on every stored case.

The stored cases come from 5.8.1 (r_reference/generate_recordLinkage.R); CRAN's 5.8.0 lacks the function,
so the live comparison runs where the R library holding 5.8.1 is given: in this process when its sdcMicro
has recordLinkage, otherwise in a child process with ``R_LIBS`` set to ``$PYSDC_R_LIBS_DEV`` (the separate
library 5.8.1 was installed into). Skipped with the reason where neither is available.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest

from pysdc._registry import MEASURES

ENTRY = next(m for m in MEASURES if m.python == "record_linkage")

_CHILD = r"""
import json
from pysdc import parity as P
from pysdc import r as bridge
root = P.reference_dir()
out = {"version": bridge.available().reason, "failed": {}}
cases = P.load_corpus(root, functions=["recordLinkage"])
for c in cases:
    o = P.check_case(c, bridge, root, [], "live")
    if o.status != "passed":
        out["failed"][c.id] = o.message[:400]
out["n"] = len(cases)
print("RESULT" + json.dumps(out))
"""


def test_the_bridge_sends_y_the_linked_variables():
    """y travels with the variables as well as its id (it was sent with the id column only)."""
    x = pd.DataFrame({"id": [1, 2], "a": [1.0, 2.0], "b": [3.0, 4.0], "z": [0, 0]})
    cols = ENTRY.frame_columns({"x": x, "y": x, "vars": ["a", "b"], "x_id": "id", "y_id": "id"})
    assert sorted(cols["x"]) == ["a", "b", "id"] and sorted(cols["y"]) == ["a", "b", "id"]


def _in_process_has_record_linkage() -> bool:
    try:
        import rpy2  # noqa: F401
    except ImportError:
        return False
    import pysdc.r as bridge

    if not bridge.available():
        return False
    ns = bridge.call("asNamespace", "sdcMicro", package="base", as_robject=True)
    return bool(bridge.call("exists", "recordLinkage", envir=ns, inherits=False, package="base"))


@pytest.mark.live
def test_bridge_equals_stored_sdcmicro_581_on_every_case():
    env = dict(os.environ)
    if not _in_process_has_record_linkage():
        lib = os.environ.get("PYSDC_R_LIBS_DEV")
        if not lib:
            pytest.skip("the installed sdcMicro has no recordLinkage (5.8.1, development version) and "
                        "PYSDC_R_LIBS_DEV does not name an R library holding it")
        env["R_LIBS"] = lib
    proc = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, env=env, timeout=1200)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT")), None)
    assert line is not None, proc.stderr[-2000:]
    out = json.loads(line[len("RESULT"):])
    if "5.8.1" not in out["version"] and "5.8.2" not in out["version"]:
        pytest.skip(f"the R library given holds {out['version']}, not sdcMicro 5.8.1")
    assert out["n"] >= 38
    assert out["failed"] == {}
