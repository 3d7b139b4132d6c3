"""pysdc.plots: the practice guide's figures are produced for the demo data (needs matplotlib)."""

from __future__ import annotations

import pytest

import pysdc
from pysdc._errors import InvalidParameterError

matplotlib = pytest.importorskip("matplotlib", reason="matplotlib is not installed (pip install 'pysdc-measures[plots]')")

from matplotlib.figure import Figure  # noqa: E402

from pysdc import plots  # noqa: E402
from pysdc.loss._regression import compare_regression  # noqa: E402


@pytest.fixture(scope="module")
def demo():
    return pysdc.load_demo_pair()


def test_all_plots_for_demo(demo, tmp_path):
    x, xm = demo
    r = compare_regression(x[x.income > 0], xm[xm.income > 0], "log(income) ~ age_group + sex + education", w="weight")
    figs = plots.utility_plots(x, xm, regression=r)
    for v in ("income", "expenditure", "savings"):
        for kind in ("histogram", "density", "boxplot"):
            assert f"{kind}_{v}" in figs
    assert any(k.startswith("mosaic_") for k in figs) and "coefficients" in figs
    for name, fig in figs.items():
        assert isinstance(fig, Figure)
        path = tmp_path / f"{name}.png"
        fig.savefig(path, dpi=50)
        assert path.stat().st_size > 2000  # something was drawn


def test_histogram_same_bins(demo):
    x, xm = demo
    fig = plots.histogram(x, xm, "income", bins=25)
    a, b = fig.axes
    ea = sorted({round(p.get_x(), 9) for p in a.patches})
    eb = sorted({round(p.get_x(), 9) for p in b.patches})
    assert ea == eb and len(ea) == 25


def test_coefficient_plot_rows(demo):
    x, xm = demo
    r = compare_regression(x, xm, "income ~ hhsize + sex", w="weight")
    fig = r.plot()
    assert [t.get_text().split()[0] for t in fig.axes[0].get_yticklabels()] == ["hhsize", "sexfemale"]


def test_invalid(demo):
    x, xm = demo
    with pytest.raises(InvalidParameterError):
        plots.histogram(x, xm, "sex")
    with pytest.raises(InvalidParameterError):
        plots.mosaic(x, xm, "sex", "nope")
