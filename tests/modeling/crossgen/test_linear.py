"""OLS, NNLS and information criteria against statsmodels and scipy."""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import nnls as scipy_nnls

from modeling.crossgen.linear import independent_subset, ols_stats, standardize
from modeling.crossgen.estimators import NNLSRegressor, OLSRegressor


@pytest.fixture
def data():
    rng = np.random.default_rng(1)
    n, p = 80, 6
    X = rng.normal(size=(n, p)) * [1, 10, 100, 0.1, 5, 2] + [0, 50, -20, 3, 0, 1]
    y = X @ np.array([1.0, -0.2, 0.03, 5.0, 0.0, 0.0]) + 4.0 + rng.normal(scale=0.5, size=n)
    return X, y


def rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b)) / np.maximum(np.abs(b), 1e-300))


def test_ols_stats_match_statsmodels(data):
    X, y = data
    ref = sm.OLS(y, sm.add_constant(X)).fit()
    st = ols_stats(X, y)
    assert rel(st.coef, ref.params[1:]) < 1e-8
    assert rel([st.intercept], [ref.params[0]]) < 1e-8
    assert rel(st.pvalues, ref.pvalues[1:]) < 1e-8
    assert rel(st.tvalues, ref.tvalues[1:]) < 1e-8
    assert rel([st.aic, st.bic], [ref.aic, ref.bic]) < 1e-8
    assert st.df_resid == int(ref.df_resid)


def test_ols_stats_subset_match_statsmodels(data):
    X, y = data
    cols = [0, 3]
    ref = sm.OLS(y, sm.add_constant(X[:, cols])).fit()
    st = ols_stats(X, y, cols)
    assert rel(st.pvalues, ref.pvalues[1:]) < 1e-8
    assert rel([st.aic, st.bic], [ref.aic, ref.bic]) < 1e-8


def test_ols_regressor_coefficients(data):
    X, y = data
    ref = sm.OLS(y, sm.add_constant(X)).fit()
    m = OLSRegressor().fit(X, y)
    assert rel(m.coef_, ref.params[1:]) < 1e-8
    assert abs(m.intercept_ - ref.params[0]) < 1e-8 * abs(ref.params[0])
    assert np.allclose(m.predict(X), ref.fittedvalues, rtol=1e-9)


def test_nnls_matches_scipy_with_free_intercept(data):
    X, y = data
    m = NNLSRegressor().fit(X, y)
    assert np.all(m.coef_ >= 0)
    # independent oracle: scipy NNLS on [X, 1, -1] (a free intercept as two non-negative parts)
    A = np.column_stack([X, np.ones(len(y)), -np.ones(len(y))])
    ref, _ = scipy_nnls(A, y)
    assert np.allclose(m.coef_, ref[:6], rtol=1e-6, atol=1e-9)
    assert np.isclose(m.intercept_, ref[6] - ref[7], rtol=1e-6)


def test_more_features_than_workloads_is_saturated_not_a_crash():
    rng = np.random.default_rng(2)
    n, p = 40, 120
    X = rng.normal(size=(n, p))
    y = X[:, 0] * 3 + 10 + rng.normal(size=n)
    m = OLSRegressor().fit(X, y)
    assert m.selected_.size == n - 1  # numerically independent subset
    assert np.allclose(m.predict(X), y, atol=1e-6)  # interpolates: the paper's overfitting
    s = standardize(X, y)
    assert independent_subset(s.X).size == n - 1


def test_independent_subset_drops_exact_duplicates():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(50, 3))
    X = np.column_stack([a, a[:, 0] * 2.0, a[:, 1] + a[:, 2]])
    s = standardize(X, a[:, 0])
    assert independent_subset(s.X).size == 3
