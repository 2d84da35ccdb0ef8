"""Figure builders return plotly JSON that plotly's own schema accepts, with the data in the right place."""

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dashboard.crossgen import figures
from dashboard.crossgen.results import GenerationsRun
from modeling.crossgen.ranking import Ranking
from modeling.crossgen.sweep import SweepResult
from tests.dashboard.crossgen.typed import ensemble, model


def _result(observed=(3.0, 1.0, 2.0, 5.0)):
    obs = list(observed)
    return ensemble(obs, ["w0", "w1", "w2", "w3"],
                    [model("OLS", [2.9, 1.2, 2.0, float("nan")], [3.3, 20.0, 0.0, 1e3], e_out=5.0)],
                    model("Baseline", obs, [0, 0, 0, 0], e_out=0.0), groups=["a", "a", "b", "b"])


def _gen(speedup, sim_speedup, host="GTX-680", applications=None):
    return GenerationsRun({}, host, list(speedup), [], {}, speedup, {}, sim_speedup, applications or {})


def _valid(fig):
    go.Figure(fig)  # raises on any property plotly does not know
    return fig


def test_per_workload_orders_by_observed_with_ape_on_the_second_axis():
    fig = _valid(figures.per_workload(_result(), "OLS"))
    bar, observed, predicted = fig["data"]
    assert observed["y"] == [1.0, 2.0, 3.0, 5.0]
    assert predicted["y"] == [1.2, 2.0, 2.9, None]  # NaN becomes a gap, not invalid JSON
    assert bar["yaxis"] == "y2" and bar["y"] == [20.0, 0.0, 3.3, 1e3]
    assert [c[0] for c in bar["customdata"]] == ["w1", "w2", "w0", "w3"]
    assert fig["layout"]["yaxis"]["type"] == "log" and fig["layout"]["yaxis2"]["overlaying"] == "y"
    assert "not in this result" in figures.per_workload(_result(), "Lasso")["layout"]["annotations"][0]["text"]
    assert "dtick" not in fig["layout"]["yaxis"]  # 1 to 5: plotly's own ticks
    wide = _result([1e-6, 1e-3, 0.5, 2.0])
    assert _valid(figures.per_workload(wide, "OLS"))["layout"]["yaxis"]["dtick"] == 1  # one label per decade


def test_inlier_curves_sweep_and_ranking():
    ir = _valid(figures.inlier_curves(_result(), ["OLS"]))
    assert [t["name"] for t in ir["data"]] == ["OLS", "Baseline"] and ir["data"][1]["line"]["dash"] == "dot"
    assert ir["data"][0]["x"] == [1.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0]
    sweep = _valid(figures.tree_sweep(SweepResult([2, 4, 8], [9.0, 7.0, 6.5], [{"10": 50.0, "20": 70.0}] * 3, 8)))
    assert [t.get("yaxis", "y") for t in sweep["data"]] == ["y", "y2", "y2"]
    rank = _valid(figures.ranking_bars(Ranking("OLS", "p-value", "pvalue",
                                               [{"feature": "ipc", "score": 1e-8, "category": "instruction"},
                                                {"feature": "l2_hit", "score": 0.01, "category": "cache"}])))
    assert rank["data"][0]["y"] == ["l2_hit", "ipc"] and rank["data"][0]["x"] == pytest.approx([2.0, 8.0])


def test_generation_figures():
    speedup = {"GTX-980": {"w0": 2.0, "w1": 0.5}, "Tesla-P100": {"w0": 4.0, "w1": 3.0}}
    gen = _gen(speedup, {"GTX-980": {"w0": 1e4, "w1": 1e5}, "Tesla-P100": {"w0": 3e4, "w1": 2e4}},
               applications={"w0": "a"})
    sp = _valid(figures.speedups(gen))
    assert sp["data"][0]["y"] == [0.5, 2.0] and sp["layout"]["shapes"][0]["y0"] == 1
    # one workload order on every curve: ordered by Tesla-P100, w1 (3.0) comes first for both targets
    by_p100 = _valid(figures.speedups(gen, "Tesla-P100"))
    for trace in by_p100["data"]:
        assert [c[0] for c in trace["customdata"]] == ["w1", "w0"] and trace["x"] == [1, 2]
    assert by_p100["data"][0]["y"] == [0.5, 2.0] and by_p100["data"][1]["y"] == [3.0, 4.0]
    gen3 = _gen({**speedup, "GTX-970": {"w2": 1.5, "w0": 1.0}}, gen.sim_speedup)
    three = _valid(figures.speedups(gen3, "GTX-980"))
    xs = {t["name"]: dict(zip([c[0] for c in t["customdata"]], t["x"])) for t in three["data"]}
    assert xs["GTX-980"]["w0"] == xs["Tesla-P100"]["w0"] == xs["GTX-970"]["w0"]  # same x, same workload
    sim = _valid(figures.simulator_speedups(gen))
    assert sim["data"][1]["y"] == [2e4, 3e4]  # ordered by the last target's speedup
    assert sim["data"][0]["name"].startswith("GTX-980: mean 55,000")
    pair = _valid(figures.side_by_side(_result(), _result(), "left", "right"))
    assert [t["xaxis"] for t in pair["data"]] == ["x", "x", "x2", "x2"]
    assert pair["layout"]["yaxis2"]["matches"] == "y" and pair["layout"]["xaxis2"]["matches"] == "x"


def test_repeats_window():
    v = np.array([1.0, 1.1, 0.9, 5.0])
    win = {"inlier": [True, True, True, False], "low": 0.7, "high": 1.3, "k": 7, "median": 1.0,
           "mean_all": float(v.mean()), "mean_inliers": 1.0}
    fig = _valid(figures.repeats(v, win, "hotspot"))
    assert fig["data"][0]["name"] == "kept (3)" and fig["data"][1]["x"] == [4]
    assert [s["type"] for s in fig["layout"]["shapes"]] == ["rect", "line", "line", "line"]
    assert math.isclose(fig["layout"]["shapes"][2]["y0"], 2.0)
    _valid(figures.empty("nothing yet"))


def test_log_axes_label_decades_or_1_2_5_never_crowded_minor_ticks():
    from dashboard.ui.figures import log_axis

    wide = log_axis("t", [1e-5, 1e-1])
    assert wide["dtick"] == 1
    narrow = log_axis("speedup", [0.7, 1.3, 14.0])
    assert narrow["tickvals"] == [0.5, 1.0, 2.0, 5.0, 10.0, 20.0] and narrow["ticktext"][:3] == ["0.5", "1", "2"]
