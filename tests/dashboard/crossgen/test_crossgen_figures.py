"""Figure builders return plotly JSON that plotly's own schema accepts, with the data in the right place."""

import math

import numpy as np
import plotly.graph_objects as go
import pytest

from dashboard.crossgen import figures

IR = {"1": 10.0, "5": 40.0, "10": 60.0, "15": 70.0, "20": 80.0, "30": 90.0, "40": 95.0, "50": 99.0}


def _result():
    obs = [3.0, 1.0, 2.0, 5.0]
    return {"observed": obs, "workload_ids": ["w0", "w1", "w2", "w3"], "groups": ["a", "a", "b", "b"],
            "models": [{"model": "OLS", "oof_prediction": [2.9, 1.2, 2.0, float("nan")], "ape": [3.3, 20.0, 0.0, 1e3],
                        "e_out": 5.0, "inlier_ratio": IR}],
            "baseline": {"model": "Baseline", "oof_prediction": obs, "ape": [0, 0, 0, 0], "e_out": 0.0,
                         "inlier_ratio": IR},
            "best": {"overall": "OLS"}}


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
    wide = _result()
    wide["observed"] = [1e-6, 1e-3, 0.5, 2.0]
    assert _valid(figures.per_workload(wide, "OLS"))["layout"]["yaxis"]["dtick"] == 1  # one label per decade


def test_inlier_curves_sweep_and_ranking():
    ir = _valid(figures.inlier_curves(_result(), ["OLS"]))
    assert [t["name"] for t in ir["data"]] == ["OLS", "Baseline"] and ir["data"][1]["line"]["dash"] == "dot"
    assert ir["data"][0]["x"] == [1.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0]
    sweep = _valid(figures.tree_sweep({"n_trees": [2, 4, 8], "e_out": [9.0, 7.0, 6.5], "best_n": 8,
                                       "inlier_ratio": [{"10": 50.0, "20": 70.0}] * 3}))
    assert [t.get("yaxis", "y") for t in sweep["data"]] == ["y", "y2", "y2"]
    rank = _valid(figures.ranking_bars({"model": "OLS", "score_name": "pvalue", "kind": "p-value",
                                        "features": [{"feature": "ipc", "score": 1e-8, "category": "instruction"},
                                                     {"feature": "l2_hit", "score": 0.01, "category": "cache"}]}))
    assert rank["data"][0]["y"] == ["l2_hit", "ipc"] and rank["data"][0]["x"] == pytest.approx([2.0, 8.0])


def test_generation_figures():
    gen = {"host": "GTX-680", "applications": {"w0": "a"},
           "speedup": {"GTX-980": {"w0": 2.0, "w1": 0.5}, "Tesla-P100": {"w0": 4.0, "w1": 3.0}},
           "sim_speedup": {"GTX-980": {"w0": 1e4, "w1": 1e5}, "Tesla-P100": {"w0": 3e4, "w1": 2e4}}}
    sp = _valid(figures.speedups(gen))
    assert sp["data"][0]["y"] == [0.5, 2.0] and sp["layout"]["shapes"][0]["y0"] == 1
    # one workload order on every curve: ordered by Tesla-P100, w1 (3.0) comes first for both targets
    by_p100 = _valid(figures.speedups(gen, "Tesla-P100"))
    for trace in by_p100["data"]:
        assert [c[0] for c in trace["customdata"]] == ["w1", "w0"] and trace["x"] == [1, 2]
    assert by_p100["data"][0]["y"] == [0.5, 2.0] and by_p100["data"][1]["y"] == [3.0, 4.0]
    gen3 = {**gen, "speedup": {**gen["speedup"], "GTX-970": {"w2": 1.5, "w0": 1.0}}}
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
