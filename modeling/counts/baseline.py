"""The naive estimate beside every predicted count: the count at the nearest measured input, scaled in
proportion to the problem size (the product of the input sizes) — what an architect does by hand when a
simulation needs the counts of an input too large to run ("twice the elements, twice the executions").

The nearest measured input is the one with the smallest sum of |log(new size / measured size)| over the
parameters (the same log-size geometry :func:`modeling.counts.predict.beyond` measures extrapolation in).
It is exact for a block whose count is proportional to the problem size, and wrong by the missing factor for
anything else (a loop over N·log N, N², a fixed set-up block): the model's error is shown beside this one's on
the same high-low split, so a user sees what the model adds.
"""

from __future__ import annotations

import numpy as np


def nearest(X_measured: np.ndarray, X_new: np.ndarray) -> np.ndarray:
    """Row index into ``X_measured`` of each new input's nearest measured input (log-size L1 distance)."""
    lm, ln = np.log(np.asarray(X_measured, float)), np.log(np.asarray(X_new, float))
    return np.abs(ln[:, None, :] - lm[None, :, :]).sum(axis=2).argmin(axis=1)


def scaled_counts(X_measured, Y_measured, X_new) -> np.ndarray:
    """Counts (new points x blocks): the nearest measured input's counts x (new size product / its product)."""
    X_measured, X_new = np.asarray(X_measured, float), np.asarray(X_new, float)
    near = nearest(X_measured, X_new)
    ratio = np.prod(X_new, axis=1) / np.prod(X_measured[near], axis=1)
    return np.asarray(Y_measured, float)[near] * ratio[:, None]
