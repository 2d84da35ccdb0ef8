"""The regression models of the ensemble, as scikit-learn estimators.

Every model follows the scikit-learn contract (settings in ``__init__``,
``fit`` returns ``self``, fitted attributes end in ``_``) so that ``clone``
and cross-validation compose. Linear models expose ``coef_`` (shape (p,), zero
for unselected features), ``intercept_`` and ``selected_`` (indices);
``n_selected_`` is the number of features a model uses.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.validation import check_is_fitted

from modeling.errors import DataError
from modeling.crossgen.linear import shared_independent_subset, shared_nnls, standardize, to_original
from modeling.crossgen.stepwise import SELECTORS


def _check_xy(X, y=None):
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise DataError(f"Features must be a 2-D table, got shape {X.shape}.")
    if not np.all(np.isfinite(X)):
        raise DataError("Features contain NaN or infinite values; clean or drop those rows or columns.")
    if y is None:
        return X
    y = np.asarray(y, dtype=float).ravel()
    if y.shape[0] != X.shape[0]:
        raise DataError(f"{X.shape[0]} feature rows but {y.shape[0]} target values.")
    if not np.all(np.isfinite(y)):
        raise DataError("The target contains NaN or infinite values; those workloads cannot be used.")
    if X.shape[0] < 3:
        raise DataError(f"At least 3 workloads are needed to fit a model, got {X.shape[0]}.")
    return X, y


class _LinearBase(RegressorMixin, BaseEstimator):
    def _set_fit(self, std, selected, beta_std):
        full = np.zeros(std.X.shape[1])
        full[selected] = beta_std
        self.coef_, self.intercept_ = to_original(std, full)
        self.selected_ = np.asarray(selected, dtype=int)
        self.n_selected_ = int(np.count_nonzero(self.coef_))
        self.n_features_in_ = std.X.shape[1]

    def predict(self, X):
        check_is_fitted(self, "coef_")
        X = _check_xy(X)
        if X.shape[1] != self.n_features_in_:
            raise DataError(f"The model was trained on {self.n_features_in_} features, got {X.shape[1]}.")
        return X @ self.coef_ + self.intercept_


class OLSRegressor(_LinearBase):
    """Full ordinary least squares (HALWPE IV.B) on a numerically independent subset.

    With more features than workloads the subset has ``n - 1`` columns and the
    model interpolates its training data (the overfitting the paper reports).
    """

    def fit(self, X, y):
        X, y = _check_xy(X, y)
        std = standardize(X, y)
        S = shared_independent_subset(std.X)
        beta = np.linalg.lstsq(std.X[:, S], std.y, rcond=None)[0] if S.size else np.zeros(0)
        self._set_fit(std, S, beta)
        return self


class NNLSRegressor(_LinearBase):
    """Full non-negative least squares (HALWPE IV.C), free intercept."""

    def fit(self, X, y):
        X, y = _check_xy(X, y)
        std = standardize(X, y)
        beta, _ = shared_nnls(std.X, std.y)
        S = np.flatnonzero(beta > 0)
        self._set_fit(std, S, beta[S])
        return self


class StepwiseRegressor(_LinearBase):
    """OLS or NNLS with forward/backward stepwise selection by AIC or BIC.

    Parameters
    ----------
    fit_kind : {"ols", "nnls"}
    direction : {"forward", "backward"}
    criterion : {"aic", "bic"}

    Attributes
    ----------
    steps_ : list of dict
        R-style step table: step, action (+/-), feature index, n_features,
        rss (standardized target units), criterion.
    """

    def __init__(self, fit_kind="ols", direction="forward", criterion="aic"):
        self.fit_kind = fit_kind
        self.direction = direction
        self.criterion = criterion

    def fit(self, X, y):
        X, y = _check_xy(X, y)
        key = (self.fit_kind, self.direction)
        if key not in SELECTORS or self.criterion not in ("aic", "bic"):
            raise ValueError(f"unknown stepwise variant {self.fit_kind}/{self.direction}/{self.criterion}")
        std = standardize(X, y)
        sel = SELECTORS[key](std, self.criterion)
        self._set_fit(std, sel.selected, sel.beta)
        self.steps_ = [s.to_dict() for s in sel.steps]
        self.nnls_solves_ = sel.n_candidates_solved
        return self


class RegularizedRegressor(RegressorMixin, BaseEstimator):
    """Lasso or Elastic Net, optionally non-negative (HALWPE IV.E, RastSim 4.1).

    The penalty (and the Elastic Net's L1 ratio) is chosen by an inner K-fold CV
    on the training data only, so the outer CV error is not flattered.
    Features are standardized inside the fit.
    """

    def __init__(self, kind="lasso", positive=False, inner_folds=5, n_alphas=30,
                 l1_ratios=(0.25, 0.5, 0.75), random_state=0):
        self.kind = kind
        self.positive = positive
        self.inner_folds = inner_folds
        self.n_alphas = n_alphas
        self.l1_ratios = l1_ratios
        self.random_state = random_state

    def fit(self, X, y):
        from sklearn.linear_model import ElasticNetCV, LassoCV
        from sklearn.model_selection import KFold

        X, y = _check_xy(X, y)
        std = standardize(X, y)
        folds = min(self.inner_folds, X.shape[0])
        cv = KFold(folds, shuffle=True, random_state=self.random_state)
        common = dict(alphas=self.n_alphas, cv=cv, positive=self.positive, max_iter=5000,
                      tol=1e-3, fit_intercept=False, selection="cyclic")
        if self.kind == "lasso":
            est = LassoCV(**common)
        elif self.kind == "elasticnet":
            est = ElasticNetCV(l1_ratio=list(self.l1_ratios), **common)
        else:
            raise ValueError(f"unknown regularized model {self.kind!r}")
        from sklearn.exceptions import ConvergenceWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            est.fit(std.X, std.y)
        self.alpha_ = float(est.alpha_)
        self.l1_ratio_ = float(getattr(est, "l1_ratio_", 1.0))
        self.coef_, self.intercept_ = to_original(std, est.coef_.copy())
        self.selected_ = np.flatnonzero(self.coef_)
        self.n_selected_ = int(self.selected_.size)
        self.n_features_in_ = X.shape[1]
        return self

    predict = _LinearBase.predict


class ForestRegressor(RegressorMixin, BaseEstimator):
    """Random forest with R ``randomForest`` defaults (RastSim 4.2, 4.4).

    Bagging (bootstrap samples of n rows drawn with replacement) and feature
    bagging with ``mtry = floor(p * max_features)`` (R: ``floor(p / 3)``)
    candidates per split; R's ``nodesize = 5``: a node of 5 or fewer bootstrap
    rows (duplicates counted) is not split. ``n_estimators`` defaults to the
    128 trees RastSim selected. The trees are grown by the compiled grower of
    ``modeling.crossgen.forest_trees``; a single tree with every feature and no
    bootstrap is the CART tree scikit-learn grows (checked in the tests).
    """

    def __init__(self, n_estimators=128, max_features=1 / 3, nodesize=5, bootstrap=True, random_state=0):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.nodesize = nodesize
        self.bootstrap = bootstrap
        self.random_state = random_state

    def fit(self, X, y):
        from modeling.crossgen.forest_trees import TreeArrays

        X, y = _check_xy(X, y)
        p = X.shape[1]
        self.mtry_ = max(1, min(p, int(np.floor(p * self.max_features))))
        self.trees_ = TreeArrays(X, y, int(self.n_estimators), self.mtry_, self.nodesize,
                                 self.bootstrap, self.random_state)
        self.selected_ = self.trees_.used_features()
        self.n_selected_ = int(self.selected_.size)
        self.n_features_in_ = p
        return self

    def tree_predictions(self, X) -> np.ndarray:
        """Prediction of each tree, shape (n_estimators, n_rows)."""
        check_is_fitted(self, "trees_")
        X = _check_xy(X)
        if X.shape[1] != self.n_features_in_:
            raise DataError(f"The model was trained on {self.n_features_in_} features, got {X.shape[1]}.")
        return self.trees_.predict_per_tree(X)

    def predict(self, X):
        return self.tree_predictions(X).mean(axis=0)

    def rss_importance(self) -> np.ndarray:
        """Total decrease of RSS from splits on each feature, summed over trees.

        RastSim 5.5 (R's ``IncNodePurity``), in squared target units, shape (p,).
        """
        check_is_fitted(self, "trees_")
        return self.trees_.rss_decrease()


class HostRatioBaseline(RegressorMixin, BaseEstimator):
    """Baseline: host metric x median(target / host) learned on the training rows.

    ``host_index`` is the column of X holding the host's own measure of the
    target metric (e.g. the host GPU's duration when predicting duration).
    """

    def __init__(self, host_index=0):
        self.host_index = host_index

    def fit(self, X, y):
        X, y = _check_xy(X, y)
        h = X[:, self.host_index]
        ok = h > 0
        if not ok.any():
            raise DataError("The host metric column has no positive values; the ratio baseline needs them.")
        self.ratio_ = float(np.median(y[ok] / h[ok]))
        self.selected_ = np.array([self.host_index])
        self.n_selected_ = 1
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        check_is_fitted(self, "ratio_")
        return _check_xy(X)[:, self.host_index] * self.ratio_


class TargetTransformRegressor(RegressorMixin, BaseEstimator):
    """Fit a model on a transformed target and predict in target units.

    transform: ``"none"`` (the papers), ``"log"`` (fit log y, predict exp),
    ``"ratio"`` (fit y / host metric, predict ratio x host metric) or
    ``"logratio"`` (fit log(y / host metric), predict host metric x exp; the
    ratio and log ratio need ``host_index``). Errors are always computed on the
    back-transformed values.

    A log-target prediction is kept within a factor of 1e6 of the training
    targets' range before ``exp``: a linear model extrapolating to an unseen
    application can otherwise overflow to infinity. The error then stays huge
    (and visible) but finite.
    """

    LOG_MARGIN = float(np.log(1e6))

    def __init__(self, estimator=None, transform="none", host_index=None):
        self.estimator = estimator
        self.transform = transform
        self.host_index = host_index

    def _forward(self, X, y):
        if self.transform == "none":
            return y
        if self.transform == "log":
            if np.any(y <= 0):
                raise DataError("The log transform needs a positive target; drop rows with target <= 0.")
            return np.log(y)
        if self.transform in ("ratio", "logratio"):
            if self.host_index is None:
                raise DataError("The ratio transform needs the host's own metric column (--host-col).")
            h = X[:, self.host_index]
            if np.any(h <= 0):
                raise DataError("The ratio transform needs a positive host metric in every row.")
            if self.transform == "ratio":
                return y / h
            if np.any(y <= 0):
                raise DataError("The log-ratio transform needs a positive target; drop rows with target <= 0.")
            return np.log(y / h)
        raise ValueError(f"unknown transform {self.transform!r}")

    def fit(self, X, y):
        X, y = _check_xy(X, y)
        z = self._forward(X, y)
        self.z_range_ = (float(z.min()), float(z.max()))
        self.estimator_ = clone(self.estimator).fit(X, z)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        X = _check_xy(X)
        z = self.estimator_.predict(X)
        if self.transform in ("log", "logratio"):
            lo, hi = self.z_range_
            z = np.exp(np.clip(z, lo - self.LOG_MARGIN, hi + self.LOG_MARGIN))
            return z * X[:, self.host_index] if self.transform == "logratio" else z
        if self.transform == "ratio":
            return z * X[:, self.host_index]
        return z

    @property
    def n_selected_(self):
        return self.estimator_.n_selected_
