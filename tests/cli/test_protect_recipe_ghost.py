"""Ghost variables in ``pysdc protect``: the recipe's ``ghost_vars``, ``--ghost KEY=G1,G2`` and the step
``add_ghost_vars`` (sdcMicro's ``addGhostVars``) give the protected file of :class:`pysdc.SdcProblem`'s
``ghost_vars=`` / ``add_ghost_vars``."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import pysdc
from pysdc.cli import main
from pysdc.datasets import demo_path
from pysdc.io import read_table

KEYS = "region,urbrur,sex,age_group,education"
FLAGS = ["--keys", KEYS, "--numeric", "income,expenditure,savings", "--weight", "weight", "--hid", "hid"]


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _recipe(tmp_path, obj) -> str:
    p = tmp_path / "recipe.json"
    p.write_text(json.dumps(obj))
    return str(p)


@pytest.fixture(scope="module")
def data():
    return read_table(demo_path())


def _problem(data, **kw):
    return pysdc.SdcProblem(data, KEYS.split(","), num_vars=["income", "expenditure", "savings"], w="weight",
                            hid="hid", **kw)


def _same_file(path, want: pd.DataFrame):
    got = read_table(path)
    assert list(got.columns) == list(want.columns)
    for c in want.columns:
        a = got[c].astype(object).where(got[c].notna(), None).map(lambda v: None if v is None else str(v))
        b = want[c].astype(object).where(want[c].notna(), None).map(lambda v: None if v is None else str(v))
        assert a.tolist() == b.tolist(), c


def test_recipe_ghost_vars_as_the_problem(tmp_path, capsys, data):
    out = tmp_path / "p.parquet"
    code, _, err = _run(capsys, "protect", demo_path(), *FLAGS, "--output", out, "--recipe",
                        _recipe(tmp_path, {"ghost_vars": {"region": ["marital"]},
                                           "steps": [{"method": "localSuppression", "k": 3}]}))
    assert code == 0, err
    want = _problem(data, ghost_vars={"region": ["marital"]}).local_suppression(k=3).manip_data
    _same_file(out, want)
    got = read_table(out)
    newly = got["region"].isna() & data["region"].notna()
    assert newly.any() and got.loc[newly, "marital"].isna().all()  # the ghost follows its key
    without = _problem(data).local_suppression(k=3).manip_data
    assert not got["marital"].isna().equals(without["marital"].isna())


def test_recipe_ghost_vars_in_sdcmicros_list_form_and_the_flag(tmp_path, capsys, data):
    want = _problem(data, ghost_vars={"region": ["marital"], "age_group": ["health_status"]}) \
        .local_suppression(k=3).manip_data
    out = tmp_path / "p.csv"
    code, _, err = _run(capsys, "protect", demo_path(), *FLAGS, "--ghost", "age_group=health_status",
                        "--output", out, "--recipe",
                        _recipe(tmp_path, {"ghost_vars": [["region", ["marital"]]],
                                           "steps": [{"localSuppression": {"k": 3}}]}))
    assert code == 0, err
    _same_file(out, want)


def test_add_ghost_vars_step_links_from_there_on(tmp_path, capsys, data):
    steps = [{"method": "local_suppression", "k": 2},
             {"method": "addGhostVars", "keyVar": "region", "ghostVars": "marital"},
             {"method": "local_suppression", "k": 4}]
    out = tmp_path / "p.parquet"
    code, _, err = _run(capsys, "protect", demo_path(), *FLAGS, "--output", out, "--recipe",
                        _recipe(tmp_path, {"steps": steps}))
    assert code == 0, err
    want = _problem(data).local_suppression(k=2).add_ghost_vars("region", ["marital"]) \
        .local_suppression(k=4).manip_data
    _same_file(out, want)
    unlinked = _problem(data).local_suppression(k=2).local_suppression(k=4).manip_data
    assert want["marital"].isna().sum() > unlinked["marital"].isna().sum()  # the step linked the ghost


@pytest.mark.parametrize("recipe, flags, message", [
    ({"ghost_vars": {"education": ["no_such"]}, "steps": [{"method": "localSuppression"}]}, [], "no_such"),
    ({"ghost_vars": {"education": "marital"}, "steps": [{"method": "localSuppression"}]}, ["--ghost", "region"],
     "--ghost takes KEY=GHOST1,GHOST2"),
    ({"ghost_vars": "education", "steps": [{"method": "localSuppression"}]}, [], "ghost_vars must be an object"),
    ({"steps": [{"method": "add_ghost_vars", "key_var": "education"}]}, [], "needs key_var and ghost_vars"),
    ({"steps": [{"method": "add_ghost_vars", "key_var": "education", "ghost_vars": ["marital"], "k": 3}]}, [],
     "unknown argument"),
    ({"ghost_vars": {"income": ["marital"]}, "steps": [{"method": "localSuppression"}]}, [],
     "not a categorical key variable"),
])
def test_bad_ghost_links_are_refused_and_nothing_is_written(tmp_path, capsys, recipe, flags, message):
    out = tmp_path / "p.parquet"
    code, _, err = _run(capsys, "protect", demo_path(), *FLAGS, *flags, "--output", out, "--recipe",
                        _recipe(tmp_path, recipe))
    assert code == 2 and message in err, err
    assert not out.exists()
