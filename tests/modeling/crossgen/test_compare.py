"""Two scenario results compared (modeling/crossgen/compare.py), against numbers worked out here."""

import dataclasses

import numpy as np
import pytest

from modeling.crossgen.compare import compare_scenarios, compare_workloads, differs, star
from modeling.crossgen.ensemble import BASELINE, EnsembleResult, ModelResult
from modeling.results import Result


def _model(name, obs, pred):
    obs, pred = np.asarray(obs, float), np.asarray(pred, float)
    ape = 100 * np.abs(pred - obs) / obs
    return ModelResult(name, float(ape.mean()), float(ape.mean()), 0.0,
                       {"10": float(100 * (ape <= 10).mean()), "20": float(100 * (ape <= 20).mean())}, 1, 1, 0.0,
                       pred.tolist(), ape.tolist(), [])


def _result(ids, obs, preds: dict, baseline=None):
    return EnsembleResult({}, len(ids), 1, ["x"], ids, None, obs,
                          _model(BASELINE, obs, baseline) if baseline is not None else None,
                          [_model(n, obs, p) for n, p in preds.items()])


OBS_A = [1.0, 2.0, 4.0, 8.0]
A = _result(["w1", "w2", "w3", "w4"], OBS_A,
            {"OLS": [1.1, 2.0, 4.4, 8.0], "RandomForest": [1.5, 2.5, 3.0, 9.0]}, baseline=[1.2, 2.4, 4.8, 9.6])
OBS_B = [2.0, 4.0, 8.0, 3.0]
B = _result(["w2", "w3", "w4", "w5"], OBS_B,
            {"OLS": [3.0, 6.0, 4.0, 3.3], "RandomForest": [2.1, 4.2, 8.4, 3.0]}, baseline=[2.0, 4.0, 8.0, 3.0])


def test_star_is_the_lowest_e_out_the_baseline_included():
    assert star(A) == ("OLS", pytest.approx(np.mean([10, 0, 10, 0])))
    assert star(B) == (BASELINE, 0.0)  # the baseline predicts B exactly: it is B's star, not the best model
    no_base = dataclasses.replace(A, baseline=None)
    assert star(no_base)[0] == "OLS" and no_base.star == star(no_base)


def test_differs_needs_a_point_and_a_tenth():
    assert differs(2.0, 3.0) and differs(40.0, 45.0)
    assert not differs(40.1, 40.6)  # under a point
    assert not differs(0.1, 0.5)  # under a point though five times larger
    assert not differs(None, 3.0)


def test_leaderboards_merged_by_model():
    c = compare_scenarios(A, B)
    rows = {r.model: r for r in c.models}
    assert set(rows) == {"OLS", "RandomForest", BASELINE}
    ols = rows["OLS"]
    e_a = np.mean(100 * np.abs(np.array([1.1, 2.0, 4.4, 8.0]) - OBS_A) / OBS_A)
    e_b = np.mean(100 * np.abs(np.array([3.0, 6.0, 4.0, 3.3]) - OBS_B) / OBS_B)
    assert ols.e_out_a == pytest.approx(e_a) and ols.e_out_b == pytest.approx(e_b)
    assert ols.delta == pytest.approx(e_b - e_a) and ols.changed == "A better"
    assert rows[BASELINE].changed == "B better" and rows[BASELINE].rank_b == 1 and rows[BASELINE].star_b
    assert ols.rank_a == 1 and ols.star_a and not ols.star_b
    assert c.star_a[0] == "OLS" and c.star_b[0] == BASELINE and not c.same_star
    best = [min(v for v in (r.e_out_a, r.e_out_b)) for r in c.models]
    assert best == sorted(best)  # by the better of the two
    s = c.summary()
    rows = s.table("models").records()
    assert s.fact("moved").value == f"{c.n_changed} of 3" and sum(bool(r["changed"]) for r in rows) == c.n_changed
    assert rows[0]["delta"] == c.models[0].delta and sorted(r["marks"] for r in rows if r["marks"]) == ["★ A", "★ B"]
    assert [n.key for n in s.notes] == ["crowned"] and "OLS in A, Baseline (host x median ratio) in B" in s.as_text()


def test_a_model_one_run_lacks_is_kept_with_a_gap():
    b = dataclasses.replace(B, models=[m for m in B.models if m.model != "RandomForest"])
    rf = next(r for r in compare_scenarios(A, b).models if r.model == "RandomForest")
    assert rf.e_out_b is None and rf.rank_b is None and rf.delta is None and rf.changed == ""


def test_workloads_compared_on_the_shared_ones_most_apart_first():
    w = compare_workloads(A, B, "RandomForest", "OLS")
    # APE of A's RandomForest on w2, w3, w4: 25, 25, 12.5 %; of B's OLS: 50, 50, 50 %; gaps 25, 25, 37.5
    assert [r.workload for r in w.rows] == ["w4", "w2", "w3"]
    by = {r.workload: r for r in w.rows}
    # w3: A's RandomForest predicts 3.0 for 4.0 (25 %), B's OLS 6.0 for 4.0 (50 %)
    assert by["w3"].ape_a == pytest.approx(25.0) and by["w3"].ape_b == pytest.approx(50.0)
    assert by["w3"].observed_a == 4.0 and by["w3"].predicted_b == 6.0 and by["w3"].gap == pytest.approx(25.0)
    assert w.only_a == 1 and w.only_b == 1 and w.n_shared == 3
    apes = np.array([[r.ape_a, r.ape_b] for r in w.rows])
    assert w.b_better == int((apes[:, 1] < apes[:, 0]).sum()) and w.a_better == int((apes[:, 0] < apes[:, 1]).sum())
    assert [r.gap for r in w.rows] == sorted((r.gap for r in w.rows), reverse=True)


def test_each_runs_star_by_default_and_an_unknown_model_is_a_key_error():
    w = compare_workloads(A, B)
    assert (w.model_a, w.model_b) == ("OLS", BASELINE)
    with pytest.raises(KeyError):
        compare_workloads(A, B, "Lasso", None)


def test_a_comparison_round_trips_as_its_types():
    c = compare_scenarios(A, B)
    back = Result.from_dict(c.to_dict())
    assert back == c and type(back.workloads.rows[0]).__name__ == "WorkloadRow" and back.star_a == c.star_a
    assert back.summary().as_text() == c.summary().as_text()
