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
from sklearn.utils.validation import check_is_fitted, validate_data

from modeling.errors import DataError
from modeling.crossgen.linear import shared_independent_subset, shared_nnls, standardize, to_original
from modeling.crossgen.stepwise import SELECTORS


def _check_fit(est, X, y):
    """X and y for ``est.fit``: scikit-learn's validation (2-D, numeric, not complex or sparse or empty, as many
    rows as targets; sets ``n_features_in_``), then perfcast's own messages for non-finite values and too few
    workloads."""
    X, y = validate_data(est, X, y, dtype=float, y_numeric=True, ensure_all_finite=False)
    _finite(X)
    if not np.all(np.isfinite(y)):
        raise DataError("The target contains NaN or infinite values; those workloads cannot be used.")
    if X.shape[0] < 3:
        raise DataError(f"At least 3 workloads are needed to fit a model, got {X.shape[0]} "
                        f"(n_samples = {X.shape[0]}).")
    return X, y


def _check_x(est, X):
    """X for ``est.predict``: validated as in fit and against the number of features ``est`` was fitted on."""
    X = validate_data(est, X, dtype=float, ensure_all_finite=False, reset=False)
    _finite(X)
    return X


def _finite(X):
    if not np.all(np.isfinite(X)):
        raise DataError("Features contain NaN or infinite values; clean or drop those rows or columns.")


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
        X = _check_x(self, X)
        return X @ self.coef_ + self.intercept_


class OLSRegressor(_LinearBase):
    """Full ordinary least squares (HALWPE IV.B) on a numerically independent subset.

    With more features than workloads the subset has ``n - 1`` columns and the
    model interpolates its training data (the overfitting the paper reports).
    """

    def fit(self, X, y):
        X, y = _check_fit(self, X, y)
        std = standardize(X, y)
        S = shared_independent_subset(std.X)
        beta = np.linalg.lstsq(std.X[:, S], std.y, rcond=None)[0] if S.size else np.zeros(0)
        self._set_fit(std, S, beta)
        return self


