"""Jacobi scaling of the LACross problems for the projected-gradient solver (numpy only, so importing the
solvers' common parts does not load the compiler); the compiled active-set kernel scales each problem the
same way as it solves it."""

from __future__ import annotations

import numpy as np


def jacobi_scale(Q, c):
    """Jacobi scaling of problems (B, d, d), (B, d): s_k = sqrt(Q_kk) (1 where Q_kk is zero), and the scaled
    Hessians Q / s s^T (unit diagonal), linear terms c / s and l1 weights a = 1 / s of phi = s * theta."""
    diag = np.einsum("bii->bi", Q)
    s = np.sqrt(np.maximum(diag, 1e-300))
    s = np.where(diag > 1e-300 * np.maximum(diag.max(axis=1, keepdims=True), 1.0), s, 1.0)
    return s, Q / s[:, :, None] / s[:, None, :], c / s, 1.0 / s
