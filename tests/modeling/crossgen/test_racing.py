"""Racing the candidates of "recommended" (modeling/crossgen/racing.py): the candidates it keeps are scored as
the exhaustive search scores them, it picks what the exhaustive search picks on the shipped and planted tables,
and it fits fewer candidates."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from testkit.cpu_shaped import make  # noqa: E402
from modeling import shipped  # noqa: E402
from modeling.crossgen import racing, versus_baseline  # noqa: E402
from modeling.crossgen.ensemble import BASELINE, PRESETS, TRANSFORMS  # noqa: E402
from modeling.crossgen.predict import fit_predictor  # noqa: E402
from modeling.crossgen.recommend import score_candidates  # noqa: E402
from modeling.errors import ConfigError  # noqa: E402

LINEAR = ["OLS", "NNLS", "OLS/Forward/BIC", "NNLS/Backward/AIC", "Lasso"]
SCORES = ("male", "mean_ape", "median_ape", "ir10", "max_ape")


def _kw(scen, cv, folds, models):
    return dict(models=models, transforms=list(TRANSFORMS), host_index=scen["host_index"], groups=scen["groups"],
                cv=cv, folds=folds, seed=0, include_baseline=True)


def test_exhaustive_race_scores_every_candidate_as_score_candidates():
    scen = make(240, groups=8)
    kw = _kw(scen, "kfold", 5, LINEAR + ["RandomForest"])
    raced, info = racing.race(scen["X"], scen["y"], exhaustive=True, **kw)
    old = score_candidates(scen["X"], scen["y"], **kw)
    assert [c["label"] for c in raced] == [c["label"] for c in old]
    for r, o in zip(raced, old):
        assert r["folds_scored"] == 5
        assert all(r[k] == o[k] for k in SCORES), r["label"]
    assert info["fits"] == info["fits_exhaustive"] == len(old) * 5


@pytest.mark.parametrize("cv,folds", [("kfold", 5), ("group", 5)])
def test_race_keeps_the_exhaustive_winner_with_its_scores_on_a_planted_table(cv, folds):
    scen = make(800, groups=22)
    kw = _kw(scen, cv, folds, PRESETS["halwpe"])
    raced, info = racing.race(scen["X"], scen["y"], **kw)
    full, _ = racing.race(scen["X"], scen["y"], exhaustive=True, **kw)
    by_label = {c["label"]: c for c in full}
    kept = [c for c in raced if c["folds_scored"] == folds]
    for c in kept:  # every candidate the race kept is scored exactly as the exhaustive search scores it
        assert all(c[k] == by_label[c["label"]][k] for k in SCORES)
    assert versus_baseline.pick(raced) == {**versus_baseline.pick(full)}
    assert any(c["model"] == BASELINE for c in kept)  # never dropped: the rule against it needs its scores
    assert info["fits"] < info["fits_exhaustive"]
    if cv == "kfold":
        assert info["fits"] < info["fits_exhaustive"] / 2


@pytest.mark.parametrize("host,target", [("GTX-680", "Tesla-P100"), ("GTX-680", "GTX-980")])
def test_race_picks_what_the_exhaustive_search_picks_on_the_shipped_data(host, target):
    scen = shipped.scenario(host, target)
    kw = _kw(scen, "kfold", 5, PRESETS["halwpe"])
    raced, info = racing.race(scen["X"], scen["y"], **kw)
    full, _ = racing.race(scen["X"], scen["y"], exhaustive=True, **kw)
    assert versus_baseline.pick(raced) == versus_baseline.pick(full)
    assert info["fits"] < info["fits_exhaustive"]


def test_beaten_needs_confidence_and_counts_applications_as_units():
    rng = np.random.default_rng(0)
    lead = rng.uniform(0.05, 0.15, 400)
    worse = lead + 0.05 + rng.normal(scale=0.01, size=400)
    noisy = lead + rng.normal(scale=0.05, size=400)
    rows = np.arange(400)
    assert racing.beaten(worse, lead, rows, 50)
    assert not racing.beaten(noisy, lead, rows, 50)
    four_apps = np.repeat(np.arange(4), 100)  # the same errors, but only 4 applications: too few units
    assert not racing.beaten(worse, lead, four_apps, 50)
    # a difference carried by one application of twelve is not a confident one
    twelve = np.repeat(np.arange(12), 34)[:400]
    one_app = lead + np.where(twelve == 0, 1.0, 0.0)
    assert racing.beaten(one_app, lead, rows, 50)
    assert not racing.beaten(one_app, lead, twelve, 50)


def test_recommended_prediction_races_says_so_and_matches_the_exhaustive_procedure():
    scen = make(500, groups=8)
    opts = dict(models=",".join(LINEAR), situation="new-inputs", folds=5)
    raced = fit_predictor(scen, **opts)
    exhaustive = fit_predictor(scen, search="exhaustive", **opts)
    two_workers = fit_predictor(scen, n_jobs=2, **opts)
    assert (raced.choice.model, raced.choice.transform) == (exhaustive.choice.model, exhaustive.choice.transform)
    assert raced.cv_error == exhaustive.cv_error
    assert raced.selection["chosen_in_folds"] == exhaustive.selection["chosen_in_folds"]
    assert raced.verdict == exhaustive.verdict
    assert np.array_equal(raced.abs_r, exhaustive.abs_r)
    sel = raced.selection
    assert sel["search"] == "race" and sel["fits"] < sel["fits_exhaustive"]
    assert "racing" in sel["note"]
    assert all(c["folds_scored"] == 5 for c in sel["candidates"])  # only fully scored candidates are listed
    assert sel["n_candidates"] == exhaustive.selection["n_candidates"] == 4 * len(LINEAR) + 1
    assert exhaustive.selection["fits"] == exhaustive.selection["fits_exhaustive"]
    # the outer folds' choices spread over two worker processes: the same predictor
    assert (two_workers.choice, two_workers.cv_error) == (raced.choice, raced.cv_error)
    assert two_workers.selection == raced.selection


def test_unknown_search_is_refused():
    with pytest.raises(ConfigError, match="search"):
        fit_predictor(make(120, groups=6), models="OLS,NNLS", folds=3, search="greedy")


# ------------------------------------------------------------------ the bounded search (new applications)

def _hint(info, reverse=False):
    """A hint as another search leaves it; ``reverse``: the worst candidates and folds first (the order changes
    how soon a candidate stops, never the choice)."""
    if not reverse:
        return info
    sign = -1.0
    return {"male": {k: sign * v for k, v in info["male"].items()},
            "unit_errors": {k: {u: sign * e for u, e in d.items()} for k, d in info["unit_errors"].items()}}


def _same_choice_as_exhaustive(bounded, info, full, folds, fewer=True):
    by_label = {c["label"]: c for c in full}
    best_model = next(c for c in full if c["model"] != BASELINE)
    assert versus_baseline.pick(bounded) == versus_baseline.pick(full)
    for c in bounded:
        if c["folds_scored"] == folds:  # fitted in every fold: the exhaustive scores, number for number
            assert all(c[k] == by_label[c["label"]][k] for k in SCORES), c["label"]
        else:  # stopped: it could not have been chosen
            assert c["model"] != BASELINE
            assert by_label[c["label"]]["male"] > best_model["male"]
    assert info["fits"] < info["fits_exhaustive"] if fewer else info["fits"] <= info["fits_exhaustive"]


@pytest.mark.parametrize("cv,folds,groups", [("logo", 12, 12), ("group", 5, 22)])
@pytest.mark.parametrize("order", ["none", "hint", "worst first"])
def test_bounded_search_picks_and_scores_as_the_exhaustive_search_in_any_order(cv, folds, groups, order):
    scen = make(480, groups=groups)
    kw = _kw(scen, cv, folds, PRESETS["halwpe"])
    full, full_info = racing.race(scen["X"], scen["y"], exhaustive=True, **kw)
    hint = None if order == "none" else _hint(full_info, reverse=order == "worst first")
    bounded, info = racing.race(scen["X"], scen["y"], bound=True, hint=hint, **kw)
    _same_choice_as_exhaustive(bounded, info, full, folds, fewer=order != "worst first")
    if order == "hint":  # the best candidates first: the others stop early
        assert info["fits"] < 0.6 * info["fits_exhaustive"]


@pytest.mark.parametrize("host,target", [("GTX-680", "Tesla-P100"), ("Tesla-K40", "Tesla-P100"),
                                         ("GTX-680", "GTX-980")])
def test_bounded_search_picks_what_the_exhaustive_search_picks_on_the_shipped_data(host, target):
    scen = shipped.scenario(host, target)
    kw = _kw(scen, "logo", 0, PRESETS["halwpe"])
    full, _ = racing.race(scen["X"], scen["y"], exhaustive=True, **kw)
    bounded, info = racing.race(scen["X"], scen["y"], bound=True, **kw)
    _same_choice_as_exhaustive(bounded, info, full, 4)


def _same_predictor(a, b, new):
    assert (a.choice.model, a.choice.transform, a.cv_error, a.verdict) == (b.choice.model, b.choice.transform,
                                                                          b.cv_error, b.verdict)
    assert a.selection["chosen_in_folds"] == b.selection["chosen_in_folds"]
    assert np.array_equal(a.abs_r, b.abs_r)
    pa, pb = a.predict(new), b.predict(new)
    assert pa.predicted == pb.predicted and pa.lower == pb.lower and pa.upper == pb.upper


def test_recommended_for_new_applications_is_bounded_and_predicts_as_the_exhaustive_procedure():
    scen = make(240, groups=12)  # the outer folds choose three different candidates
    new = make(40, groups=12, seed=7)
    new = {k: new[k] for k in ("X", "feature_names", "workload_ids", "groups")}
    opts = dict(models=",".join(LINEAR + ["RandomForest"]), situation="new-applications")
    bounded = fit_predictor(scen, **opts)
    exhaustive = fit_predictor(scen, search="exhaustive", **opts)
    two_workers = fit_predictor(scen, n_jobs=2, **opts)
    sel = bounded.selection
    assert sel["search"] == "bound" and sel["fits"] < sel["fits_exhaustive"]
    assert len(sel["chosen_in_folds"]) >= 2 and bounded.choice.model != BASELINE
    _same_predictor(bounded, exhaustive, new)
    _same_predictor(two_workers, exhaustive, new)
    assert all(c["folds_scored"] == exhaustive.selection["candidates"][0]["folds_scored"]
               for c in sel["candidates"])  # only fully scored candidates are listed
    assert sel["candidates"][0] == exhaustive.selection["candidates"][0]  # the best, scored as exhaustive scores it
    assert "bounded search" in sel["note"]


def test_recommended_for_new_applications_on_the_shipped_data_is_the_exhaustive_procedure():
    scen = shipped.scenario("GTX-680", "Tesla-P100")
    opts = dict(models=",".join(LINEAR + ["RandomForest"]), situation="new-applications")
    bounded = fit_predictor(scen, **opts)
    exhaustive = fit_predictor(scen, search="exhaustive", **opts)
    new = {"X": scen["X"][:20], "feature_names": scen["feature_names"], "groups": None,
           "workload_ids": [f"w{i}" for i in range(20)]}  # measured workloads, predicted as if they were not
    _same_predictor(bounded, exhaustive, new)
    assert bounded.selection["search"] == "bound"


def _kernels_scenario():
    """The shipped GPU table with its six kernels as the applications."""
    scen = shipped.scenario("GTX-680", "Tesla-P100")
    return {**scen, "groups": np.asarray(scen["kernels"]).astype(str)}



@pytest.mark.parametrize("table,cv,folds,order", [("planted 12", "logo", 12, "hint"),
                                                  ("planted 22", "group", 5, "worst first"),
                                                  ("shipped kernels", "logo", 0, "none")])
def test_bounded_search_for_the_pick_only_also_stops_what_cannot_beat_the_baseline(table, cv, folds, order):
    scen = _kernels_scenario() if table == "shipped kernels" else make(480, groups=int(table.split()[1]))
    kw = _kw(scen, cv, folds, PRESETS["halwpe"])
    full, full_info = racing.race(scen["X"], scen["y"], exhaustive=True, **kw)
    hint = None if order == "none" else _hint(full_info, reverse=order == "worst first")
    bounded, info = racing.race(scen["X"], scen["y"], bound=True, hint=hint, **kw)
    only, info_only = racing.race(scen["X"], scen["y"], bound=True, hint=hint, pick_only=True, **kw)
    assert versus_baseline.pick(only) == versus_baseline.pick(full)
    by_label = {c["label"]: c for c in full}
    base = next(c for c in full if c["model"] == BASELINE)
    best_model = next(c for c in full if c["model"] != BASELINE)
    n_folds = full_info["folds"]
    for c in only:
        if c["folds_scored"] == n_folds:
            assert all(c[k] == by_label[c["label"]][k] for k in SCORES), c["label"]
        else:  # stopped: not the best model, or no better than the baseline
            assert c["model"] != BASELINE
            assert by_label[c["label"]]["male"] > min(best_model["male"], base["male"])
    assert info_only["fits"] <= info["fits"]


def test_for_the_pick_only_models_stop_at_the_baseline_s_sum_where_it_is_the_lowest():
    errors = {("A", "none"): [2.0, 2.0, 0.5, 0.5], ("B", "none"): [3.0] * 4, (BASELINE, "none"): [1.0] * 4}
    splits = [(None, np.array([k])) for k in range(4)]

    def run(pick_only):
        fitted = []

        def fit_one(c, k):
            fitted.append((c[0], k))
            return errors[c][k]

        fits = racing._bounded(list(errors), splits, None, None, fit_one, None, pick_only)
        return fits, {m: sorted(k for mm, k in fitted if mm == m) for m in ("A", "B", BASELINE)}

    fits, folds = run(False)  # A (sum 5) is the best model: B stops once past 5
    assert folds == {"A": [0, 1, 2, 3], "B": [0, 1], BASELINE: [0, 1, 2, 3]} and fits == 10
    fits, folds = run(True)  # the baseline (sum 4) beats every model: each stops once past 4
    assert folds == {"A": [0, 1, 2], "B": [0, 1], BASELINE: [0, 1, 2, 3]} and fits == 9
