"""Stepwise selection: planted models, AIC/BIC agreement with statsmodels, exactness."""

import itertools

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import nnls as scipy_nnls

from modeling.crossgen.linear import standardize
from modeling.crossgen.estimators import StepwiseRegressor
from modeling.crossgen.stepwise import SELECTORS

VARIANTS = list(itertools.product(["ols", "nnls"], ["forward", "backward"], ["aic", "bic"]))


def planted(seed=0, n=200, p=30, support=(2, 7, 11, 19), noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) + 5.0
    beta = np.zeros(p)
    beta[list(support)] = [3.0, 2.0, 1.5, 2.5]
    y = X @ beta + 7.0 + rng.normal(scale=noise, size=n)
    return X, y, set(support)


@pytest.mark.parametrize("fit_kind,direction,criterion", VARIANTS)
def test_planted_sparse_model_is_recovered(fit_kind, direction, criterion):
    X, y, support = planted()
    m = StepwiseRegressor(fit_kind, direction, criterion).fit(X, y)
    chosen = set(np.flatnonzero(m.coef_).tolist())
    assert support <= chosen
    # BIC may admit one chance feature of this sample, AIC a few; never miss the planted ones
    assert len(chosen) <= len(support) + (1 if criterion == "bic" else 4)
    if fit_kind == "nnls":
        assert np.all(m.coef_ >= 0)


def test_step_table_criterion_equals_statsmodels():
    X, y, _ = planted(1)
    m = StepwiseRegressor("ols", "forward", "aic").fit(X, y)
    chosen = []
    for step in m.steps_[1:]:
        chosen.append(step["feature"])
        ref = sm.OLS(y, sm.add_constant(X[:, chosen])).fit()
        assert abs(step["criterion"] - ref.aic) <= 1e-8 * abs(ref.aic)
    m = StepwiseRegressor("ols", "forward", "bic").fit(X, y)
    ref = sm.OLS(y, sm.add_constant(X[:, np.sort(m.selected_)])).fit()
    assert abs(m.steps_[-1]["criterion"] - ref.bic) <= 1e-8 * abs(ref.bic)


def _brute_forward_step(Xs, y, current):
    """Best single addition by refitting every candidate (independent oracle)."""
    best = (np.inf, None)
    for j in range(Xs.shape[1]):
        if j in current:
            continue
        cols = current + [j]
        r = y - Xs[:, cols] @ np.linalg.lstsq(Xs[:, cols], y, rcond=None)[0]
        best = min(best, (float(r @ r), j))
    return best


def test_ols_forward_picks_the_exact_best_candidate_each_step():
    X, y, _ = planted(4, p=25)
    s = standardize(X, y)
    sel = SELECTORS[("ols", "forward")](s, "aic")
    current = []
    for step in sel.steps[1:]:
        rss, j = _brute_forward_step(s.X, s.y, current)
        assert j == step.feature
        assert np.isclose(rss, step.rss, rtol=1e-9)
        current.append(j)


def test_ols_backward_removes_the_exact_best_candidate_each_step():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 12))
    y = X[:, :3] @ [1.0, 2.0, 3.0] + rng.normal(size=60)
    s = standardize(X, y)
    sel = SELECTORS[("ols", "backward")](s, "bic")
    current = list(range(12))
    for step in sel.steps[1:]:
        best = (np.inf, None)
        for j in current:
            cols = [c for c in current if c != j]
            r = s.y - s.X[:, cols] @ np.linalg.lstsq(s.X[:, cols], s.y, rcond=None)[0]
            best = min(best, (float(r @ r), j))
        assert best[1] == step.feature
        assert np.isclose(best[0], step.rss, rtol=1e-8)
        current.remove(best[1])
    assert {0, 1, 2} <= set(current) and len(current) <= 4


def test_nnls_forward_exact_best_equals_brute_force():
    rng = np.random.default_rng(6)
    X = np.abs(rng.normal(size=(70, 15)))
    y = X[:, [1, 4, 9]] @ [2.0, 1.0, 0.5] + rng.normal(scale=0.2, size=70)
    s = standardize(X, y)
    sel = SELECTORS[("nnls", "forward")](s, "aic")
    active = []
    for step in sel.steps[1:]:
        best = (np.inf, None)
        for j in range(15):
            if j in active:
                continue
            x, rn = scipy_nnls(s.X[:, active + [j]], s.y)
            best = min(best, (rn**2, j))
        assert best[1] == step.feature
        assert np.isclose(best[0], step.rss, rtol=1e-7)
        x, _ = scipy_nnls(s.X[:, active + [best[1]]], s.y)
        active = [c for c, v in zip(active + [best[1]], x) if v > 0]
    assert sel.n_candidates_solved < 15 * len(sel.steps)  # bounds prune candidates


def test_saturated_backward_does_not_crash():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(30, 80))
    y = X[:, 0] + 5 + rng.normal(scale=0.1, size=30)
    for fk in ("ols", "nnls"):
        m = StepwiseRegressor(fk, "backward", "aic").fit(X, y)
        assert np.all(np.isfinite(m.predict(X)))


def test_bic_variants_agree_and_extra_feature_truly_lowers_bic():
    X, y, support = planted()
    sets = {v: frozenset(np.flatnonzero(StepwiseRegressor(*v).fit(X, y).coef_).tolist())
            for v in VARIANTS if v[2] == "bic"}
    assert len(set(sets.values())) == 1
    chosen = sorted(next(iter(sets.values())))
    bic_chosen = sm.OLS(y, sm.add_constant(X[:, chosen])).fit().bic
    bic_support = sm.OLS(y, sm.add_constant(X[:, sorted(support)])).fit().bic
    assert bic_chosen <= bic_support + 1e-9
