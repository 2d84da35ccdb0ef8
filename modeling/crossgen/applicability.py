"""Is a workload to predict inside the data the model learned from?

Three checks, each with a reason a user can read:

* **range**: counters whose value lies outside the training workloads' range
  (below the smallest or above the largest, with a relative tolerance of
  1e-9 of the range); a model asked about them extrapolates;
* **distance**: the distance to the nearest training workload, against how
  far the training workloads are from their own nearest neighbours. Counters
  span many orders of magnitude, so each non-negative counter is compared as
  ``log1p(x / s)`` with ``s`` its median positive training value (a
  counter with negative values as ``x``), then scaled by its training
  standard deviation; the distance is Euclidean over the counters, divided by
  ``sqrt(p)``. A workload is *far* when its distance exceeds the
  ``percentile``-th percentile (95 by default) of the training workloads'
  leave-one-out nearest-neighbour distances;
* **application**: a workload of an application that is not in the training
  data. Random-fold errors and intervals describe known applications at new
  inputs, not this case (HALWPE's Sec. V.D-E setting is new workloads of the
  same applications); such a workload is pointed at ``/new-app``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS

NEW_APP_PAGE = "/new-app"


@dataclass
class Applicability:
    applicable: np.ndarray  # bool per new workload
    why: list  # str per new workload ("" when applicable and nothing to say)
    out_of_range: list  # list of counter names per new workload
    distance: np.ndarray  # scaled nearest-training distance per new workload
    distance_threshold: float
    new_application: np.ndarray  # bool per new workload
    percentile: float


@dataclass
class Reference:
    """What the checks need of the training workloads, computed once per fitted model: their range, the
    comparison space (per-column scale, mean and spread) and the nearest-neighbour distance threshold."""

    lo: np.ndarray
    hi: np.ndarray
    tol: np.ndarray
    log_scale: np.ndarray  # per column: the median positive value s (log1p(x / s)), or nan (compared as x)
    mu: np.ndarray
    sd: np.ndarray
    Zt: np.ndarray  # the training workloads in the comparison space
    threshold: float
    groups: frozenset | None
    percentile: float

    def embed(self, X: np.ndarray) -> np.ndarray:
        """Rows of ``X`` in the comparison space of the module docstring (scaled by the training columns)."""
        Z = np.array(X, dtype=float, copy=True)
        logged = np.flatnonzero(np.isfinite(self.log_scale))
        if logged.size:
            s = self.log_scale[logged]
            Z[:, logged] = np.log1p(np.maximum(Z[:, logged], -0.999999 * s) / s)
        return (Z - self.mu) / self.sd


def reference(X_train, *, train_groups=None, percentile: float = 95.0) -> Reference:
    """The training side of :func:`assess` (see the module docstring)."""
    X_train = np.asarray(X_train, dtype=float)
    lo, hi = X_train.min(axis=0), X_train.max(axis=0)
    tol = 1e-9 * np.maximum(hi - lo, np.abs(hi))
    scale = np.full(X_train.shape[1], np.nan)
    Zt = np.array(X_train, dtype=float, copy=True)
    for j in range(X_train.shape[1]):
        col = X_train[:, j]
        if np.all(col >= 0):
            pos = col[col > 0]
            scale[j] = float(np.median(pos)) if pos.size else 1.0
            Zt[:, j] = np.log1p(col / scale[j])
    mu, sd = Zt.mean(axis=0), Zt.std(axis=0)
    sd[sd <= 0] = 1.0
    Zt = (Zt - mu) / sd
    p = max(X_train.shape[1], 1)
    train_nn = _nearest(Zt, Zt, exclude_self=True) / np.sqrt(p) if len(Zt) > 1 else np.zeros(1)
    known = None if train_groups is None else frozenset(np.asarray(train_groups).astype(str))
    return Reference(lo, hi, tol, scale, mu, sd, Zt, float(np.percentile(train_nn, percentile)), known, percentile)


def _nearest(A: np.ndarray, B: np.ndarray, exclude_self: bool = False, chunk: int = 512) -> np.ndarray:
    """Euclidean distance from each row of A to its nearest row of B (A is B when ``exclude_self``)."""
    out = np.empty(A.shape[0])
    bb = np.einsum("ij,ij->i", B, B)
    for s in range(0, A.shape[0], chunk):
        a = A[s:s + chunk]
        d2 = np.einsum("ij,ij->i", a, a)[:, None] + bb[None, :] - 2.0 * a @ B.T
        if exclude_self:
            idx = np.arange(s, s + a.shape[0])
            d2[np.arange(a.shape[0]), idx] = np.inf
        out[s:s + chunk] = np.sqrt(np.maximum(d2.min(axis=1), 0.0))
    return out


def assess(X_train, X_new, feature_names, *, train_groups=None, new_groups=None, percentile: float = 95.0,
           situation: str = NEW_INPUTS, max_named: int = 5) -> Applicability:
    """Applicability of every new workload (see the module docstring).

    Parameters
    ----------
    X_train : array (n, p)   the training workloads' counters (the columns the model saw)
    X_new : array (m, p)     the new workloads' counters, same columns in the same order
    feature_names : list of p names
    train_groups, new_groups : applications, optional (without them the application check is skipped)
    percentile : the training nearest-neighbour distance percentile above which a workload is far
    situation : "new-inputs" or "new-applications": what the interval was built for
    """
    ref = reference(X_train, train_groups=train_groups, percentile=percentile)
    return assess_against(ref, X_new, feature_names, new_groups=new_groups, situation=situation,
                          max_named=max_named)


def assess_against(ref: Reference, X_new, feature_names, *, new_groups=None, situation: str = NEW_INPUTS,
                   max_named: int = 5) -> Applicability:
    """:func:`assess` with the training side computed once (:func:`reference`). The reasons are written
    only for the workloads that have one: a table of 100,000 applicable workloads costs array work only."""
    X_new = np.asarray(X_new, dtype=float)
    m = len(X_new)
    below, above = X_new < ref.lo - ref.tol, X_new > ref.hi + ref.tol
    outside = below | above
    any_out = outside.any(axis=1)
    p = max(X_new.shape[1], 1) if X_new.ndim == 2 else 1
    dist = _nearest(ref.embed(X_new), ref.Zt) / np.sqrt(p) if m else np.zeros(0)
    threshold, percentile = ref.threshold, ref.percentile
    far = dist > threshold
    groups = None if new_groups is None else np.asarray(new_groups).astype(str)
    if ref.groups is not None and groups is not None:
        new_app = ~np.isin(groups, np.array(sorted(ref.groups), dtype=str))
    else:
        new_app = np.zeros(m, bool)
    applicable = ~(any_out | far | (new_app & (situation != NEW_APPLICATIONS)))
    why = [""] * m
    names_out: list = [[] for _ in range(m)]
    rows, cols = np.nonzero(outside)  # row-major: each row's columns together, in order
    cuts = np.searchsorted(rows, np.arange(m + 1))
    side = np.where(below[rows, cols], " (below the training range)", " (above the training range)")
    for i in np.flatnonzero(any_out | far | new_app):
        reasons = []
        a, b = cuts[i], cuts[i + 1]
        names_out[i] = [feature_names[j] for j in cols[a:b]]
        out = [name + why_side for name, why_side in zip(names_out[i], side[a:b])]
        if out:
            more = f" and {len(out) - max_named} more" if len(out) > max_named else ""
            reasons.append(f"{len(out)} counter(s) outside the training range: {', '.join(out[:max_named])}{more}")
        if far[i]:
            reasons.append(f"farther from every training workload ({dist[i]:.2f}) than {percentile:g} % of the "
                           f"training workloads are from their nearest neighbour ({threshold:.2f})")
        if new_app[i]:
            if situation == NEW_APPLICATIONS:
                reasons.append(f"application {str(groups[i])!r} is not in the training data: the interval was built "
                               f"for that situation (applications held out); see {NEW_APP_PAGE} for "
                               "estimates made for it")
            else:
                reasons.append(f"application {str(groups[i])!r} is not in the training data: the random-fold error "
                               "and this interval describe known applications at new inputs, not this one; "
                               f"choose the situation 'applications not in the training data' or see {NEW_APP_PAGE}")
        why[i] = "; ".join(reasons)
    return Applicability(applicable, why, names_out, dist, threshold, new_app, percentile)


__all__ = ["Applicability", "NEW_APP_PAGE", "Reference", "assess", "assess_against", "reference"]
