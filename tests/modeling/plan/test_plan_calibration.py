"""Calibration that survives active selection: the random slice of every batch, and intervals calibrated on
it alone with residuals scaled by the distance to the simulated set (checked against a hand computation)."""

import numpy as np
import pytest

from modeling.crossgen.predict import fit_predictor
from modeling.intervals import conformal
from modeling.plan import strategies
from modeling.plan.assess import FOLDS, MODEL, _scenario, assess
from modeling.plan.batch import select
from modeling.plan.calibration import (
    CALIBRATION_SHARE,
    MAX_LINE_POINTS,
    MIN_FITTED_SCALE,
    distance_scale,
    fitted_distance_scale,
    learning_curve_factor,
    least_absolute_line,
    slice_size,
)
from modeling.plan.inputs import Budget
from modeling.plan.replay import embed, replay


def test_slice_size_is_the_share_on_average():
    rng = np.random.default_rng(0)
    sizes = [slice_size(7, rng) for _ in range(4000)]
    assert set(sizes) == {1, 2}  # 0.2 x 7 = 1.4: one, or two 40 % of the time
    assert abs(np.mean(sizes) - CALIBRATION_SHARE * 7) < 0.05


def test_learning_curve_factor():
    # e ~ n^-1: the 2-fold error (n/2) is twice the error at n, 10-fold's (0.9 n) is 1/0.9 of it
    assert learning_curve_factor(1 / 0.9, 2.0, 10) == pytest.approx(0.9)
    assert learning_curve_factor(1.0, 0.5, 10) == 1.0  # no learning: residuals kept
    assert learning_curve_factor(1.0, 100.0, 10) == pytest.approx(0.9)  # b kept within [0, 1]


def test_distance_scale():
    cal, pool = distance_scale(np.array([1.0, 2.0, 3.0]), np.array([0.0, 0.5]))
    assert cal.tolist() == [3.0, 4.0, 5.0] and pool.tolist() == [2.0, 2.5]


def _lad_by_vertices(x, r):
    """The non-negative median regression line by enumeration: an optimum of the linear program lies on a
    vertex, a line through two points, or through one point with a = 0 or b = 0."""
    cands = [(ri, 0.0) for ri in r] + [(0.0, ri / xi) for xi, ri in zip(x, r) if xi > 0]
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            if x[i] != x[j]:
                b = (r[j] - r[i]) / (x[j] - x[i])
                a = r[i] - b * x[i]
                if a >= 0 and b >= 0:
                    cands.append((a, b))
    return min(np.abs(r - a - b * x).sum() for a, b in cands)


def test_median_regression_line_against_vertex_enumeration():
    rng = np.random.default_rng(3)
    for slope in (0.4, -0.3):  # a falling trend: the slope stays at its bound, zero
        x = rng.uniform(0, 2, 40)
        r = np.abs(0.5 + slope * x + 0.1 * rng.standard_t(2, 40))
        a, b = least_absolute_line(x, r)
        assert a >= 0 and b >= 0
        assert np.abs(r - a - b * x).sum() == pytest.approx(_lad_by_vertices(x, r), rel=1e-9)
    assert b == pytest.approx(0.0, abs=1e-12)
    # a large residual moves a least-squares line, not the median one
    x = np.linspace(0, 1, 30)
    r = 0.1 + 0.2 * x
    r[-1] = 50.0
    assert least_absolute_line(x, r) == pytest.approx((0.1, 0.2), abs=1e-9)


def test_fitted_distance_scale():
    rng = np.random.default_rng(3)
    d = rng.uniform(0, 2, 200)
    r = np.abs(0.1 + 0.4 * d + rng.normal(0, 0.05, 200))
    a, b = least_absolute_line(d, r)
    cal, pool = fitted_distance_scale(d, r, np.array([0.0, 1.0]), np.array([0.5, 2.0]))
    assert np.allclose(cal, [a, a + b]) and np.allclose(pool, a + b * np.array([0.5, 2.0]))
    assert abs(b - 0.4) < 0.05
    # errors that shrink with distance: no slope, a constant scale (plain conformal intervals)
    cal, pool = fitted_distance_scale(d, 1.0 / (1.0 + d), np.array([0.0, 1.0]), np.array([2.0]))
    assert cal[0] == cal[1] == pool[0] > 0
    # a zero intercept keeps a floor of 5 % of the mean residual; an unreachable workload (inf) is left out
    cal, _ = fitted_distance_scale(np.r_[d, np.inf], np.r_[0.4 * d, 1.0], np.array([0.0]), np.array([1.0]))
    assert cal[0] == pytest.approx(0.05 * np.mean(0.4 * d))
    # beyond MAX_LINE_POINTS residuals an evenly spaced subset fits the line
    big = np.linspace(0, 2, 3 * MAX_LINE_POINTS)
    sub = np.linspace(0, len(big) - 1, MAX_LINE_POINTS).astype(int)
    rr = 0.2 + 0.3 * big + 0.01 * np.sin(7 * big)
    a, b = least_absolute_line(big[sub], rr[sub])
    assert np.allclose(fitted_distance_scale(big, rr, np.array([1.0]), np.array([0.0]))[0], a + b)


