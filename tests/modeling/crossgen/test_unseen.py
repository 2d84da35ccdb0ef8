"""Predictions for applications not in the training data: never worse than the baseline in the
cross-validation that chose, and intervals that hold for held-out applications (or say they cannot)."""

import json

import numpy as np
import pandas as pd

from modeling.crossgen.ensemble import BASELINE
from modeling.crossgen.predict import predict_scenario
from modeling.crossgen.versus_baseline import BaselineVerdict, beats, pick
from modeling.intervals import conformal


def _no_signal_beyond_the_host(seed=3, n_apps=10, per=12):
    """Each application runs on the target at its own ratio to the host (a random factor, sd 0.3 on the log
    scale); the other counters tell the applications apart but say nothing about their ratio, so a model
    learns the training applications' ratios from them and misses a new application's: the host x median
    ratio is the right answer for an application not seen."""
    rng = np.random.default_rng(seed)
    app = np.repeat(np.arange(n_apps), per)
    m = len(app)
    host = rng.uniform(1e-4, 1e-2, m)
    y = host * np.exp(rng.normal(0, 0.3, n_apps))[app] * np.exp(rng.normal(0, 0.03, m))
    F = rng.normal(0, 1, (n_apps, 4))[app] + rng.normal(0, 0.3, (m, 4))
    X = np.column_stack([host, F])
    return {"X": X, "y": y, "feature_names": ["host", "a", "b", "c", "d"],
            "groups": np.array([f"app{a}" for a in app]), "host_index": 0,
            "workload_ids": [str(i) for i in range(m)], "scenario": {},
            "unmeasured": {"X": X[:3] * 1.1, "workload_ids": ["n0", "n1", "n2"], "groups": np.array(["new"] * 3)}}


def test_a_baseline_that_truly_wins_is_used_and_the_result_says_so_with_both_errors():
    scen = _no_signal_beyond_the_host()
    res = predict_scenario(scen, model="recommended", models="OLS,NNLS,Lasso", situation="new-applications")
    assert res.choice.model == BASELINE and res.choice.transform == "none"
    v = res.verdict
    model, base = ({"male": v.model_male, "mean_ape": v.model_mean_ape},
                   {"male": v.baseline_male, "mean_ape": v.baseline_mean_ape})
    assert v.baseline_used and v.baseline_wins and not beats(model, base)
    # what is reported for the procedure is now the baseline's, on the same folds
    assert res.cv_error["mean_ape"] == res.baseline_cv["mean_ape"]
    assert np.allclose(res.predicted, res.baseline)
    note = res.selection_note
    assert note.startswith("The baseline is used") and "leave-one-application-out (10 applications)" in note
    assert f"{v.model_mean_ape:,.2f} %" in note and f"{v.baseline_mean_ape:,.2f} %" in note
    d = json.loads(json.dumps(res.cli_json()))  # what the CLI prints and the page keeps
    assert d["selection_note"] == note and BaselineVerdict.from_dict(d["verdict"]) == v


def test_a_named_model_that_loses_is_kept_but_the_result_says_the_baseline_did_better():
    scen = _no_signal_beyond_the_host()
    res = predict_scenario(scen, model="OLS", transform="none", situation="new-applications")
    assert res.choice.model == "OLS" and res.verdict.baseline_wins and not res.verdict.baseline_used
    assert "The baseline did at least as well" in res.selection_note and "consider 'recommended'" in res.selection_note


def test_pick_falls_back_to_the_baseline_unless_a_model_beats_it_on_both_errors():
    base = {"model": BASELINE, "male": 0.30, "mean_ape": 30.0}
    lower_log_higher_mean = {"model": "OLS", "male": 0.25, "mean_ape": 35.0}
    both = {"model": "NNLS", "male": 0.28, "mean_ape": 29.0}
    assert pick([lower_log_higher_mean, base]) is base
    assert pick([lower_log_higher_mean, both, base]) is base  # only the best model is weighed
    assert pick([both, base]) is both


