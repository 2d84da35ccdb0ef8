"""In-place array updates that numpy can only do through a temporary, compiled.

``Z -= np.outer(q, c)`` builds the n x p outer product before subtracting it;
the stepwise selectors do that once per step on the whole design matrix (and
backward OLS on its inverse Gram matrix, ``G -= np.outer(g, g) / gjj``). The
kernel here does the same arithmetic in place, element by element (one
product, one subtraction, no fused multiply-add), so its results equal
numpy's bit for bit (tested).

Compiled with numba (``cache=True``, warmed by ``./run.sh`` / ``./test.sh``).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _subtract_outer(Z, q, c):
    n, p = Z.shape
    for i in range(n):
        qi = q[i]
        row = Z[i]
        for j in range(p):
            row[j] -= qi * c[j]


@njit(cache=True)
def _downdate(G, g, gjj):
    k = g.shape[0]
    for a in range(k):
        ga = g[a]
        row = G[a]
        for c in range(k):
            row[c] -= (ga * g[c]) / gjj


def downdate(G: np.ndarray, g: np.ndarray, gjj: float) -> None:
    """``G -= np.outer(g, g) / gjj`` in place (product, then division, then subtraction: numpy's rounding)."""
    if not G.flags.c_contiguous or G.dtype != np.float64:
        np.subtract(G, np.outer(g, g) / gjj, out=G)
        return
    _downdate(G, np.ascontiguousarray(g, dtype=float), float(gjj))


def subtract_outer(Z: np.ndarray, q: np.ndarray, c: np.ndarray) -> None:
    """``Z -= outer(q, c)`` in place; ``Z`` C-contiguous float64 of shape (len(q), len(c))."""
    if not Z.flags.c_contiguous or Z.dtype != np.float64:
        np.subtract(Z, np.outer(q, c), out=Z)
        return
    _subtract_outer(Z, np.ascontiguousarray(q, dtype=float), np.ascontiguousarray(c, dtype=float))


def warm_up() -> None:
    """Compile (or load from the cache) the kernels once, e.g. at install time."""
    subtract_outer(np.zeros((2, 2)), np.ones(2), np.ones(2))
    downdate(np.zeros((2, 2)), np.ones(2), 2.0)
