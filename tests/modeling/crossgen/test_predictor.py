"""A fitted predictor predicts later tables exactly as a whole predict_scenario run would, and CV+ by fold
gives the table route's bounds to the bit."""

import numpy as np
import pytest

from modeling.crossgen.applicability import assess, assess_against, reference
from modeling.crossgen.predict import fit_predictor, predict_scenario
from modeling.intervals import conformal
from tests.modeling.crossgen.test_predict import _table


@pytest.mark.parametrize("n,K,level", [(120, 10, 0.9), (37, 4, 0.8), (9, 3, 0.95), (12, 12, 0.9), (200, 7, 0.5)])
def test_cv_plus_by_fold_equals_the_table_route_bit_for_bit(n, K, level):
    rng = np.random.default_rng(n + K)
    fold_of = rng.permutation(np.arange(n) % K)
    r = np.abs(rng.normal(0, 0.2, n))
    r[: n // 4] = r[n // 4]  # ties across folds
    mu = rng.normal(0, 1, (64, K))
    mu[:, 1] = mu[:, 0]  # two folds predicting alike
    table = conformal.cv_plus(mu[:, fold_of], r, level)
    folds = conformal.cv_plus_by_fold(mu, r, fold_of, level)
    assert np.array_equal(table.lower, folds.lower) and np.array_equal(table.upper, folds.upper)
    assert table.level_supported == folds.level_supported  # (9, 3, 0.95): the rank exceeds n, both say so
    assert np.all(folds.lower <= folds.upper)


def test_cv_plus_by_fold_refuses_folds_it_cannot_match():
    with pytest.raises(ValueError, match="fold_of"):
        conformal.cv_plus_by_fold(np.zeros((3, 2)), np.ones(4), np.array([0, 1, 2, 0]), 0.9)


@pytest.mark.parametrize("kwargs", [
    {"model": "NNLS", "transform": "logratio"},
    {"model": "OLS/Forward/AIC", "transform": "log", "situation": "new-applications"},
    {"model": "Lasso", "transform": "ratio", "situation": "new-applications", "rule": "pooled"},
    {"model": "recommended", "models": ["NNLS", "OLS/Forward/AIC"]},
])
def test_a_fitted_predictor_gives_what_a_whole_run_gives(kwargs):
    scen, _ = _table(seed=4)
    whole = predict_scenario(scen, **kwargs).cli_json()
    predictor = fit_predictor(scen, **kwargs)
    first = predictor.predict(scen["unmeasured"]).cli_json()
    again = predictor.predict(scen["unmeasured"]).cli_json()  # the predictor does not change by predicting
    for d in (whole, first, again):
        d.pop("seconds")
    assert first == whole and again == whole


def test_a_predictor_predicts_a_second_table_like_a_run_on_that_table():
    scen, _ = _table(seed=5)
    other = dict(scen["unmeasured"])
    other["X"] = other["X"][::-1] * 1.01
    other["workload_ids"] = list(reversed(other["workload_ids"]))
    other["groups"] = other["groups"][::-1]
    predictor = fit_predictor(scen, model="NNLS", transform="logratio")
    got = predictor.predict(other).cli_json()
    want = predict_scenario(scen, other, model="NNLS", transform="logratio").cli_json()
    got.pop("seconds"), want.pop("seconds")
    assert got == want


def test_applicability_against_a_kept_reference_equals_the_one_call():
    rng = np.random.default_rng(2)
    Xt, Xn = rng.lognormal(0, 1, (80, 6)), rng.lognormal(0, 1.4, (50, 6))
    Xt[:, 2] -= 3
    names = [f"c{j}" for j in range(6)]
    tg, ng = np.array(["a", "b"] * 40), np.array(["a", "z"] * 25)
    one = assess(Xt, Xn, names, train_groups=tg, new_groups=ng)
    kept = assess_against(reference(Xt, train_groups=tg), Xn, names, new_groups=ng)
    assert np.array_equal(one.applicable, kept.applicable) and one.why == kept.why
    assert one.out_of_range == kept.out_of_range and np.array_equal(one.distance, kept.distance)
    assert any(one.why) and not all(one.applicable) and any(one.applicable)  # the case has both kinds
