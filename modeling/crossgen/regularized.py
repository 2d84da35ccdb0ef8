"""Converged Lasso and Elastic Net paths with the penalty chosen by an inner K-fold CV (HALWPE IV.E,
RastSim 4.1).

The problem is scikit-learn's (``Lasso`` / ``ElasticNet``, no intercept: the features and target come
standardized and centered)::

    min_w  1/(2n) ||y - X w||^2 + alpha * rho * ||w||_1 + alpha * (1 - rho) / 2 * ||w||^2   (w >= 0 if positive)

and so is the choice of the penalty (``LassoCV`` / ``ElasticNetCV``): ``n_alphas`` penalties spaced
geometrically from the smallest one that keeps every coefficient at zero down to 1e-3 of it, per L1 ratio
rho; each inner fold's path, the mean squared error of its held-out rows; the (rho, alpha) of the smallest
mean error over the folds (the first L1 ratio on a tie); the model refitted on every row at that penalty.

What differs is that every solution is converged: each penalty of each path is solved until its duality
gap is at most ``tol * ||y||^2 / n`` (scikit-learn's own definition of its ``tol``; 1e-7 by default), so
the chosen penalty, and with it the model's error, no longer depend on where an iteration limit stopped.
The solver is coordinate descent on the Gram matrix ``X'X / n`` (one p-vector update per coefficient
that moves, as scikit-learn's ``precompute=True`` variant), with warm starts along the path and Anderson
extrapolation of the iterates every few epochs (Bertrand & Massias, "Anderson acceleration of coordinate
descent", AISTATS 2021; accepted only when it lowers the objective), compiled with numba (``cache=True``).
Each inner fold's Gram matrix is the training rows' one minus that of the fold's held-out rows, and the
training rows' Gram matrix is shared by the models fitted on the same rows (the four regularized models
of one outer fold).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from cachetools import LRUCache
from numba import njit

from modeling.crossgen.linear import _array_key

#: Iterates combined by one Anderson extrapolation (skglm's and celer's default).
ANDERSON_K = 5
#: Epochs between two checks of the duality gap.
GAP_EVERY = 10
#: Epochs with the same support (and signs) before the exact solution on that support is tried.
STABLE = 3
#: Times the exact step may drop coordinates whose sign it flips and solve again.
NEWTON_DROPS = 3
#: Largest support for the exact step: nnz^2 <= NEWTON_MAX * p (its solve costs nnz^3 / 3, an epoch nnz * p).
NEWTON_MAX = 256
#: Epochs allowed per penalty before the solver gives up (reported through ``gaps``, never reached on the
#: benchmark tables).
MAX_EPOCHS = 200_000
#: Ratio of the smallest penalty of the grid to the largest (scikit-learn's ``eps``).
EPS = 1e-3


@njit(cache=True)
def _gram_dot(G, w):
    """``G @ w`` over the nonzero entries of w (G symmetric: row j is column j)."""
    out = np.zeros(w.shape[0])
    for j in range(w.shape[0]):
        if w[j] != 0.0:
            out += w[j] * G[j]
    return out


@njit(cache=True)
def _gap(w, q, c, yy, l1, l2, positive):
    """Duality gap of the problem above, per row (scikit-learn's formula divided by n).

    ``q = c - G w`` is ``X'(y - X w) / n``, ``yy = ||y||^2 / n``."""
    wc = w @ c
    r2 = yy - wc - w @ q  # ||y - Xw||^2 / n
    ry = yy - wc  # (y - Xw)'y / n
    dual_norm = 0.0
    for j in range(w.shape[0]):
        v = q[j] - l2 * w[j]
        v = v if positive else abs(v)
        if v > dual_norm:
            dual_norm = v
    if dual_norm > l1:
        const = l1 / dual_norm
        gap = 0.5 * (r2 + r2 * const * const)
    else:
        const = 1.0
        gap = r2
    return gap + l1 * np.abs(w).sum() - const * ry + 0.5 * l2 * (1.0 + const * const) * (w @ w)


@njit(cache=True)
def _objective(w, Gw, c, yy, l1, l2):
    return 0.5 * (yy - 2.0 * (c @ w) + w @ Gw) + l1 * np.abs(w).sum() + 0.5 * l2 * (w @ w)


@njit(cache=True)
def _extrapolate(last, K):
    """Anderson extrapolation of the K + 1 stored iterates (rows of ``last``); ok False when singular."""
    U = last[1:] - last[:-1]
    C = U @ U.T
    try:
        z = np.linalg.solve(C, np.ones(K))
    except Exception:  # noqa: BLE001 - numba raises a generic error on a singular system
        return last[K].copy(), False
    s = z.sum()
    if not np.isfinite(s) or s == 0.0:
        return last[K].copy(), False
    z = z / s
    w = np.zeros(last.shape[1])
    for i in range(K):
        w += z[i] * last[i + 1]
    return w, True


@njit(cache=True)
def _newton(G, c, yy, w, q, l1, l2, positive):
    """The exact solution on the support of ``w`` with its signs, taken when it lowers the objective (w and
    q changed in place; True when taken). Coordinates whose sign the solution flips leave the support and
    it is solved again (at most NEWTON_DROPS times): a coefficient on its way to zero otherwise takes coordinate
    descent many epochs."""
    S = np.flatnonzero(w)
    sign = np.sign(w)
    for _ in range(NEWTON_DROPS + 1):
        m = S.shape[0]
        if m == 0:
            return False
        A = np.empty((m, m))
        b = np.empty(m)
        for a in range(m):
            for k in range(m):
                A[a, k] = G[S[a], S[k]]
            A[a, a] += l2
            b[a] = c[S[a]] - l1 * sign[S[a]]
        try:
            z = np.linalg.solve(A, b)
        except Exception:  # noqa: BLE001 - singular: the support's columns are dependent
            return False
        keep = np.empty(m, dtype=np.bool_)
        for a in range(m):
            if not np.isfinite(z[a]):
                return False
            keep[a] = z[a] * sign[S[a]] > 0.0
        if keep.all():
            break
        S = S[keep]
    else:
        return False
    w_new = np.zeros(w.shape[0])
    w_new[S] = z
    Gw_new = _gram_dot(G, w_new)
    if _objective(w_new, Gw_new, c, yy, l1, l2) > _objective(w, c - q, c, yy, l1, l2):
        return False
    w[:] = w_new
    q[:] = c - Gw_new
    return True


@njit(cache=True)
def _solve(G, diag, c, yy, w, q, l1, l2, positive, tol_abs, max_epochs):
    """Coordinate descent from ``w`` (changed in place, ``q = c - G w`` kept) until the gap is <= tol_abs.

    Every ANDERSON_K + 1 epochs the iterates are extrapolated; once the support has stayed the same for
    STABLE epochs, the exact solution on it is tried (:func:`_newton`), when the support is small enough for
    the solve to cost about as much as a few epochs (``nnz^2 <= NEWTON_MAX * p``); after a try that is not
    taken, the next waits twice as long. Returns (gap, epochs)."""
    p = w.shape[0]
    K = ANDERSON_K
    last = np.empty((K + 1, p))
    stored = 0
    stable = 0
    wait = STABLE
    gap = _gap(w, q, c, yy, l1, l2, positive)
    if gap <= tol_abs:
        return gap, 0
    for epoch in range(1, max_epochs + 1):
        moved = False
        support_changed = False
        for j in range(p):
            if diag[j] == 0.0:
                continue
            old = w[j]
            tmp = q[j] + diag[j] * old
            if positive:
                new = max(tmp - l1, 0.0) / (diag[j] + l2)
            elif tmp > l1:
                new = (tmp - l1) / (diag[j] + l2)
            elif tmp < -l1:
                new = (tmp + l1) / (diag[j] + l2)
            else:
                new = 0.0
            if new != old:
                moved = True
                if (new == 0.0) != (old == 0.0) or new * old < 0.0:
                    support_changed = True
                delta = new - old
                w[j] = new
                Gj = G[j]
                for k in range(p):
                    q[k] -= delta * Gj[k]
        check = not moved or epoch % GAP_EVERY == 0
        stable = 0 if support_changed else stable + 1
        if stable >= wait:
            stable = 0
            nnz = np.count_nonzero(w)
            if nnz * nnz <= NEWTON_MAX * p and _newton(G, c, yy, w, q, l1, l2, positive):
                check = True
                stored = 0
            else:
                wait *= 2
        last[stored] = w
        stored += 1
        if stored == K + 1:
            stored = 0
            w_acc, ok = _extrapolate(last, K)
            if ok:
                if positive:
                    w_acc = np.maximum(w_acc, 0.0)
                Gw_acc = _gram_dot(G, w_acc)
                if _objective(w_acc, Gw_acc, c, yy, l1, l2) < _objective(w, c - q, c, yy, l1, l2):
                    w[:] = w_acc
                    q[:] = c - Gw_acc
        if check:
            q[:] = c - _gram_dot(G, w)  # no drift from the incremental updates
            gap = _gap(w, q, c, yy, l1, l2, positive)
            if gap <= tol_abs:
                return gap, epoch
    q[:] = c - _gram_dot(G, w)
    return _gap(w, q, c, yy, l1, l2, positive), max_epochs


@njit(cache=True)
def _path(G, c, yy, alphas, l1_ratio, positive, tol, max_epochs):
    """Solutions for ``alphas`` (decreasing), each warm-started from the previous one.

    Returns coefs (n_alphas, p), gaps (n_alphas,) and epochs (n_alphas,)."""
    p = c.shape[0]
    m = alphas.shape[0]
    coefs = np.zeros((m, p))
    gaps = np.empty(m)
    epochs = np.zeros(m, dtype=np.int64)
    diag = np.diag(G).copy()
    w = np.zeros(p)
    q = c.copy()
    tol_abs = tol * yy
    for i in range(m):
        gaps[i], epochs[i] = _solve(G, diag, c, yy, w, q, alphas[i] * l1_ratio, alphas[i] * (1.0 - l1_ratio),
                                    positive, tol_abs, max_epochs)
        coefs[i] = w
    return coefs, gaps, epochs


def alpha_grid(X, y, l1_ratio: float, n_alphas: int, positive: bool) -> np.ndarray:
    """scikit-learn's penalty grid (``_alpha_grid``, no intercept): decreasing, shape (n_alphas,)."""
    Xy = X.T @ y
    top = max(0.0, float(Xy.max())) if positive else float(np.abs(Xy).max())
    alpha_max = top / (X.shape[0] * l1_ratio)
    if alpha_max <= np.finfo(float).resolution:
        return np.full(n_alphas, np.finfo(float).resolution)
    return np.geomspace(alpha_max, alpha_max * EPS, num=n_alphas)


def relative_gap(X, y, w, alpha: float, l1_ratio: float, positive: bool) -> float:
    """Duality gap of ``w`` for the problem above on X (n, p), y (n,), relative to ``||y||^2 / n``: computed
    from the residual itself (not the Gram matrix), as scikit-learn's ``enet_coordinate_descent`` does."""
    n = X.shape[0]
    R = y - X @ w
    l1, l2 = alpha * l1_ratio * n, alpha * (1.0 - l1_ratio) * n
    XtA = X.T @ R - l2 * w
    dual_norm = max(0.0, float(XtA.max())) if positive else float(np.abs(XtA).max())
    r2 = float(R @ R)
    const = l1 / dual_norm if dual_norm > l1 else 1.0
    gap = 0.5 * (r2 + r2 * const**2) if dual_norm > l1 else r2
    gap += l1 * float(np.abs(w).sum()) - const * float(R @ y) + 0.5 * l2 * (1.0 + const**2) * float(w @ w)
    yy = float(y @ y)
    return gap / yy if yy > 0 else 0.0


_GRAMS: LRUCache = LRUCache(maxsize=2)


def _gram(X) -> np.ndarray:
    """``X'X`` (unscaled), shared by the fits on the same rows in this process (read-only)."""
    key = _array_key(X)
    G = _GRAMS.get(key)
    if G is None:
        G = X.T @ X
        G.flags.writeable = False
        _GRAMS[key] = G
    return G


@dataclass
class RegularizedFit:
    """A converged regularized fit with its penalty chosen by inner CV.

    ``coef`` (p,) on the standardized scale; ``mse_path`` (n_l1_ratios, n_folds, n_alphas) the inner folds'
    held-out mean squared errors; ``max_gap`` the largest duality gap over every path solved, and ``gap``
    the final fit's, both relative to ``||y||^2 / n`` of their own problem (at most ``tol`` unless the
    epoch limit was reached)."""

    coef: np.ndarray
    alpha: float
    l1_ratio: float
    alphas: np.ndarray
    mse_path: np.ndarray
    gap: float
    max_gap: float
    epochs: int


def fit_cv(X, y, folds, l1_ratios, n_alphas: int, positive: bool, tol: float = 1e-7,
           max_epochs: int = MAX_EPOCHS) -> RegularizedFit:
    """Choose (rho, alpha) by the inner ``folds`` (train, test index pairs) and refit on every row.

    X (n, p) and y (n,) as the model sees them (standardized, centered)."""
    X = np.ascontiguousarray(X, dtype=float)
    y = np.ascontiguousarray(y, dtype=float)
    n, p = X.shape
    G_all = _gram(X)
    Xy_all = X.T @ y
    ratios = [float(r) for r in l1_ratios]
    grids = np.array([alpha_grid(X, y, r, n_alphas, positive) for r in ratios])
    mse = np.empty((len(ratios), len(folds), n_alphas))
    max_gap, epochs = 0.0, 0
    for k, (train, test) in enumerate(folds):
        Xte, yte = X[test], y[test]
        nt = len(train)
        G = (G_all - Xte.T @ Xte) / nt
        c = (Xy_all - Xte.T @ yte) / nt
        yy = float(y[train] @ y[train]) / nt
        for i, r in enumerate(ratios):
            coefs, gaps, ep = _path(G, c, yy, grids[i], r, positive, tol, max_epochs)
            mse[i, k] = ((Xte @ coefs.T - yte[:, None]) ** 2).mean(axis=0)
            max_gap, epochs = max(max_gap, float(gaps.max()) / yy if yy > 0 else 0.0), epochs + int(ep.sum())
    mean = mse.mean(axis=1)
    best_i, best_a, best = 0, 0, np.inf
    for i in range(len(ratios)):  # scikit-learn's order: the first L1 ratio wins a tie
        a = int(np.argmin(mean[i]))
        if mean[i, a] < best:
            best_i, best_a, best = i, a, mean[i, a]
    yy = float(y @ y) / n
    coefs, gaps, ep = _path(G_all / n, Xy_all / n, yy, grids[best_i, :best_a + 1], ratios[best_i], positive,
                            tol, max_epochs)
    gap = float(gaps[-1]) / yy if yy > 0 else 0.0
    return RegularizedFit(coefs[-1].copy(), float(grids[best_i, best_a]), ratios[best_i], grids[best_i], mse, gap,
                          max(max_gap, gap), epochs + int(ep.sum()))


def warm_up() -> None:
    """Compile (or load from the cache) the kernels once, e.g. at install time."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 4))
    y = X[:, 0] + 0.1 * rng.normal(size=12)
    idx = np.arange(12)
    folds = [(idx[idx % 2 == 0], idx[idx % 2 == 1]), (idx[idx % 2 == 1], idx[idx % 2 == 0])]
    for positive in (False, True):
        fit_cv(X, y, folds, (1.0,), 3, positive)