class NNLSRegressor(_LinearBase):
    """Full non-negative least squares (HALWPE IV.C), free intercept."""

    def fit(self, X, y):
        X, y = _check_fit(self, X, y)
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
        X, y = _check_fit(self, X, y)
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
    on the training data only, so the outer CV error is not flattered: 30
    penalties, scikit-learn's ``LassoCV`` / ``ElasticNetCV`` grid and choice.
    Features are standardized inside the fit, and the target is centered and
    scaled to unit variance, as glmnet does: without that the Elastic Net's L2
    part (``alpha * (1 - l1_ratio)``, with alpha in the target's unit) grew with
    the target's unit and shrank every coefficient to almost nothing (an E_out
    of 181 % on the 364 x 577 benchmark; the Lasso is the same either way).
    ``alpha_`` is in units of the scaled target.

    Solver ``"cd"`` (default): every penalty of every inner fold's path, and the
    final fit, solved until its duality gap is at most ``tol`` times
    ``||y||^2 / n`` (scikit-learn's definition of ``tol``), by the compiled
    coordinate descent of :mod:`modeling.crossgen.regularized`, so the chosen
    penalty and the error do not depend on an iteration limit. With more than
    ``GRAM_MAX_FEATURES`` features (its Gram matrices would not fit in memory)
    the fit uses scikit-learn's solver at the same ``tol``, with ``max_iter``.
    Solver ``"sklearn"``: scikit-learn's ``LassoCV`` / ``ElasticNetCV`` with
    ``tol``, ``max_iter`` and ``precompute`` (the leaderboard's setting before
    this solver was ``tol=1e-3``, ``max_iter=5000``, whose E_out was up to 42 %
    away from the converged one: ``benchmarks/regularized_tolerance.py``).

    Attributes
    ----------
    alpha_, l1_ratio_ : the chosen penalty and L1 ratio.
    dual_gap_ : the final fit's duality gap relative to ``||y||^2 / n`` (of the scaled target)
        (:func:`modeling.crossgen.regularized.relative_gap`).
    converged_ : every solve of the fit (inner paths and final fit) met ``tol``
        (solver ``"sklearn"``: no iteration limit was reached).
    n_iter_ : coordinate-descent epochs over every path of the fit (solver
        ``"sklearn"``: those of the final fit).
    """

    GRAM_MAX_FEATURES = 5000

    def __init__(self, kind="lasso", positive=False, inner_folds=5, n_alphas=30,
                 l1_ratios=(0.25, 0.5, 0.75), random_state=0, tol=1e-7, solver="cd", max_iter=5000,
                 precompute="auto"):
        self.kind = kind
        self.positive = positive
        self.inner_folds = inner_folds
        self.n_alphas = n_alphas
        self.l1_ratios = l1_ratios
        self.random_state = random_state
        self.tol = tol
        self.solver = solver
        self.max_iter = max_iter
        self.precompute = precompute

    def fit(self, X, y):
        from sklearn.model_selection import KFold

        from modeling.crossgen.regularized import fit_cv, relative_gap

        X, y = _check_fit(self, X, y)
        if self.kind not in ("lasso", "elasticnet"):
            raise ValueError(f"unknown regularized model {self.kind!r}")
        if self.solver not in ("cd", "sklearn"):
            raise ValueError(f"unknown solver {self.solver!r}; use 'cd' or 'sklearn'")
        std = standardize(X, y)
        y_scale = float(np.sqrt(np.mean(std.y**2))) or 1.0
        z = std.y / y_scale  # unit variance, as glmnet: the Elastic Net's L2 part does not grow with y's unit
        folds = min(self.inner_folds, X.shape[0])
        cv = KFold(folds, shuffle=True, random_state=self.random_state)
        ratios = (1.0,) if self.kind == "lasso" else tuple(float(r) for r in self.l1_ratios)
        if self.solver == "cd" and X.shape[1] <= self.GRAM_MAX_FEATURES:
            fit = fit_cv(std.X, z, list(cv.split(std.X)), ratios, self.n_alphas, self.positive, self.tol)
            coef, self.alpha_, self.l1_ratio_ = fit.coef, fit.alpha, fit.l1_ratio
            self.converged_ = bool(fit.max_gap <= self.tol)
            self.n_iter_ = int(fit.epochs)
        else:
            coef = self._fit_sklearn(std.X, z, cv)
        self.dual_gap_ = relative_gap(std.X, z, coef, self.alpha_, self.l1_ratio_, self.positive)
        self.coef_, self.intercept_ = to_original(std, coef * y_scale)
        self.selected_ = np.flatnonzero(self.coef_)
        self.n_selected_ = int(self.selected_.size)
        self.n_features_in_ = X.shape[1]
        return self

    def _fit_sklearn(self, X, z, cv):
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import ElasticNetCV, LassoCV

        common = dict(alphas=self.n_alphas, cv=cv, positive=self.positive, max_iter=self.max_iter,
                      tol=self.tol, fit_intercept=False, selection="cyclic", precompute=self.precompute)
        est = (LassoCV(**common) if self.kind == "lasso"
               else ElasticNetCV(l1_ratio=list(self.l1_ratios), **common))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            est.fit(X, z)
        self.converged_ = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
        self.n_iter_ = int(est.n_iter_)
        self.alpha_ = float(est.alpha_)
        self.l1_ratio_ = float(getattr(est, "l1_ratio_", 1.0))
        return est.coef_.copy()

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

        X, y = _check_fit(self, X, y)
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
        X = _check_x(self, X)
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # one column times a constant: the naive baseline, by design
        return tags

    def __init__(self, host_index=0):
        self.host_index = host_index

    def fit(self, X, y):
        X, y = _check_fit(self, X, y)
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
        return _check_x(self, X)[:, self.host_index] * self.ratio_


class TargetTransformRegressor(RegressorMixin, BaseEstimator):
    """Fit a model on a transformed target and predict in target units.

    target_transform: ``"none"`` (the papers), ``"log"`` (fit log y, predict exp),
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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the log transforms need a positive target, the ratios a positive host metric (a column of X)
        tags.target_tags.positive_only = self.target_transform in ("log", "logratio")
        tags.input_tags.positive_only = self.target_transform in ("ratio", "logratio")
        return tags

    def __init__(self, estimator=None, target_transform="none", host_index=None):
        self.estimator = estimator
        self.target_transform = target_transform
        self.host_index = host_index

    def _forward(self, X, y):
        if self.target_transform == "none":
            return y
        if self.target_transform == "log":
            if np.any(y <= 0):
                raise DataError("The log transform needs a positive target; drop rows with target <= 0.")
            return np.log(y)
        if self.target_transform in ("ratio", "logratio"):
            if self.host_index is None:
                raise DataError("The ratio transform needs the host's own metric column (--host-col).")
            h = X[:, self.host_index]
            if np.any(h <= 0):
                raise DataError("The ratio transform needs a positive host metric in every row.")
            if self.target_transform == "ratio":
                return y / h
            if np.any(y <= 0):
                raise DataError("The log-ratio transform needs a positive target; drop rows with target <= 0.")
            return np.log(y / h)
        raise ValueError(f"unknown transform {self.target_transform!r}")

    def fit(self, X, y):
        X, y = _check_fit(self, X, y)
        z = self._forward(X, y)
        self.z_range_ = (float(z.min()), float(z.max()))
        self.estimator_ = clone(self.estimator).fit(X, z)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        check_is_fitted(self, "estimator_")
        X = _check_x(self, X)
        z = self.estimator_.predict(X)
        if self.target_transform in ("log", "logratio"):
            lo, hi = self.z_range_
            z = np.exp(np.clip(z, lo - self.LOG_MARGIN, hi + self.LOG_MARGIN))
            return z * X[:, self.host_index] if self.target_transform == "logratio" else z
        if self.target_transform == "ratio":
            return z * X[:, self.host_index]
        return z

    @property
    def n_selected_(self):
        return self.estimator_.n_selected_
