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


def _planted_wide(seed=7, n=80, p=200):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    support = [3, 17, 42, 188]
    y = X[:, support] @ np.array([3.0, 2.0, 2.5, 2.0]) + rng.normal(scale=0.5, size=n)
    return X, y, support


@pytest.mark.parametrize("fit_kind", ["ols", "nnls"])
def test_backward_moves_and_recovers_the_support_with_more_features_than_workloads(fit_kind):
    """p > n: the full model interpolates, so backward elimination from it never moved (0 steps, n - 1
    features kept). It starts from a screened subset instead, takes steps and finds the planted support."""
    X, y, support = _planted_wide()
    s = standardize(X, y)
    sel = SELECTORS[(fit_kind, "backward")](s, "bic")
    assert len(sel.steps) > 1  # it moved
    assert sel.steps[0].action.startswith("start: the ") and "most correlated" in sel.steps[0].action
    assert sorted(sel.selected.tolist()) == support
    aic = SELECTORS[(fit_kind, "backward")](s, "aic")
    assert set(support) <= set(aic.selected.tolist()) and len(aic.steps) > 1


def test_backward_start_is_the_full_model_when_residuals_are_honest():
    from modeling.crossgen.stepwise import FULL_START, backward_start, saturated

    X, y, _ = planted()
    cols, note = backward_start(standardize(X, y).X, standardize(X, y).y)
    assert note == FULL_START and cols.size == X.shape[1]
    assert saturated(40, 31) and not saturated(40, 30)  # n - k >= max(10, n/4)
    assert saturated(400, 301) and not saturated(400, 300)


@pytest.mark.parametrize("criterion", ["aic", "bic"])
def test_nnls_backward_equals_brute_force(criterion):
    """Each step removes the column whose removal gives the smallest exact NNLS RSS (scipy's solver on
    every candidate), and elimination stops exactly when no removal lowers the criterion."""
    from modeling.crossgen.linear import information_criterion

    rng = np.random.default_rng(11)
    X = np.abs(rng.normal(size=(50, 9)))
    y = X[:, [0, 3, 6]] @ [1.5, 1.0, 0.7] + rng.normal(scale=0.3, size=50)
    s = standardize(X, y)
    n, tss = len(y), float(s.y @ s.y)
    sel = SELECTORS[("nnls", "backward")](s, criterion)
    x, rn = scipy_nnls(s.X, s.y)
    active = [j for j in range(9) if x[j] > 0]
    crit = information_criterion(rn**2, n, len(active) + 1, tss, criterion)
    taken = 0
    while active:
        cands = []
        for j in active:
            cols = [c for c in active if c != j]
            xx, r = scipy_nnls(s.X[:, cols], s.y) if cols else (np.zeros(0), float(np.sqrt(tss)))
            cands.append((r**2, j, [c for c, v in zip(cols, xx) if v > 0]))
        rss, j, kept = min(cands)
        new = information_criterion(rss, n, len(kept) + 1, tss, criterion)
        if not new < crit:
            break
        taken += 1
        step = sel.steps[taken]
        assert step.feature == j and step.rss == pytest.approx(rss, rel=1e-7)
        active, crit = kept, new
    assert len(sel.steps) == taken + 1
    assert sorted(sel.selected.tolist()) == sorted(active)


def test_compiled_rank_one_update_equals_numpy_bit_for_bit():
    from modeling.crossgen.inplace import subtract_outer

    rng = np.random.default_rng(3)
    Z = rng.normal(size=(57, 91)) * 10.0 ** rng.integers(-5, 5, size=91)
    q, c = rng.normal(size=57), rng.normal(size=91)
    expected = Z - np.outer(q, c)
    subtract_outer(Z, q, c)
    assert np.array_equal(Z, expected)


def test_compiled_inverse_gram_downdate_equals_numpy_bit_for_bit():
    from modeling.crossgen.inplace import downdate

    rng = np.random.default_rng(4)
    A = rng.normal(size=(80, 40)) * 10.0 ** rng.integers(-4, 4, size=40)
    G = np.linalg.inv(A.T @ A)
    j = 17
    keep = np.arange(40) != j
    expected = G[np.ix_(keep, keep)] - np.outer(G[keep, j], G[keep, j]) / G[j, j]
    downdate(G, G[:, j].copy(), G[j, j])
    assert np.array_equal(G[np.ix_(keep, keep)], expected)


def test_nnls_forward_bounds_kept_across_steps_equal_a_fresh_projection():
    from modeling.crossgen.stepwise import _OLSBounds

    X, y, _ = planted(4, p=40)
    std = standardize(X, y)
    norm2 = np.einsum("ij,ij->j", std.X, std.X)
    bounds = _OLSBounds(std.X, std.y, norm2)
    for A in ([3], [3, 17], [3, 17, 5], [17, 5], [17, 5, 30]):  # appends, a drop, an append again
        A = np.array(A)
        bounds.move_to(A)
        cand = np.setdiff1d(np.arange(40), A)
        fresh = []
        for j in cand:  # OLS RSS of A + {j}, column by column
            cols = np.append(A, j)
            r = std.y - std.X[:, cols] @ np.linalg.lstsq(std.X[:, cols], std.y, rcond=None)[0]
            fresh.append(r @ r)
        assert np.allclose(bounds.lower(cand), fresh, rtol=1e-9, atol=1e-9 * float(std.y @ std.y))
