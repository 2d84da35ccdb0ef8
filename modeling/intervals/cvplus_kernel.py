"""The compiled merge of :func:`modeling.intervals.conformal.cv_plus_by_fold`."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def merged_rank(mu, runs, starts, d):
    """For every row ``j`` of ``mu`` (n_new x K): the ``d``-th largest of ``mu[j, k] + r`` and the ``d``-th
    smallest of ``mu[j, k] - r`` over the residuals ``r`` of every fold ``k``.

    ``runs[starts[k]:starts[k + 1]]`` are fold ``k``'s residuals in descending order, so within a fold
    ``mu + r`` decreases and ``mu - r`` increases along the run: each step takes the best head among the K
    runs and advances it.
    """
    m, K = mu.shape
    lower = np.empty(m)
    upper = np.empty(m)
    head = np.empty(K, np.int64)
    for j in range(m):
        for k in range(K):
            head[k] = starts[k]
        best = 0.0
        for _ in range(d):
            pick = -1
            for k in range(K):
                if head[k] < starts[k + 1]:
                    v = mu[j, k] + runs[head[k]]
                    if pick < 0 or v > best:
                        best, pick = v, k
            head[pick] += 1
        upper[j] = best
        for k in range(K):
            head[k] = starts[k]
        for _ in range(d):
            pick = -1
            for k in range(K):
                if head[k] < starts[k + 1]:
                    v = mu[j, k] - runs[head[k]]
                    if pick < 0 or v < best:
                        best, pick = v, k
            head[pick] += 1
        lower[j] = best
    return lower, upper
