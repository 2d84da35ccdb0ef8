"""LACross prediction (eq. 4.1): one simplex-constrained model per test phase, fitted on its neighbourhood.

For test phase v_i the training phases within l2 distance eps of v_i (in the chosen feature units) form
D(v_i); theta_i minimizes the mean squared error over them subject to theta >= 0 and sum(theta) <= T; the
prediction is v_i^T theta_i. Relative settings, so they transfer between feature units and targets:

* ``eps_pct``: eps as a percentile of the distances between training phases; 100 = every training phase
  (the *global* simplex-constrained model, one theta for all test phases);
* ``t_factor``: T as a multiple of the l1 norm of the global non-negative least-squares solution
  (``inf``: no l1 bound, i.e. NNLS on the neighbourhood).

A neighbourhood with fewer than ``k_min`` phases falls back to the ``k_min`` nearest training phases; such
phases are flagged in the output, never given a silent zero.

**Unique-phase cache** (section 4): test phases closer than ``cache_l`` in l-infinity norm (feature units)
to an earlier representative reuse its theta; ``hit_rate`` = share of phases that reused one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from modeling.phases.scqp import Problem, solve

#: T multiple meaning "no l1 bound" in the solver (the bound is then never active)
NO_BOUND = 1e6


@dataclass
class Prediction:
    pred: np.ndarray
    fallback: np.ndarray  # bool per test phase: its neighbourhood was too small (k nearest used)
    hit_rate: float
    n_solved: int
    seconds: float
    found: bool


def nnls_fit(X, y) -> np.ndarray:
    """Non-negative least squares on all rows (the scale of T, and the nnls baseline)."""
    s = np.sqrt((X ** 2).sum(axis=0))
    s = np.where(s > 0, s, 1.0)
    return nnls(X / s, y, maxiter=50 * X.shape[1])[0] / s


def distance_percentile(X, pct: float, seed: int = 0, sample: int = 600) -> float:
    """The ``pct`` percentile of l2 distances between training phases (a random sample of them)."""
    rng = np.random.default_rng(seed)
    idx = rng.choice(len(X), size=min(sample, len(X)), replace=False)
    S = X[idx]
    sq = (S ** 2).sum(axis=1)
    D = np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * S @ S.T, 0.0))
    return float(np.percentile(D[np.triu_indices(len(S), 1)], pct))


def unique_representatives(V, cache_l: float) -> np.ndarray:
    """Index of each test phase's representative (itself, or an earlier phase within ``cache_l`` in l-inf)."""
    n = len(V)
    rep = np.arange(n)
    if cache_l <= 0 or n == 0:
        return rep
    reps: list[int] = []
    R = np.empty((0, V.shape[1]))
    for i in range(n):
        if reps:
            d = np.abs(R - V[i]).max(axis=1)
            j = int(d.argmin())
            if d[j] < cache_l:
                rep[i] = reps[j]
                continue
        reps.append(i)
        R = np.vstack([R, V[i]])
    return rep


def neighbourhood_problems(X, ys, U, eps: float, k_min: int):
    """The QP data of eq. 4.1 for each row of ``U``: Q = X^T D X / |D|, c = X^T D y / |D| over the training
    phases within ``eps`` (or the ``k_min`` nearest when fewer are); returns (Q, c, fell back).

    Compiled (:mod:`modeling.phases.neighbourhoods`, loaded by the first job that needs it)."""
    from modeling.phases.neighbourhoods import systems

    return systems(X, ys, U, eps, k_min)


def predict(X, y, V, eps_pct: float = 100.0, t_factor: float = math.inf, k_min: int | None = None,
            cache_l: float = 0.0, seed: int = 0, tol: float = 1e-6) -> Prediction:
    """LACross predictions for test features ``V`` from training features ``X`` and targets ``y``.

    ``tol``: the solver's stopping tolerance (:func:`modeling.phases.scqp.solve`). A small neighbourhood can
    leave directions of theta that barely change the objective; there the solution (and the extrapolation to
    v_i) depends on where the solver stops, a property of the problem that the CV of eps sees."""
    t0 = time.perf_counter()
    X, y, V = np.asarray(X, float), np.asarray(y, float), np.asarray(V, float)
    d = X.shape[1]
    k_min = k_min or max(2 * d, 10)
    yscale = float(np.median(np.abs(y))) or 1.0
    ys = y / yscale
    l1 = float(nnls_fit(X, ys).sum())
    T = (NO_BOUND if not math.isfinite(t_factor) else t_factor) * max(l1, 1e-12)
    n = len(V)
    fallback = np.zeros(n, bool)
    if eps_pct >= 100:  # the global model: one problem
        Q = (X.T @ X / len(X))[None]
        c = (X.T @ ys / len(X))[None]
        sol = solve(Problem(Q, c, np.array([T])), tol=tol)
        pred = V @ sol.theta[0] * yscale
        return Prediction(pred, fallback, 0.0, 1, time.perf_counter() - t0, bool(sol.found.all()))
    eps = distance_percentile(X, eps_pct, seed)
    rep = unique_representatives(V, cache_l)
    uniq = np.unique(rep)
    U = V[uniq]
    Q, c, small = neighbourhood_problems(X, ys, U, eps, k_min)
    sol = solve(Problem(Q, c, np.full(len(U), T)), tol=tol)
    pos = np.searchsorted(uniq, rep)
    theta = sol.theta[pos]
    pred = np.einsum("ij,ij->i", V, theta) * yscale
    fallback = small[pos]
    return Prediction(pred, fallback, 1.0 - len(uniq) / max(n, 1), len(uniq), time.perf_counter() - t0,
                      bool(sol.found.all()))
