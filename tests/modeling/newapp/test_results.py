"""The result types of the new-application method: their statistics against numpy on the per-workload errors
recomputed here from the rows (measured target and each method's point), their picks, their JSON round trip
and the calibration merge the page does."""

import json
from collections import Counter

import numpy as np
import pytest

from modeling.errors import ConfigError
from modeling.newapp.application import estimate_application
from modeling.newapp.data import shipped_table
from modeling.newapp.evaluate import evaluate
from modeling.newapp.results import ApplicationEstimate, HeldOutEvaluation, MethodResult, Scores


def errors_from_rows(rows, method, skip_calibrating=False):
    """APE in percent of ``method`` on the rows with a measured target and an estimate, as a plain list."""
    out = []
    for r in rows:
        y, p = r["measured"], r[f"{method}|point"]
        if y is None or p is None or (skip_calibrating and r.get("calibrating")):
            continue
        out.append(100.0 * abs(y - p) / y)
    return np.array(out)


def assert_scores(s, a):
    assert s.n == a.size
    if a.size == 0:
        assert (s.mean_ape, s.median_ape, s.within_10, s.within_25) == (None, None, None, None)
        assert not s.scored
        return
    assert s.scored
    assert s.mean_ape == pytest.approx(np.sum(a) / a.size, rel=1e-12)
    assert s.median_ape == pytest.approx(np.percentile(a, 50), rel=1e-12)
    assert s.within_10 == pytest.approx(100.0 * np.count_nonzero(a <= 10) / a.size)
    assert s.within_25 == pytest.approx(100.0 * np.count_nonzero(a <= 25) / a.size)


def json_trip(d: dict) -> dict:
    return json.loads(json.dumps(d))


def test_scores_leave_out_what_was_not_scored():
    rng = np.random.default_rng(3)
    a = rng.uniform(0, 60, 41)
    with_gaps = np.concatenate([a[:20], [np.nan, np.inf], a[20:]])
    assert_scores(Scores.of(with_gaps), a)
    assert_scores(Scores.of([np.nan, np.nan]), np.array([]))
    assert Scores.from_dict(json_trip(Scores.of(a).to_dict())) == Scores.of(a)


def test_evaluation_statistics_are_the_rows_errors():
    t = shipped_table("GTX-680", "GTX-980")
    res = evaluate(t, "logo", models=[])
    assert isinstance(res, HeldOutEvaluation)
    assert [m.method for m in res.methods] == ["naive-pooled", "naive-balanced", "roofline", "one-run"]
    means = {}
    for m in res.methods:
        a = errors_from_rows(res.rows, m.method)
        assert_scores(m, a)
        means[m.method] = np.mean(a)
        apps = np.array([r["application"] for r in res.rows if r["measured"] is not None
                         and r[f"{m.method}|point"] is not None])
        assert set(m.per_group) == set(res.groups) == {"backprop", "heartwall", "hotspot", "lud"}
        for g in res.groups:
            assert_scores(m.per_group[g], a[apps == g])
    assert res.n_workloads == sum(r["measured"] is not None for r in res.rows)
    names = list(means)
    assert res.best.method == names[int(np.argmin([means[k] for k in names]))] == "one-run"
    assert res.method("roofline").mean_ape == pytest.approx(means["roofline"]) and res.method("nope") is None
    assert [m.method for m in res.scored] == names


def test_evaluation_json_keeps_the_readers_keys_and_rebuilds_the_type():
    res = evaluate(shipped_table("GTX-680", "GTX-980"), "loko", models=[])
    d = json_trip(res.to_dict(rows=False))
    assert "rows" not in d and d["cv_label"] == "leave one kernel out" and d["best"] == res.best.method
    for m in d["methods"]:
        assert set(m) >= {"method", "kind", "mean_ape", "median_ape", "within_10", "within_25", "n", "per_group"}
        assert set(m["per_group"]) == set(d["groups"])
    back = HeldOutEvaluation.from_dict(d)
    assert back.rows is None and json_trip(back.to_dict()) == d
    assert back.methods == res.methods and back.best == res.best


