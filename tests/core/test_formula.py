"""pysdc.core.formula: R's terms ordering and model.matrix column names / values.

The expected column names below were read off R 4.2.2's ``model.matrix`` on the frame
``d`` of ``_data()`` (a: factor x/y/z, b: factor p/q, c: ordered l<m<h, x: numeric,
l: logical, all TRUE); the live test re-checks them, and the values, against R.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pysdc._errors import InvalidParameterError
from pysdc.core.formula import FactorColumn, NumericColumn, contr_poly, model_matrix, parse_formula


def _data():
    return {
        "a": FactorColumn(np.array([0, 1, 2, 0]), ("x", "y", "z")),
        "b": FactorColumn(np.array([0, 1, 0, 1]), ("p", "q")),
        "c": FactorColumn(np.array([0, 1, 2, 0]), ("l", "m", "h"), ordered=True),
        "x": NumericColumn(np.array([1.5, 2.0, 3.0, 4.0])),
        "l": FactorColumn(np.array([1, 1, 1, 1]), (False, True)),
    }


R_COLNAMES = {
    "~b:a + a": "(Intercept) ay az bq:ax bq:ay bq:az",
    "~a:x": "(Intercept) ax:x ay:x az:x",
    "~(a + b + c)^2": "(Intercept) ay az bq c.L c.Q ay:bq az:bq ay:c.L az:c.L ay:c.Q az:c.Q bq:c.L bq:c.Q",
    "~a * b * c": "(Intercept) ay az bq c.L c.Q ay:bq az:bq ay:c.L az:c.L ay:c.Q az:c.Q bq:c.L bq:c.Q "
                  "ay:bq:c.L az:bq:c.L ay:bq:c.Q az:bq:c.Q",
    "~a:b": "(Intercept) ax:bp ay:bp az:bp ax:bq ay:bq az:bq",
    "~a + b - 1": "ax ay az bq",
    "~x + a:b": "(Intercept) x ax:bp ay:bp az:bp ax:bq ay:bq az:bq",
    "~l": "(Intercept) lTRUE",
    "~a + x:a + b:x": "(Intercept) ay az ax:x ay:x az:x x:bq",
    "~c + a:c - 1": "cl cm ch cl:ay cm:ay ch:ay cl:az cm:az ch:az",
    "~0 + a:b + x": "x ax:bp ay:bp az:bp ax:bq ay:bq az:bq",
    "~a * x - a": "(Intercept) x ay:x az:x",
    "~a:b:x + b": "(Intercept) bq ax:bp:x ay:bp:x az:bp:x ax:bq:x ay:bq:x az:bq:x",
}


@pytest.mark.parametrize("formula", list(R_COLNAMES))
def test_model_matrix_colnames_as_r(formula):
    _, names, _ = model_matrix(parse_formula(formula), _data())
    assert " ".join(names) == R_COLNAMES[formula]


@pytest.mark.parametrize(
    "formula, labels",
    [
        ("~ (a + b + c)^2", ["a", "b", "c", "a:b", "a:c", "b:c"]),
        ("~ a*b*c", ["a", "b", "c", "a:b", "a:c", "b:c", "a:b:c"]),
        ("~ a:b + c", ["c", "a:b"]),
        ("~ b:a + a", ["a", "b:a"]),
        ("~ a + b + a", ["a", "b"]),
        ("~ (a + b)^3", ["a", "b", "a:b"]),
        ("~ a*b - a:b", ["a", "b"]),
        ("~ a + b:c*d", ["a", "d", "b:c", "b:c:d"]),
        ("y ~ `odd name` + a", ["odd name", "a"]),
    ],
)
def test_term_labels_as_r_terms(formula, labels):
    assert parse_formula(formula).labels == labels


def test_intercept_and_response():
    f = parse_formula("y ~ a + b - 1")
    assert f.response == "y" and not f.intercept and f.variables == ("a", "b")
    assert parse_formula("~ 0 + a").intercept is False
    assert parse_formula("~ a + 1").intercept is True
    assert parse_formula("~ a").main_effects() == ["a"]


@pytest.mark.parametrize(
    "text",
    ["~", "a + b", "~ log(a)", "~ I(a^2)", "~ a %in% b", "~ a/b", "~ a + ", "~ (a + b", "~ a^0", "~ a^b",
     "~ 2", "~ a + .", "y ~ y + a", "~ a:1", 5],
)
def test_refused(text):
    with pytest.raises(InvalidParameterError):
        parse_formula(text)


def test_model_matrix_values():
    x, names, assign = model_matrix(parse_formula("~ a*x + c"), _data())
    assert names == ["(Intercept)", "ay", "az", "x", "c.L", "c.Q", "ay:x", "az:x"]
    assert assign == [0, 1, 1, 2, 3, 3, 4, 4]
    np.testing.assert_array_equal(x[:, 1], [0, 1, 0, 0])
    np.testing.assert_array_equal(x[:, 6], [0, 2.0, 0, 0])
    np.testing.assert_allclose(x[:, 4], [-np.sqrt(0.5), 0, np.sqrt(0.5), -np.sqrt(0.5)], atol=1e-15)


def test_contr_poly_properties():
    for n in range(2, 9):
        z = contr_poly(n)
        assert z.shape == (n, n - 1)
        np.testing.assert_allclose(z.T @ z, np.eye(n - 1), atol=1e-12)
        np.testing.assert_allclose(z.sum(axis=0), 0, atol=1e-12)
        assert z[-1, 0] > 0  # increasing linear contrast
    # R's contr.poly(3)
    np.testing.assert_allclose(contr_poly(3), [[-np.sqrt(0.5), 1 / np.sqrt(6)], [0, -2 / np.sqrt(6)],
                                               [np.sqrt(0.5), 1 / np.sqrt(6)]], atol=1e-15)


def test_single_level_factor_refused():
    d = {"a": FactorColumn(np.array([0, 0]), ("x",))}
    with pytest.raises(InvalidParameterError, match="2 or more levels"):
        model_matrix(parse_formula("~ a"), d)


@pytest.mark.live
def test_live_model_matrix_against_r():
    import pysdc.r

    if not pysdc.r.available():
        pytest.skip(f"R with sdcMicro not available: {pysdc.r.available().reason}")
    df = pd.DataFrame({
        "a": pd.Categorical(["x", "y", "z", "x", "y"]),
        "b": pd.Categorical(["p", "q", "p", "q", "q"]),
        "c": pd.Categorical(["l", "m", "h", "l", "h"], categories=["l", "m", "h"], ordered=True),
        "x": [1.5, 2.0, 3.0, 4.0, -1.0],
    })
    cols = {
        "a": FactorColumn(df["a"].cat.codes.to_numpy(), tuple(df["a"].cat.categories)),
        "b": FactorColumn(df["b"].cat.codes.to_numpy(), tuple(df["b"].cat.categories)),
        "c": FactorColumn(df["c"].cat.codes.to_numpy(), tuple(df["c"].cat.categories), ordered=True),
        "x": NumericColumn(df["x"].to_numpy()),
    }
    for text in ["~ (a + b + c)^2", "~ c + a:c - 1", "~ a*x + b:x", "~ a:b:x + b", "~ 0 + a:b + x"]:
        f = pysdc.r.call("as.formula", text, package="stats")
        mm = pysdc.r.call("model.matrix", f, df, package="stats")
        mine, names, _ = model_matrix(parse_formula(text), cols)
        assert list(mm.columns) == names
        np.testing.assert_allclose(mine, mm.to_numpy(dtype=float), rtol=1e-13, atol=1e-15)
