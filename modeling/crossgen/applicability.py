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


def _embed(X_train: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Both tables in the comparison space of the module docstring (scaled by the training columns)."""
    Zt = np.empty_like(X_train, dtype=float)
    Z = np.empty_like(X, dtype=float)
    for j in range(X_train.shape[1]):
        col = X_train[:, j]
        if np.all(col >= 0):
            pos = col[col > 0]
            s = float(np.median(pos)) if pos.size else 1.0
            Zt[:, j] = np.log1p(col / s)
            Z[:, j] = np.log1p(np.maximum(X[:, j], -0.999999 * s) / s)
        else:
            Zt[:, j], Z[:, j] = col, X[:, j]
    mu, sd = Zt.mean(axis=0), Zt.std(axis=0)
    sd[sd <= 0] = 1.0
    return (Zt - mu) / sd, (Z - mu) / sd


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
           situation: str = "new-inputs", max_named: int = 5) -> Applicability:
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
    X_train = np.asarray(X_train, dtype=float)
    X_new = np.asarray(X_new, dtype=float)
    lo, hi = X_train.min(axis=0), X_train.max(axis=0)
    tol = 1e-9 * np.maximum(hi - lo, np.abs(hi))
    below, above = X_new < lo - tol, X_new > hi + tol
    Zt, Z = _embed(X_train, X_new)
    p = max(X_train.shape[1], 1)
    train_nn = _nearest(Zt, Zt, exclude_self=True) / np.sqrt(p) if len(Zt) > 1 else np.zeros(1)
    threshold = float(np.percentile(train_nn, percentile))
    dist = _nearest(Z, Zt) / np.sqrt(p) if len(Z) else np.zeros(0)
    known = set(np.asarray(train_groups).astype(str)) if train_groups is not None else None
    groups = None if new_groups is None else np.asarray(new_groups).astype(str)
    new_app = np.array([known is not None and groups is not None and g not in known
                        for g in (groups if groups is not None else [None] * len(X_new))], dtype=bool)
    applicable = np.ones(len(X_new), bool)
    why, names_out = [], []
    for i in range(len(X_new)):
        reasons = []
        out = [feature_names[j] + (" (below the training range)" if below[i, j] else " (above the training range)")
               for j in np.flatnonzero(below[i] | above[i])]
        names_out.append([feature_names[j] for j in np.flatnonzero(below[i] | above[i])])
        if out:
            more = f" and {len(out) - max_named} more" if len(out) > max_named else ""
            reasons.append(f"{len(out)} counter(s) outside the training range: {', '.join(out[:max_named])}{more}")
        if dist[i] > threshold:
            reasons.append(f"farther from every training workload ({dist[i]:.2f}) than {percentile:g} % of the "
                           f"training workloads are from their nearest neighbour ({threshold:.2f})")
        if new_app[i]:
            if situation == "new-applications":
                reasons.append(f"application {str(groups[i])!r} is not in the training data: the interval was built "
                               f"for that situation (applications held out); see {NEW_APP_PAGE} for "
                               "estimates made for it")
            else:
                reasons.append(f"application {str(groups[i])!r} is not in the training data: the random-fold error "
                               "and this interval describe known applications at new inputs, not this one; "
                               f"choose the situation 'applications not in the training data' or see {NEW_APP_PAGE}")
        applicable[i] = not (out or dist[i] > threshold or (new_app[i] and situation != "new-applications"))
        why.append("; ".join(reasons))
    return Applicability(applicable, why, names_out, dist, threshold, new_app, percentile)


__all__ = ["Applicability", "NEW_APP_PAGE", "assess"]
