"""The baseline beside every predicted count: what a careful architect does by hand when a simulation needs
the counts of an input too large to run. Each block's count is scaled by the sizes *its* loop nest depends
on, read off the measured grid:

1. per block, a power law ``count ~ c * prod(size_j ** a_j)`` fitted by least squares on the log scale over
   the measured inputs where it ran (count > 0); an exponent within :data:`ROUND_TOL` of a whole number is
   taken as that number (a loop nest's depth: a block inside ``for i < N, for j < M`` has a_N = a_M = 1, a
   block that never loops over N has a_N = 0), others are kept as fitted (rounded to 0.01);
2. the count at the nearest measured input (smallest sum of |log(new size / measured size)|, the geometry
   :func:`modeling.counts.predict.beyond` measures extrapolation in) times ``prod((new_j / near_j) ** a_j)``.

It is exact for a block whose count is proportional to a product of powers of the sizes it depends on, and
off by the missing factor for anything else (``N log N``, ``n(n+1)/2`` far from the grid, a step). The
models' errors are reported against this one on the same held-out inputs, so a user sees what a model adds.

:func:`product_scaled_counts` is the cruder rule it replaces (every block scaled by the product of *all*
sizes, "twice the elements, twice the executions"), kept for the benchmark's comparison only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROUND_TOL = 0.2
RULE = ("size scaling: the count at the nearest measured input x prod((new size / its size) ^ a), the exponents a "
        "of the block's power-law fit on the measured inputs (whole numbers where within 0.2 of one)")


@dataclass(frozen=True)
class PowerLaw:
    """Per block (rows) and size (columns): the exponent used and the one fitted."""

    exponents: np.ndarray
    fitted: np.ndarray

    def text(self, b: int, params) -> str:
        """The sizes block ``b`` scales with: ``"N^2·M"``, ``"BINS"``, or ``"constant"``."""
        parts = []
        for p, a in zip(params, self.exponents[b]):
            if a == 0:
                continue
            parts.append(p if a == 1 else f"{p}^{a:g}")
        return "·".join(parts) or "constant"


def fit_power_law(X, Y) -> PowerLaw:
    """Each block's exponents on the measured inputs (module docstring, 1)."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    L = np.log(X)
    varying = [j for j in range(X.shape[1]) if np.ptp(L[:, j]) > 0]
    fitted = np.zeros((Y.shape[1], X.shape[1]))
    for b in range(Y.shape[1]):
        pos = Y[:, b] > 0
        if pos.sum() < 2 or not varying:
            continue
        A = np.column_stack([np.ones(pos.sum()), L[pos][:, varying]])
        coef = np.linalg.lstsq(A, np.log(Y[pos, b]), rcond=None)[0]
        fitted[b, varying] = coef[1:]
    whole = np.round(fitted)
    used = np.where(np.abs(fitted - whole) <= ROUND_TOL, whole, np.round(fitted, 2))
    return PowerLaw(used + 0.0, fitted)  # + 0.0: no negative zeros


def nearest(X_measured: np.ndarray, X_new: np.ndarray) -> np.ndarray:
    """Row index into ``X_measured`` of each new input's nearest measured input (log-size L1 distance)."""
    lm, ln = np.log(np.asarray(X_measured, float)), np.log(np.asarray(X_new, float))
    return np.abs(ln[:, None, :] - lm[None, :, :]).sum(axis=2).argmin(axis=1)


def scaled_counts(X_measured, Y_measured, X_new, law: PowerLaw | None = None) -> np.ndarray:
    """Counts (new points x blocks): the nearest measured input's counts scaled by each block's power law
    (fitted on the measured inputs unless ``law`` is given)."""
    X_measured, X_new = np.asarray(X_measured, float), np.asarray(X_new, float)
    Y_measured = np.asarray(Y_measured, float)
    law = law or fit_power_law(X_measured, Y_measured)
    near = nearest(X_measured, X_new)
    logratio = np.log(X_new) - np.log(X_measured[near])          # points x sizes
    return Y_measured[near] * np.exp(logratio @ law.exponents.T)  # points x blocks


def product_scaled_counts(X_measured, Y_measured, X_new) -> np.ndarray:
    """The cruder rule (benchmark comparison only): the nearest measured input's counts x (new size product /
    its product), every block alike."""
    X_measured, X_new = np.asarray(X_measured, float), np.asarray(X_new, float)
    near = nearest(X_measured, X_new)
    ratio = np.prod(X_new, axis=1) / np.prod(X_measured[near], axis=1)
    return np.asarray(Y_measured, float)[near] * ratio[:, None]