def test_an_application_estimate_scores_the_inputs_it_did_not_calibrate_with():
    t = shipped_table("GTX-680", "GTX-980")
    hw = [i for i, g in zip(t.ids, t.groups) if g == "heartwall"]
    res = estimate_application(t, "heartwall", [{"id": hw[7]}], models=["RandomForest"])
    assert isinstance(res, ApplicationEstimate) and res.calibrated
    means = {}
    for m in res.methods:
        # the estimates are scored without the calibrating input (its one-run value is the measurement itself)
        a = errors_from_rows(res.rows, m.method, skip_calibrating=m.kind == "estimate")
        assert_scores(m, a)
        means[m.method] = np.mean(a)
    assert res.method("one-run").n == len(hw) - 1 and res.method("RandomForest").n == len(hw)
    names = list(means)
    assert res.best.method == names[int(np.argmin([means[k] for k in names]))] == "one-run"
    roof = res.method("roofline")
    assert len(roof.classes) == len(hw)
    counted = Counter(roof.classes)
    assert roof.class_counts == {c: counted[c] for c in ("memory", "compute", "latency") if counted[c]}
    assert sum(roof.class_counts.values()) == len(hw)
    assert res.method("naive-pooled").ratio > 0 and res.method("RandomForest").ratio is None


def test_application_json_round_trip():
    t = shipped_table("GTX-680", "GTX-980")
    res = estimate_application(t, "lud", models=[])
    d = json_trip(res.to_dict())
    assert d["best"] == res.best.method
    assert set(d) >= {"application", "n_workloads", "n_measured", "training_applications", "calibration",
                      "one_run", "methods", "warnings", "rows"}
    roof = next(m for m in d["methods"] if m["method"] == "roofline")
    assert roof["class_counts"] == res.method("roofline").class_counts and len(roof["class"]) == res.n_workloads
    back = ApplicationEstimate.from_dict(d)
    assert back.methods == res.methods and json_trip(back.to_dict()) == d
    assert not back.calibrated and back.method("one-run").n == 0


def test_calibrating_a_cached_result_equals_estimating_with_the_calibration():
    """The page's merge: the cached result (models, nothing calibrated) with a fast calibrated run (no models)
    gives what one run with both would, and the lowest mean APE is picked again on the merged methods."""
    t = shipped_table("GTX-680", "GTX-980")
    hw = [i for i, g in zip(t.ids, t.groups) if g == "heartwall"]
    cached = ApplicationEstimate.from_dict(json_trip(estimate_application(t, "heartwall", models=["RandomForest"])
                                                     .to_dict()))
    assert cached.best.method == "roofline"
    picks = [{"id": hw[3]}]
    merged = cached.with_calibration(estimate_application(t, "heartwall", picks, models=[]))
    both = estimate_application(t, "heartwall", picks, models=["RandomForest"])
    assert merged.methods == both.methods and merged.rows == both.rows
    assert merged.calibration == both.calibration and merged.calibrated
    means = {m.method: np.mean(errors_from_rows(merged.rows, m.method, m.kind == "estimate")) for m in merged.methods}
    assert merged.best.method == min(means, key=means.get) == "one-run"
    with pytest.raises(ConfigError, match="cannot join"):
        cached.with_calibration(estimate_application(t, "lud", models=[]))


def test_nothing_scored_has_no_best():
    m = MethodResult.from_errors("roofline", "estimate", [np.nan] * 3, missing="no device specs")
    res = HeldOutEvaluation({}, "leave one application out", 0, 0, [], [m], {})
    assert res.best is None and res.scored == [] and res.to_dict()["best"] is None
    assert MethodResult.from_dict(json_trip(m.to_dict())) == m