def test_interval_scale_is_fitted_once_enough_workloads_are_simulated():
    from modeling.plan.inputs import read_plan_table
    from tests.modeling.plan.conftest import synthetic_frame

    t = read_plan_table(synthetic_frame(n=120, measured=MIN_FITTED_SCALE + 10), "target", "workload",
                        host_col="host_s", group_col="application", cost_col="sim_hours")
    known, rows = np.flatnonzero(t.measured), np.flatnonzero(t.candidates)
    calib, Z = known[::4], embed(t)
    a = assess(t, t.y, known, rows, calibration=calib, level=0.8, Z=Z)
    assert "a fitted line" in a.how
    # by hand: the line fitted on every simulated workload's out-of-fold residual and distance
    p = fit_predictor(_scenario(t, known), model=MODEL, transform="logratio", level=0.8, folds=FOLDS)
    d_all = np.array([strategies.nearest_distance(Z, known[[i]], known[p.fold_of != p.fold_of[i]])[0]
                      for i in range(len(known))])
    s_cal, s_pool = fitted_distance_scale(d_all, p.abs_r, d_all[::4], strategies.nearest_distance(Z, rows, known))
    q = np.sort(p.abs_r[::4] / s_cal)[conformal.conformal_rank(0.8, len(s_cal)) - 1]
    e2 = fit_predictor(_scenario(t, known), model=MODEL, transform="logratio", level=0.8, folds=2).cv_error["male"]
    b = min(max(np.log(e2 / p.cv_error["male"]) / np.log(2 * (FOLDS - 1) / FOLDS), 0), 1)
    assert np.allclose(np.log(a.upper / a.predicted), q * s_pool * ((FOLDS - 1) / FOLDS) ** b)
    # one workload fewer than the threshold: the fixed scale
    few = assess(t, t.y, known[: MIN_FITTED_SCALE - 1], rows, calibration=calib, level=0.8, Z=Z)
    assert "a fitted line" not in few.how and "distance to the simulated ones" in few.how


def test_batches_keep_a_random_slice_flagged(table):
    Z = embed(table)
    cand, sim = np.flatnonzero(table.candidates), np.flatnonzero(table.measured)
    ctx = strategies.Context(Z, cand, sim, None, table.cost, table.groups, Budget("count", 10),
                             np.random.default_rng(0))
    picks, why, flags = select("diversity", ctx)
    assert len(picks) == 10 and flags.sum() == 2  # 20 % of 10
    assert all("calibrated" in w for w, f in zip(why, flags) if f)
    k_center = [p for p, f in zip(picks, flags) if not f]
    assert all("farthest" in w for w, f in zip(why, flags) if not f) and len(k_center) == 8


def test_interval_is_calibrated_on_the_random_workloads_only(table):
    known = np.flatnonzero(table.measured)
    rows = np.flatnonzero(table.candidates)
    calib = known[::3]  # pretend every third simulated workload was drawn at random
    Z = embed(table)
    a = assess(table, table.y, known, rows, calibration=calib, level=0.8, Z=Z)
    # by hand: the same fit, the residuals of the calibration workloads over their distance scale
    p = fit_predictor(_scenario(table, known), model=MODEL, transform="logratio", level=0.8, folds=FOLDS)
    sel = np.arange(len(known))[::3]
    d_cal = np.array([strategies.nearest_distance(Z, known[[i]], known[p.fold_of != p.fold_of[i]])[0] for i in sel])
    d_pool = strategies.nearest_distance(Z, rows, known)
    s_cal, s_pool = d_cal + np.median(d_cal), d_pool + np.median(d_cal)
    k = conformal.conformal_rank(0.8, len(sel))
    q = np.sort(p.abs_r[sel] / s_cal)[k - 1]
    e2 = fit_predictor(_scenario(table, known), model=MODEL, transform="logratio", level=0.8, folds=2).cv_error["male"]
    b = min(max(np.log(e2 / p.cv_error["male"]) / np.log(2 * (FOLDS - 1) / FOLDS), 0), 1)
    half = np.log(a.upper / a.predicted)
    assert np.allclose(half, q * s_pool * ((FOLDS - 1) / FOLDS) ** b)
    assert a.n_calibration == len(sel) and "chosen at random" in a.how
    # calibrated on every simulated workload instead, the interval differs
    b = assess(table, table.y, known, rows, level=0.8)
    assert not np.allclose(np.log(b.upper / b.predicted), half)


def test_replay_measures_coverage_on_the_unsimulated_after_every_round():
    from dataclasses import replace

    from modeling.plan.inputs import read_plan_table
    from tests.modeling.plan.conftest import synthetic_frame

    t = read_plan_table(synthetic_frame(measured=89), "target", "workload", host_col="host_s",
                        group_col="application", cost_col="sim_hours")
    t = replace(t, y=synthetic_frame(measured=90)["target"].to_numpy(float))  # every target known
    rounds = replay(t, "diversity", round_budget=Budget("count", 6), rounds=3, start=20, seed=0)
    assert [r["simulated"] for r in rounds] == [20, 26, 32, 38]
    assert all(0.0 <= r["coverage"] <= 1.0 for r in rounds)
    assert all(r["error"] > 0 and r["median_width"] > 1 for r in rounds)
    assert [r["strategy"] for r in rounds] == ["diversity"] * 3 + [None]
    assert np.mean([r["coverage"] for r in rounds]) >= 0.75
