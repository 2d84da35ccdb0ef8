"""Prediction intervals from cross-validation residuals (CV+ / jackknife+), on the log scale.

A prediction of a time or a cycle count is judged by its ratio to the measured
value, so the intervals here are built on ``log(target)``: a residual is
``r_i = log y_i - log mu_{-k(i)}(x_i)``, where ``mu_{-k(i)}`` is the model
fitted without the fold that holds workload ``i``. Intervals are then
multiplicative (``[y_hat / a, y_hat * b]``) and stay positive.

``cv_plus`` is CV+ (Barber, Candès, Ramdas and Tibshirani, "Predictive
inference with the jackknife+", Ann. Statist. 2021, Sec. 3): for a new
workload ``x`` the fold models' predictions are shifted by every training
residual, and the interval runs from the ``k``-th largest of
``log mu_{-k(i)}(x) - |r_i|`` to the ``k``-th smallest of
``log mu_{-k(i)}(x) + |r_i|`` with ``k = ceil(level (n + 1))``: the same
finite-sample rank the MAPIE library uses (``CrossConformalRegressor``,
``method="plus"``), which a test checks. With K-fold residuals the interval
is for a workload like the training ones (an application already profiled,
at a new input); with leave-one-application-out residuals it is meant for an
application not in the training data.

For unseen applications the residuals of one application are not
independent of each other (its kernels share one bias), so pooling them lets
the largest applications decide the quantile. Two rules treat the
application as the unit instead: ``weighted`` (each application's residuals
together weigh one) and ``per_application`` (each application's own
``level``-quantile of ``|r|``, then the conformal rank over applications:
``k = ceil(level (G + 1))`` of ``G`` applications). With too few
applications for the level (``k > G``) no finite interval is guaranteed; the
functions here use the widest application's quantile and report the level the
data can support, ``G / (G + 1)``, and a prediction gives no interval then
(:func:`unsupported_note` says why).

``weighted`` (and ``held_out``, the default for applications not in the
training data, which calibrates its level on applications held out one at a
time: :func:`held_out_level`) estimates the distribution of the score of a
workload drawn from a new application (every application equally likely), which is what the interval
promises, so its coverage sits at the level whatever the spread within an
application. ``per_application`` takes a quantile of quantiles (0.9 of 0.9):
it covers 90 % of the *applications* at 90 % each, which over-covers the
workloads once the spread within an application is comparable to the spread
between them. ``weighted``'s finite-sample level ``level (G + 1) / G``
reaches the widest application at G = 9 and over-covers with few
applications (96.4 % with 9 in ``benchmarks/predict_new_applications.py``,
where ``held_out`` covers 91.5 %). Measured in
``benchmarks/predict_accuracy.py`` (synthetic tables, 30 applications of skewed sizes, application-level random factor,
8 held out per round): within-application spread 0.15 and between 0.15 on
the log scale, weighted 91.2 % and per application 96.6 % of hidden
workloads inside a 90 % interval; spread 0.04 and 0.25, weighted 88.9 %,
per application 90.8 %.

What "90 %" promises for new applications is an average over the
applications a user may meet: when applications differ more than their
workloads do, one held-out application is inside almost entirely or largely
outside, so most single splits show near 100 % and a few far less
(``benchmarks/predict_new_applications.py`` reports every split). The
coverage quoted (:func:`held_out_coverage`, ``quoted``) is that average,
each held-out set of applications weighing one.

A model's prediction at or below zero (a linear model can give one) has no
logarithm: it is raised to ``floor`` (a thousandth of the smallest training
target), so its residual is huge and its interval honestly wide.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modeling.errors import ConfigError, NotEnoughDataError

#: The interval levels the pages offer, lowest and highest (0.99 needs 99 held-out units: :func:`units_needed`).
LEVEL_MIN, LEVEL_MAX = 0.5, 0.99

RULES = ("pooled", "weighted", "per_application", "held_out")
RULE_LABELS = {
    "pooled": "every workload's residual counts once (CV+)",
    "weighted": "each application's residuals together count once",
    "held_out": ("each application's residuals together count once, at the quantile that covered the level of "
                 "each application held out from the others"),
    "per_application": "each application's own residual quantile, then a quantile over applications",
}


def log_floor(y_train) -> float:
    """The smallest prediction taken to the log scale: a thousandth of the smallest training target."""
    y = np.asarray(y_train, dtype=float)
    return float(1e-3 * np.min(y[y > 0]))


def to_log(pred, floor: float) -> np.ndarray:
    """``log(max(pred, floor))``."""
    return np.log(np.maximum(np.asarray(pred, dtype=float), floor))


def conformal_rank(level: float, n: int) -> int:
    """``ceil(level (n + 1))``: the rank of the conformal quantile among ``n`` scores (may exceed n)."""
    if not 0.0 < level < 1.0:
        raise ConfigError(f"The interval level must lie strictly between 0 and 1, got {level!r}.")
    return int(np.ceil(level * (n + 1) - 1e-12))


def supported_level(n_units: int) -> float:
    """The highest level a conformal interval over ``n_units`` exchangeable units can guarantee."""
    return n_units / (n_units + 1.0)


def conformal_quantile(scores, level: float, axis: int = 0):
    """The split-conformal quantile of ``scores`` along ``axis``: the ``ceil(level (n + 1))``-th smallest of the
    ``n`` scores, or the largest when ``n`` is too small for the level. Returns ``(quantile, level supported)``:
    the level itself, or ``n / (n + 1)`` when the largest score stands in (a float for 1-d ``scores``, an array
    of one quantile per column for 2-d ``scores`` and ``axis=0``)."""
    s = np.sort(np.asarray(scores, dtype=float), axis=axis)
    n = s.shape[axis]
    if n < 1:
        raise NotEnoughDataError("A conformal quantile needs at least one score.")
    k = conformal_rank(level, n)
    q = np.take(s, min(k, n) - 1, axis=axis)
    return (float(q) if q.ndim == 0 else q), (level if k <= n else supported_level(n))


def units_needed(level: float) -> int:
    """The fewest exchangeable units whose conformal rank ``ceil(level (n + 1))`` stays within ``n``."""
    n = 1
    while conformal_rank(level, n) > n:
        n += 1
    return n


def unsupported_note(level: float, supported: float, grouped: bool, new_applications: bool) -> str:
    """Why a prediction gives no interval: too few held-out units (applications, or workloads) for the level."""
    have = int(round(supported / (1.0 - supported)))
    unit = "applications" if grouped or new_applications else "measured workloads"
    return (f"No {level * 100:g} % interval is given: it needs at least {units_needed(level)} {unit} to hold out "
            f"and the training data has {have}, so the interval would be the widest residual seen, with no "
            f"guarantee (it can be orders of magnitude wide). Choose a level of at most {100 * supported:.0f} %, "
            f"or measure more {unit}.")


@dataclass
class Intervals:
    """Bounds on the target's scale (not the log), one per new workload."""

    lower: np.ndarray
    upper: np.ndarray
    level: float  # the level asked for
    level_supported: float  # the highest level the residuals can guarantee (== level when they can)
    rule: str


