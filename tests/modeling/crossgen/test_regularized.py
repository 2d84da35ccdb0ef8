"""The regularized models (Lasso, Elastic Net, their non-negative variants) converge: duality gap, the inner
CV's penalty against scikit-learn converged far beyond it, reproducible errors."""

import numpy as np
import pytest
from sklearn.linear_model import ElasticNetCV, LassoCV
from sklearn.model_selection import KFold

from testkit.halwpe_shaped import make
from modeling.crossgen.ensemble import run_ensemble
from modeling.crossgen.estimators import RegularizedRegressor
from modeling.crossgen.linear import standardize

MODELS = [("lasso", False), ("lasso", True), ("elasticnet", False), ("elasticnet", True)]
REGULARIZED = ["Lasso", "Lasso/NNLS", "ElasticNet", "ElasticNet/NNLS"]


@pytest.fixture(scope="module")
def planted():
    """60 workloads x 90 correlated counters (10 exact sums of others), 12 of them planted in the target: the
    table on which scikit-learn at the former tol=1e-3 chose another Lasso penalty than the converged one."""
    X, y, _ = make(n=60, p=90, n_latent=10, seed=1)
    return X, y / np.std(y)  # unit variance: the problem solved is the same with or without scaling the target


def scaled_problem(X, y):
    std = standardize(X, y)
    scale = np.sqrt(np.mean(std.y**2))
    return std, std.y / scale, scale


def duality_gap(X, y, w, alpha, l1_ratio, positive):
    """scikit-learn's duality gap of min 1/(2n)||y - Xw||^2 + a r |w|_1 + a (1 - r)/2 |w|^2, over ||y||^2."""
    n = X.shape[0]
    R = y - X @ w
    l1, l2 = alpha * l1_ratio * n, alpha * (1 - l1_ratio) * n
    XtA = X.T @ R - l2 * w
    norm = max(XtA.max(), 0.0) if positive else np.abs(XtA).max()
    const = min(1.0, l1 / norm) if norm > 0 else 1.0
    primal = 0.5 * R @ R + l1 * np.abs(w).sum() + 0.5 * l2 * w @ w
    dual = -0.5 * const**2 * R @ R + const * R @ y - 0.5 * l2 * (1 - const**2) * w @ w
    return (primal - dual) / (y @ y)


@pytest.mark.parametrize("kind,positive", MODELS)
def test_the_fitted_model_meets_the_duality_gap(planted, kind, positive):
    X, y = planted
    est = RegularizedRegressor(kind, positive).fit(X, y)
    std, z, scale = scaled_problem(X, y)
    w = est.coef_ * std.x_scale / scale  # the coefficients of the standardized, scaled problem
    assert duality_gap(std.X, z, w, est.alpha_, est.l1_ratio_, positive) <= 1e-7
    assert est.dual_gap_ <= 1e-7 and est.converged_
    if positive:
        assert np.all(est.coef_ >= 0)


@pytest.mark.parametrize("kind,positive", MODELS)
def test_the_chosen_penalty_is_that_of_a_converged_reference(planted, kind, positive):
    """scikit-learn at tol=1e-10 (max_iter far from reached) on the same folds and grid picks the same penalty and
    L1 ratio, and its predictions agree."""
    X, y = planted
    est = RegularizedRegressor(kind, positive).fit(X, y)
    std, z, scale = scaled_problem(X, y)
    common = dict(alphas=30, cv=KFold(5, shuffle=True, random_state=0), positive=positive, max_iter=1_000_000,
                  tol=1e-10, fit_intercept=False, precompute=True)
    ref = (LassoCV(**common) if kind == "lasso" else ElasticNetCV(l1_ratio=[0.25, 0.5, 0.75], **common))
    ref.fit(std.X, z)
    assert est.alpha_ == pytest.approx(ref.alpha_, rel=1e-12)
    assert est.l1_ratio_ == getattr(ref, "l1_ratio_", 1.0)
    pred_ref = std.y_mean + scale * (std.X @ ref.coef_)
    assert np.max(np.abs(est.predict(X) - pred_ref)) <= 1e-4 * np.std(y)


def test_the_elastic_net_does_not_depend_on_the_targets_unit(planted):
    """The target is scaled to unit variance: cycles or megacycles, the same model (before, the L2 part grew with
    the unit and the Elastic Net predicted almost the mean)."""
    X, y = planted
    a = RegularizedRegressor("elasticnet").fit(X, y)
    b = RegularizedRegressor("elasticnet").fit(X, y / 1e6)
    assert a.alpha_ == pytest.approx(b.alpha_, rel=1e-9) and a.l1_ratio_ == b.l1_ratio_
    np.testing.assert_allclose(a.predict(X) / 1e6, b.predict(X), rtol=1e-6)


def test_a_rerun_gives_the_same_errors_and_column_order_does_not_matter(planted):
    """A rerun (the training rows' Gram matrices now shared from the first run) gives identical E_out; with the
    counters in reverse order the converged models give the same E_out (the former solver stopped wherever
    coordinate descent, which runs in column order, had got to)."""
    X, y = planted
    runs = [run_ensemble(Xv, y, models=REGULARIZED, folds=5, seed=0) for Xv in (X, X, X[:, ::-1])]
    first, again, reversed_ = ({m.model: m.e_out for m in r.models} for r in runs)
    for name in REGULARIZED:
        assert again[name] == pytest.approx(first[name], rel=1e-9)
        assert reversed_[name] == pytest.approx(first[name], rel=1e-4)