def _group_effects(seed, n_apps=30, n_hidden=8, within=0.15, between=0.15):
    """Applications of skewed sizes, each with its own random factor on the target/host ratio (sd
    ``between``) and workload noise (sd ``within``), both on the log scale; ``n_hidden`` applications held
    out whole."""
    rng = np.random.default_rng(seed)
    sizes = np.minimum(np.maximum(3, (rng.pareto(1.2, n_apps) * 8).astype(int)), 300)
    app = np.repeat(np.arange(n_apps), sizes)
    m = len(app)
    host = rng.uniform(1e-4, 1e-2, m)
    F = rng.uniform(0.5, 2.0, (m, 4))
    y = host * (0.5 + 0.3 * F[:, 0]) * np.exp(rng.normal(0, between, n_apps)[app] + rng.normal(0, within, m))
    X = np.column_stack([host, F])
    hide = np.isin(app, rng.choice(n_apps, n_hidden, replace=False))
    scen = {"X": X[~hide], "y": y[~hide], "feature_names": ["host", "a", "b", "c", "d"],
            "workload_ids": [str(i) for i in np.flatnonzero(~hide)], "groups": app[~hide].astype(str),
            "host_index": 0, "scenario": {}}
    new = {"X": X[hide], "workload_ids": [str(i) for i in np.flatnonzero(hide)], "groups": app[hide].astype(str)}
    return scen, new, y[hide]


def test_new_application_intervals_cover_held_out_applications_near_their_level():
    """A 90 % interval for applications not in the training data covers 85-95 % of the workloads of
    applications held out whole (20 tables; the spread within an application equal to the spread between
    them, where a quantile of per-application quantiles covers about 97 %), and its median width is
    reported beside the coverage."""
    inside, widths, cv_widths = [], [], []
    for k in range(20):
        scen, new, truth = _group_effects(1000 + k)
        res = predict_scenario(scen, new, model="NNLS", transform="logratio", situation="new-applications")
        assert res.interval_supported
        lo, hi = np.asarray(res.lower), np.asarray(res.upper)
        inside.append(np.mean((lo <= truth) & (truth <= hi)))
        widths.append(np.median(hi / lo))
        cv_widths.append(res.cv_coverage["median_width"])
    assert 85.0 <= 100 * np.mean(inside) <= 95.0
    assert abs(np.median(cv_widths) / np.median(widths) - 1) < 0.2


def test_held_out_coverage_reports_the_median_width():
    r = np.array([0.1, 0.2, 0.1, 0.2, 0.4, 0.4])
    folds = np.array([0, 0, 1, 1, 2, 2])
    cov = conformal.held_out_coverage(r, folds, 0.5, "pooled")
    # fold 0: rest (0.1, 0.2, 0.4, 0.4) rank ceil(0.5 * 5) = 3 -> 0.4; fold 1 likewise; fold 2: 0.2
    assert np.isclose(cov["median_width"], np.exp(0.8)) and np.isclose(cov["workloads"], 100 * 4 / 6)


def test_the_export_of_an_unsupported_interval_has_empty_bounds():
    scen = _no_signal_beyond_the_host(n_apps=5)
    res = predict_scenario(scen, model="NNLS", transform="logratio", situation="new-applications")
    assert not res.interval_supported
    frame = res.to_frame()
    assert isinstance(frame, pd.DataFrame) and frame[["lower", "upper"]].isna().all().all()


def test_too_few_training_applications_use_the_baseline_without_comparing_and_say_so():
    """With 4 applications (3 to train once one is hidden, as on the shipped data) the comparison with the baseline
    is decided by 3 folds and goes wrong both ways; recommended uses the baseline and says why."""
    from modeling.crossgen.versus_baseline import MIN_GROUPS

    scen = _no_signal_beyond_the_host(n_apps=MIN_GROUPS - 1)
    res = predict_scenario(scen, model="recommended", models="OLS,Lasso", situation="new-applications")
    assert res.choice.model == BASELINE and res.verdict.too_few_groups == MIN_GROUPS - 1
    assert np.allclose(res.predicted, res.baseline)
    assert res.cv_error["mean_ape"] == res.baseline_cv["mean_ape"]
    assert f"{MIN_GROUPS - 1} training applications are too few" in res.selection_note
    assert BaselineVerdict.from_dict(json.loads(json.dumps(res.cli_json()))["verdict"]) == res.verdict
    # from MIN_GROUPS on the models are compared (here they still lose: the ordinary verdict)
    res = predict_scenario(_no_signal_beyond_the_host(n_apps=MIN_GROUPS + 1), model="recommended",
                           models="OLS,Lasso", situation="new-applications")
    assert res.verdict.too_few_groups is None and "too few" not in res.selection_note
    # a model the user names is kept, whatever the number of applications
    named = predict_scenario(scen, model="OLS", transform="none", situation="new-applications")
    assert named.choice.model == "OLS" and named.verdict.too_few_groups is None