def cv_plus(fold_log_pred: np.ndarray, abs_resid: np.ndarray, level: float) -> Intervals:
    """CV+ intervals, pooled over workloads.

    Parameters
    ----------
    fold_log_pred : array, shape (n_new, n_train)
        ``log mu_{-k(i)}(x_j)``: the log prediction for new workload ``j`` by the model fitted
        without training workload ``i``'s fold.
    abs_resid : array, shape (n_train,)
        ``|r_i|`` on the log scale.
    level : float
        Nominal coverage, e.g. 0.9.
    """
    n = abs_resid.shape[0]
    if n < 2:
        raise NotEnoughDataError("At least 2 cross-validation residuals are needed for an interval.")
    k = conformal_rank(level, n)
    hi = fold_log_pred + abs_resid[None, :]
    lo = fold_log_pred - abs_resid[None, :]
    if k > n:  # too few residuals for the level: unbounded, reported as the widest shift
        kk, supported = n, supported_level(n)
    else:
        kk, supported = k, level
    upper = np.partition(hi, kk - 1, axis=1)[:, kk - 1]
    lower = -np.partition(-lo, kk - 1, axis=1)[:, kk - 1]
    return Intervals(np.exp(lower), np.exp(upper), level, supported, "pooled")


def cv_plus_by_fold(fold_log_new: np.ndarray, abs_resid: np.ndarray, fold_of: np.ndarray,
                    level: float) -> Intervals:
    """:func:`cv_plus` without the (n_new x n_train) table: the same bounds, to the bit.

    In K-fold CV+ the model fitted without workload ``i``'s fold is one of K models, so the table
    ``log mu_{-k(i)}(x_j) +- |r_i|`` that :func:`cv_plus` ranks holds, per new workload, K sorted runs
    (each fold's residuals shifted by that fold model's prediction). The ``ceil(level (n + 1))``-th smallest
    of the upper values is the ``d``-th largest with ``d = n - k + 1``; a K-way merge from the top of
    the runs reaches it in ``d`` steps of K comparisons (and the lower bound likewise from the bottom),
    computing each candidate with the same sum as the table does. Costs ``O(m d K)`` time and ``O(n)``
    memory beyond the inputs, where :func:`cv_plus` needs ``O(m n)`` of both.

    Parameters
    ----------
    fold_log_new : array (n_new, K), the log prediction of each fold model for each new workload
    abs_resid : array (n_train,), ``|r_i|`` on the log scale
    fold_of : array (n_train,) of ints in 0..K-1, the fold of each training workload
    level : nominal coverage
    """
    from modeling.intervals.cvplus_kernel import merged_rank

    abs_resid = np.asarray(abs_resid, dtype=float)
    fold_of = np.asarray(fold_of, dtype=np.int64)
    n = abs_resid.shape[0]
    if n < 2:
        raise NotEnoughDataError("At least 2 cross-validation residuals are needed for an interval.")
    mu = np.ascontiguousarray(fold_log_new, dtype=float)
    K = mu.shape[1]
    if fold_of.shape != (n,) or fold_of.min() < 0 or fold_of.max() >= K:
        raise ValueError("fold_of must give a fold in 0..K-1 for every residual.")
    k = conformal_rank(level, n)
    kk, supported = (n, supported_level(n)) if k > n else (k, level)
    order = np.lexsort((-abs_resid, fold_of))  # by fold, each fold's residuals in descending order
    runs = np.ascontiguousarray(abs_resid[order])
    starts = np.searchsorted(fold_of[order], np.arange(K + 1)).astype(np.int64)
    lower, upper = merged_rank(mu, runs, starts, n - kk + 1)
    return Intervals(np.exp(lower), np.exp(upper), level, supported, "pooled")


def weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The smallest value whose cumulative normalized weight reaches ``q`` ("inverted CDF")."""
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    cum = np.cumsum(w) / w.sum()
    i = int(np.searchsorted(cum, min(q, 1.0) - 1e-12, side="left"))
    return float(v[min(i, len(v) - 1)])


def held_out_level(abs_resid: np.ndarray, inverse: np.ndarray, weights: np.ndarray, level: float) -> float:
    """The quantile level ``q`` of the application-weighted residuals whose interval covered ``level`` of the
    applications held out one at a time (each application weighing one, its workloads equally).

    For application ``j``, a residual ``r`` is inside the interval built from the other applications at ``q``
    when the others' weighted share strictly below ``r`` is under ``q``: so every residual gets that share
    ``u``, and ``q`` is the application-weighted ``level``-quantile of ``u`` (a jackknife calibration of the
    level, in place of the finite-sample ``level (G + 1) / G``, which reaches the widest application at G = 9).
    """
    u = np.empty(len(abs_resid))
    for j in np.unique(inverse):
        mine, others = inverse == j, inverse != j
        order = np.argsort(abs_resid[others], kind="stable")
        v = abs_resid[others][order]
        cum = np.cumsum(weights[others][order]) / weights[others].sum()
        below = np.searchsorted(v, abs_resid[mine], side="left")
        u[mine] = np.where(below > 0, cum[np.maximum(below - 1, 0)], 0.0)
    return float(min(weighted_quantile(u, weights, level) + 1e-9, 1.0))


def group_half_width(abs_resid: np.ndarray, groups: np.ndarray, level: float, rule: str,
                     n_for_level: int | None = None) -> tuple[float, float]:
    """Half-width (log scale) and supported level of a symmetric interval from grouped residuals.

    ``weighted``: the weighted quantile of ``|r|`` with each application's weights summing to one, at
    ``level (G + 1) / G`` (the finite-sample correction of the G-unit case). ``per_application``: the
    ``ceil(level (G + 1))``-th smallest of the applications' own ``level``-quantiles of ``|r|``.

    ``n_for_level``: the G of the correction and of the rank (default: the applications given). The held-out
    check (:func:`held_out_coverage`) passes the number of applications the prediction's interval is built
    from, so each fold's interval, built from fewer applications, is corrected as that interval is: with its
    own G the correction grows as G falls (8 applications: ``0.9 x 9 / 8 > 1``, the widest residual), and the
    coverage quoted would be that of a wider interval than the one given.
    """
    groups = np.asarray(groups).astype(str)
    names, inverse, counts = np.unique(groups, return_inverse=True, return_counts=True)
    g = len(names)
    if g < 2:
        raise NotEnoughDataError("Application-level intervals need residuals of at least 2 applications.")
    n = g if n_for_level is None else int(n_for_level)
    k = conformal_rank(level, n)
    supported = level if k <= n else supported_level(n)
    if rule == "weighted":
        q = min(level * (n + 1) / n, 1.0)
        return weighted_quantile(abs_resid, 1.0 / counts[inverse], q), supported
    if rule == "held_out":
        w = 1.0 / counts[inverse]
        return weighted_quantile(abs_resid, w, held_out_level(abs_resid, inverse, w, level)), supported
    if rule == "per_application":
        per = np.array([np.quantile(abs_resid[inverse == j], level, method="higher") for j in range(g)])
        return float(np.sort(per)[min(k, g) - 1]), supported
    raise ConfigError(f"Unknown interval rule {rule!r}; use one of {', '.join(RULES)}.")


def intervals(rule: str, level: float, *, fold_log_pred=None, abs_resid=None, groups=None,
              center_log=None) -> Intervals:
    """Intervals by ``rule``: ``pooled`` is :func:`cv_plus` (needs ``fold_log_pred``); the two group
    rules are symmetric on the log scale around ``center_log`` (the full model's log prediction)."""
    if rule == "pooled":
        return cv_plus(fold_log_pred, abs_resid, level)
    if groups is None:
        raise ConfigError(f"The {rule!r} interval rule needs the application of every training workload.")
    w, supported = group_half_width(abs_resid, groups, level, rule)
    return Intervals(np.exp(center_log - w), np.exp(center_log + w), level, supported, rule)


def held_out_coverage(abs_resid: np.ndarray, fold_of: np.ndarray, level: float, rule: str,
                      groups=None) -> dict:
    """How often the rule's interval, built without a fold, covered that fold's workloads.

    For every fold ``k``, the half-width comes from the residuals of the *other* folds (by ``rule``;
    ``pooled`` takes their conformal quantile) and is centred on the out-of-fold prediction of each
    workload of fold ``k``: the workload is covered when ``|r_i|`` is within it. Returns the share of
    workloads covered (``workloads``) and the mean over folds of each fold's share (``folds``, each
    held-out fold, e.g. application, counting once), both in percent, the folds whose interval
    could not reach the level, and ``median_width``: the median over workloads of the held-out interval's
    width factor upper / lower (``exp(2 w)``), so a too-wide interval shows as plainly as a too-narrow one.

    ``quoted`` is the figure to show beside the interval, estimated as it will be met: with the pooled rule
    (every workload a unit) the share of workloads; with an application rule the mean over held-out folds
    of each fold's share (each held-out set of whole applications weighs one, its workloads equally, as a
    prediction's table weighs its rows), each fold's interval corrected for the G applications the
    prediction's interval is built from (:func:`group_half_width`'s ``n_for_level``).
    """
    fold_of = np.asarray(fold_of)
    n_all = None if rule == "pooled" else len(np.unique(np.asarray(groups).astype(str)))
    covered = np.zeros(len(abs_resid), bool)
    per_fold, short = [], 0
    width = np.empty(len(abs_resid))
    for k in np.unique(fold_of):
        out = fold_of == k
        rest = abs_resid[~out]
        if rule == "pooled":
            w, sup = conformal_quantile(rest, level)
            short += sup < level
        else:
            w, sup = group_half_width(rest, np.asarray(groups)[~out], level, rule, n_for_level=n_all)
            short += sup < level
        covered[out] = abs_resid[out] <= w + 1e-12
        width[out] = np.exp(2.0 * w)
        per_fold.append(float(np.mean(covered[out])))
    workloads, folds = 100.0 * float(np.mean(covered)), 100.0 * float(np.mean(per_fold))
    return {"workloads": workloads, "folds": folds, "quoted": workloads if rule == "pooled" else folds,
            "n_folds": len(per_fold), "folds_below_level": int(short),
            "median_width": float(np.median(width))}


def quoted_coverage(cov: dict) -> float:
    """The held-out coverage to show beside an interval (``quoted`` of :func:`held_out_coverage`;
    ``workloads`` in a result saved before it was kept)."""
    return cov.get("quoted", cov["workloads"])


__all__ = ["Intervals", "LEVEL_MAX", "LEVEL_MIN", "RULES", "RULE_LABELS", "conformal_quantile", "conformal_rank",
           "cv_plus", "cv_plus_by_fold", "group_half_width", "held_out_coverage", "held_out_level", "intervals",
           "log_floor", "quoted_coverage", "supported_level", "to_log", "units_needed", "unsupported_note",
           "weighted_quantile"]
