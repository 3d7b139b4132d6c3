"""The stored corpus of small CSV files on which pysdc's CSV reader is compared with R's read.csv
(inputs/csv_typing/*.csv and cases/csv_typing.json; R's typed columns: generate_csv_typing.R).

Run once to make the corpus (it is stored; regenerate.sh does not remake it). Each file mixes, column by
column, empty fields, quoted empty fields, white space, NA (quoted or not), numbers with white space around
them, leading zeros, the logical texts of R, dates and text. Most files are read with read.csv's default
arguments; some with a dialect pysdc supports (sep ";" with dec ",", tab, extra na.strings)."""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "inputs" / "csv_typing"

BLANK = ["", '""', " ", '" "', "  ", "\t", "NA", '"NA"']
INTS = ["1", "2", "007", " 3", "3 ", " 4 ", "-5", "+6", "0", '"12"', '" 7"', "2147483647", "-2147483647",
        "2147483648", "-2147483648", "12345678901"]
NUMS = ["1.5", " 2.25", "3.5 ", ".5", "5.", "-0.75", "1e3", "2E-2", "Inf", "-Inf", '"4.5"', "0.1"]
BOOLS = ["TRUE", "FALSE", "T", "F", "true", "false", "True", "False", '"TRUE"', '"F"']
TEXT = ["abc", "x y", '"a,b"', " NA", "NA ", "N/A", "-", "2020-01-31", "31.01.2020", "1 2", "tRUE", "na",
        '"p q"', "01a", "TRUE ", " T"]
FLAVOURS = {
    "blank": BLANK,
    "int": INTS,
    "num": INTS[:6] + NUMS,
    "bool": BOOLS,
    "bool1": ["TRUE", "FALSE", "T", "F"],
    "bool2": ["true", "false"],
    "bool3": ["True", "False"],
    "text": TEXT,
    "date": ["2020-01-31", "1999-12-01", "2021-02-28"],
    "mixed": BLANK + INTS + NUMS + BOOLS + TEXT,
}
DIALECTS = [
    ({}, ","),
    ({}, ","),
    ({}, ","),
    ({"sep": ";", "dec": ","}, ";"),
    ({"sep": "\t"}, "\t"),
    ({"na_strings": ["NA", ""]}, ","),
    ({"na_strings": ["NA", "-", "N/A"]}, ","),
]


def _field(token: str, sep: str, dec: str) -> str:
    if dec == "," and any(ch.isdigit() for ch in token) and "." in token and "-" not in token[1:]:
        token = token.replace(".", ",")
        if not token.startswith('"'):
            token = '"' + token + '"' if sep == "," else token
    if sep == "\t" and token == "\t":
        token = " "
    if sep != "," and token == '"a,b"':
        token = '"a;b"'
    return token


def make_lines(rng: random.Random, sep: str, dec: str) -> list:
    """The lines of one file (header first): 2 to 5 columns, 2 to 6 records."""
    k = rng.randint(2, 5)
    n = rng.randint(2, 6)
    cols = []
    for _ in range(k):
        flav = rng.choice(list(FLAVOURS))
        p_blank = rng.choice([0.0, 0.2, 0.5, 0.9])
        pool = FLAVOURS[flav]
        if flav in ("bool", "mixed", "text") and rng.random() < 0.5:
            pool = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
        cols.append([rng.choice(BLANK) if rng.random() < p_blank else rng.choice(pool) for _ in range(n)])
    lines = [sep.join(f"c{j + 1}" for j in range(k))]
    for r in range(n):
        lines.append(sep.join(_field(cols[j][r], sep, dec) for j in range(k)))
    return lines


def main() -> None:
    rng = random.Random(20261125)
    OUT.mkdir(parents=True, exist_ok=True)
    cases = []
    for i in range(160):
        args, sep = DIALECTS[i % len(DIALECTS)]
        dec = args.get("dec", ".")
        lines = make_lines(rng, sep, dec)
        name = f"t{i:03d}.csv"
        (OUT / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        cases.append({"id": f"csv_typing_{i:03d}", "inputs": {"file": f"inputs/csv_typing/{name}"}, "args": args,
                      "tags": []})
    doc = {"function": "csv_typing", "generated": "make_inputs_csv_typing.py -- do not edit", "cases": cases}
    (HERE / "cases" / "csv_typing.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"csv_typing: {len(cases)} files -> {OUT}")


if __name__ == "__main__":
    main()
