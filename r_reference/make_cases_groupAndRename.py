"""Case list of sdcMicro's ``groupAndRename`` references (issue 28, recoding).

``python3 make_cases_groupAndRename.py`` (from ``r_reference/``) writes the small inputs and
``cases/groupAndRename.json``: input ``data`` (``factor``: columns of a CSV without a schema made
factors with the given levels, on both sides), arguments ``var``, ``before``, ``after``, ``addNA``.
"""

from __future__ import annotations

import json
from pathlib import Path

from _recode_inputs import write_inputs

HERE = Path(__file__).resolve().parent
DB040 = ["Burgenland", "Carinthia", "Lower Austria", "Salzburg", "Styria", "Tyrol", "Upper Austria", "Vienna",
         "Vorarlberg"]


def case(cid, data, tags, factor=None, **args):
    inputs = {"data": data}
    if factor:
        inputs["factor"] = factor
    return {"id": f"groupAndRename:{cid}", "inputs": inputs, "args": args, "tags": tags}


def cases() -> list[dict]:
    e, eu = "recode12.csv.gz", "eusilc.csv.gz"
    fac = {"db040": DB040, "pb220a": ["AT", "EU", "Other"]}
    return [
        case("edge:f:join", e, ["join"], var="f", before=["a", "c"], after="z"),
        case("edge:f:into-existing", e, ["merge"], var="f", before=["c", "a"], after="b"),
        case("edge:f:addNA", e, ["na"], var="f", before=["c"], after="a", addNA=True),
        case("edge:f:unused-addNA", e, ["na", "unused-level"], var="f", before=["d"], after="q", addNA=True),
        case("edge:f:two-names", e, ["recycle"], var="f", before=["c", "b"], after=["x", "y"]),
        case("edge:f:three-names", e, ["recycle", "warning"], var="f", before=["b", "c"], after=["x", "y", "w"]),
        case("edge:f:empty-before", e, ["empty"], var="f", before=[], after="q"),
        case("edge:f:empty-before-addNA", e, ["empty", "na", "warning"], var="f", before=[], after="q", addNA=True),
        case("edge:f:not-a-level", e, ["error"], var="f", before=["e"], after="q"),
        case("edge:f:twice", e, ["error"], var="f", before=["a", "a"], after="q"),
        case("edge:o:ordered", e, ["ordered"], var="o", before=["lo", "mid"], after="low"),
        case("edge:fi:numeric-text", e, ["numeric-levels"], var="fi", before=["1", "2"], after="1-2"),
        case("edge:i:not-factor", e, ["error"], var="i", before=["1"], after="q"),
        case("edge:ch:character", e, ["error", "character"], var="ch", before=["x"], after="q"),
        case("eusilc:db040:east", eu, ["real"], factor=fac, var="db040",
             before=["Vienna", "Lower Austria", "Burgenland"], after="East"),
        case("eusilc:pb220a:addNA", eu, ["real", "na"], factor=fac, var="pb220a", before=["EU", "Other"],
             after="not AT", addNA=True),
    ]


def main() -> None:
    write_inputs()
    (HERE / "cases").mkdir(exist_ok=True)
    (HERE / "cases" / "groupAndRename.json").write_text(json.dumps({"cases": cases()}, indent=1, sort_keys=True)
                                                         + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
