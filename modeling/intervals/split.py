"""Split conformal intervals around any regressor, in MAPIE's call order: ``fit`` -> ``conformalize`` ->
``predict_interval``.

The score of a conformalization workload is its absolute residual ``|y - mu(x)|`` (``log_scale=True``:
``|log y - log mu(x)|``, so the interval is multiplicative and stays positive, as the methods' intervals
are); the half-width is the split-conformal quantile of the scores
(:func:`modeling.intervals.conformal.conformal_quantile`, the ``ceil(level (n + 1))``-th smallest of ``n``;
Lei, G'Sell, Rinaldo, Tibshirani and Wasserman, "Distribution-free predictive inference for regression",
JASA 2018, Sec. 2.2). With too few conformalization workloads for the level (``n < units_needed(level)``)
the largest score stands in and ``Intervals.level_supported`` says the level it can promise, ``n / (n + 1)``
(MAPIE raises there, or gives an infinite interval).

Differences from ``mapie.regression.SplitConformalRegressor``: one level per regressor, and
``predict_interval`` returns ``(predictions, Intervals)`` (bounds and the level they support) in place of an
``(n, 2, n_levels)`` array.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone

from modeling.errors import ConfigError
from modeling.intervals.conformal import Intervals, conformal_quantile, conformal_rank, log_floor, to_log


class SplitConformalRegressor:
    """Split conformal prediction intervals around ``estimator`` (any object with ``fit`` and ``predict``).

    Parameters
    ----------
    estimator : the regressor; cloned and fitted by :meth:`fit` unless ``prefit``
    confidence_level : nominal coverage, strictly between 0 and 1
    prefit : ``estimator`` is fitted already: skip :meth:`fit`
    log_scale : scores and intervals on ``log(target)`` (targets must be positive)
    """

    def __init__(self, estimator, confidence_level: float = 0.9, prefit: bool = False, log_scale: bool = False):
        conformal_rank(confidence_level, 1)  # checks 0 < level < 1
        self.estimator = estimator
        self.confidence_level = float(confidence_level)
        self.prefit = prefit
        self.log_scale = log_scale
        self.estimator_ = estimator if prefit else None
        self.scores_: np.ndarray | None = None

    def fit(self, X_train, y_train) -> SplitConformalRegressor:
        """Fit a clone of the estimator on the training workloads."""
        if self.prefit:
            raise ConfigError("The estimator was given fitted (prefit=True): call conformalize, not fit.")
        self.estimator_ = clone(self.estimator).fit(X_train, np.asarray(y_train, dtype=float))
        return self

    def conformalize(self, X_conformalize, y_conformalize) -> SplitConformalRegressor:
        """Score the fitted estimator on workloads it was not fitted on: the half-width's quantile comes from
        these scores."""
        if self.estimator_ is None:
            raise ConfigError("Call fit (or give a fitted estimator with prefit=True) before conformalize.")
        y = np.asarray(y_conformalize, dtype=float)
        pred = np.asarray(self.estimator_.predict(X_conformalize), dtype=float)
        if self.log_scale:
            if not np.all(y > 0):
                raise ConfigError("Intervals on the log scale need positive targets.")
            self.floor_ = log_floor(y)
            self.scores_ = np.abs(np.log(y) - to_log(pred, self.floor_))
        else:
            self.scores_ = np.abs(y - pred)
        self.half_width_, self.level_supported_ = conformal_quantile(self.scores_, self.confidence_level)
        return self

    def predict(self, X) -> np.ndarray:
        if self.estimator_ is None:
            raise ConfigError("Call fit before predict.")
        return np.asarray(self.estimator_.predict(X), dtype=float)

    def predict_interval(self, X) -> tuple[np.ndarray, Intervals]:
        """Point predictions and their intervals at ``confidence_level``."""
        if self.scores_ is None:
            raise ConfigError("Call conformalize before predict_interval.")
        pred = self.predict(X)
        w = self.half_width_
        if self.log_scale:
            center = to_log(pred, self.floor_)
            lower, upper = np.exp(center - w), np.exp(center + w)
        else:
            lower, upper = pred - w, pred + w
        return pred, Intervals(lower, upper, self.confidence_level, self.level_supported_, "split")
