"""The launch-to-workload rules shared by the shipped build and profiler imports (modeling.tables.launches)."""

import numpy as np
import pandas as pd
import pytest

from modeling.tables.launches import average_repeats, combine_parts, mad_inliers
from modeling.tables.repeats import mad_window


def test_mad_inliers_is_mad_window_per_group():
    rng = np.random.default_rng(0)
    a = np.r_[rng.normal(10, 0.1, 20), 30.0]
    b = np.r_[np.full(6, 5.0), 5.1]          # MAD 0: every run kept
    values = pd.Series(np.r_[a, b])
    groups = pd.Series([0] * len(a) + [1] * len(b))
    got = mad_inliers(values, groups, 7.0).to_numpy()
    assert got.tolist() == list(mad_window(a, 7.0).inlier) + list(mad_window(b, 7.0).inlier)
    assert not got[len(a) - 1] and got[len(a):].all()


def test_repeats_averaged_then_parts_combined_by_kind():
    df = pd.DataFrame({"w": ["x"] * 5 + ["y"], "grid": [1, 1, 1, 2, 2, 1],
                       "t": [1.0, 1.1, 9.0, 3.0, 3.0, 4.0], "inst": [10, 10, 10, 30, 30, 7],
                       "pct": [50, 50, 50, 80, 80, 20], "regs": [32, 32, 32, 64, 64, 16],
                       "rare": [np.nan] * 5 + [1.0]})
    runs = average_repeats(df, ["w", "grid"], "t", ["t", "inst", "pct", "regs", "rare"], 1.0, ["w"])
    assert runs["repeats_outliers"].tolist() == [1, 0, 0]       # the 9.0 run of x's first part
    out = combine_parts(runs, ["w"], {"t": "sum", "inst": "sum", "pct": "wmean", "regs": "mean", "rare": "sum"},
                        "t").set_index("w")
    x = out.loc["x"]
    assert x["t"] == pytest.approx(1.05 + 3.0) and x["inst"] == 40
    assert x["pct"] == pytest.approx((50 * 1.05 + 80 * 3.0) / 4.05) and x["regs"] == 48
    assert np.isnan(x["rare"]) and out.loc["y", "rare"] == 1.0   # a metric no part has stays empty, not 0
    assert x["launches"] == 2 and x["repeats_total"] == 5
