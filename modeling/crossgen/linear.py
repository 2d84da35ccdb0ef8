"""Least-squares building blocks shared by the linear models (HALWPE IV.A-C).

All fits use a free intercept (HALWPE eq. 1, beta_0) and work on centered and
scaled features: centering removes the intercept exactly, for OLS and for
NNLS alike (the optimal intercept is ``mean(y) - mean(X) @ beta`` for any
beta), and scaling by a positive standard deviation keeps the sign
constraints of NNLS intact. Coefficients are reported in original units.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import numpy as np
from cachetools import LRUCache
from scipy import linalg, optimize, stats

from modeling.errors import DataError

#: Relative tolerance of the pivoted QR that picks a numerically independent
#: subset of features: a column is kept while the part of it not explained by
#: the columns before it is at least RANK_RTOL of the largest column norm.
RANK_RTOL = 1e-7
#: RSS is floored at this fraction of the total sum of squares so that a
#: saturated (interpolating) fit yields a large but finite log-likelihood.
RSS_FLOOR = 1e-15


@dataclass
class Standardized:
    """Centered/scaled copy of a design matrix and target."""

    X: np.ndarray  # (n, p) centered and scaled
    y: np.ndarray  # (n,) centered
    x_mean: np.ndarray
    x_scale: np.ndarray  # 1.0 where a column is constant
    y_mean: float
    constant: np.ndarray  # bool mask of zero-variance columns


def standardize(X, y) -> Standardized:
    """Center and scale ``X`` (shape (n, p)) and center ``y`` (shape (n,))."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    mean = X.mean(axis=0)
    Xc = X - mean
    scale = np.sqrt((Xc**2).mean(axis=0))
    constant = scale <= 1e-12 * np.maximum(np.abs(mean), 1.0)
    scale = np.where(constant, 1.0, scale)
    Xs = Xc / scale
    Xs[:, constant] = 0.0
    ym = float(y.mean())
    return Standardized(Xs, y - ym, mean, scale, ym, constant)


def to_original(std: Standardized, beta_std: np.ndarray) -> tuple[np.ndarray, float]:
    """Map coefficients of the standardized problem back to original units."""
    coef = beta_std / std.x_scale
    coef[std.constant] = 0.0
    return coef, std.y_mean - float(std.x_mean @ coef)


def _array_key(a) -> tuple:
    a = np.ascontiguousarray(a)
    return a.shape, a.dtype.str, hashlib.blake2b(a.data, digest_size=16).digest()


def fold_memo(fn):
    """Keep the last few results of ``fn`` in this process, keyed by the arrays' contents.

    Several models of one CV fold start from the same factorization of the
    same standardized matrix (the pivoted QR of the full model, the full NNLS
    fit); the ensemble runs a fold's models one after another, so the second
    model of a fold in a process reuses the first one's result. Only those
    shared starts go through a memo (:func:`shared_independent_subset`,
    :func:`shared_nnls`): the fits of one model's own candidates are never
    repeated, and hashing them would only cost time and push the shared
    results out. Results are returned as copies, so a caller may change them.
    """
    cache = LRUCache(maxsize=8)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        key = (tuple(_array_key(a) if isinstance(a, np.ndarray) else a for a in args),
               tuple(sorted(kwargs.items())))
        out = cache.get(key)
        if out is None:
            out = cache[key] = fn(*args, **kwargs)
        return tuple(o.copy() if isinstance(o, np.ndarray) else o for o in out) if isinstance(out, tuple) \
            else out.copy()

    return wrapper


def independent_subset(Xs: np.ndarray, rtol: float = RANK_RTOL) -> np.ndarray:
    """Indices of a numerically independent subset of the columns of ``Xs``.

    Pivoted QR (Businger-Golub) orders columns by how much new direction each
    brings; columns are kept while ``|R_ii| >= rtol * |R_00|``. With more
    features than workloads the subset has at most ``n - 1`` columns (the
    intercept takes one degree of freedom): the full OLS model of HALWPE then
    interpolates the training data, which is the overfitting the paper reports.
    """
    n, p = Xs.shape
    if p == 0:
        return np.zeros(0, dtype=int)
    R, piv = linalg.qr(Xs, mode="r", pivoting=True)  # Q is not needed: R alone costs less
    d = np.abs(np.diag(R))
    if d.size == 0 or d[0] == 0:
        return np.zeros(0, dtype=int)
    rank = int(np.sum(d >= rtol * d[0]))
    rank = min(rank, n - 1)
    return np.sort(piv[:rank])


def log_likelihood(rss: float, n: int, tss: float) -> float:
    """Gaussian log-likelihood at the MLE variance (statsmodels' ``llf``)."""
    rss = max(rss, RSS_FLOOR * max(tss, np.finfo(float).tiny))
    return -0.5 * n * (np.log(2 * np.pi) + np.log(rss / n) + 1.0)


def information_criterion(rss: float, n: int, k_params: int, tss: float, kind: str) -> float:
    """AIC or BIC as statsmodels computes them for OLS (k counts the intercept)."""
    llf = log_likelihood(rss, n, tss)
    if kind == "aic":
        return -2.0 * llf + 2.0 * k_params
    if kind == "bic":
        return -2.0 * llf + np.log(n) * k_params
    raise ValueError(f"unknown criterion {kind!r}")


@dataclass
class OLSStats:
    """Classical OLS inference for a fitted subset (HALWPE IV.D p-values).

    ``coef``, ``stderr``, ``tvalues``, ``pvalues`` have shape (k,), in the order
    of ``columns``; inference is NaN when the fit has no residual degrees of
    freedom (saturated model).
    """

    columns: np.ndarray
    coef: np.ndarray
    intercept: float
    stderr: np.ndarray
    tvalues: np.ndarray
    pvalues: np.ndarray
    rss: float
    df_resid: int
    aic: float
    bic: float
    r2: float


def ols_stats(X, y, columns=None) -> OLSStats:
    """Fit OLS with intercept on ``X[:, columns]`` and return t-test inference.

    Matches statsmodels ``OLS(y, add_constant(X)).fit()`` for coefficients,
    p-values, AIC and BIC.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    cols = np.arange(X.shape[1]) if columns is None else np.asarray(columns, dtype=int)
    n = len(y)
    Xc = X[:, cols] - X[:, cols].mean(axis=0)
    yc = y - y.mean()
    k = len(cols)
    if k:
        Q, R = linalg.qr(Xc, mode="economic")
        coef = linalg.solve_triangular(R, Q.T @ yc)
        resid = yc - Xc @ coef
    else:
        coef = np.zeros(0)
        resid = yc
    rss = float(resid @ resid)
    tss = float(yc @ yc)
    df = n - k - 1
    if k and df > 0:
        sigma2 = rss / df
        Rinv = linalg.solve_triangular(R, np.eye(k))
        se = np.sqrt(sigma2 * np.sum(Rinv**2, axis=1))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = coef / se
        p = 2.0 * stats.t.sf(np.abs(t), df)
    else:
        se = t = p = np.full(k, np.nan)
    intercept = float(y.mean() - X[:, cols].mean(axis=0) @ coef) if k else float(y.mean())
    return OLSStats(cols, coef, intercept, se, t, p, rss, df,
                    information_criterion(rss, n, k + 1, tss, "aic"),
                    information_criterion(rss, n, k + 1, tss, "bic"),
                    1.0 - rss / tss if tss > 0 else np.nan)


def nnls(A: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, float]:
    """Non-negative least squares ``min ||A x - b||^2, x >= 0`` (Lawson-Hanson).

    Returns the solution and its residual sum of squares.
    """
    if A.shape[1] == 0:
        return np.zeros(0), float(b @ b)
    try:
        x, _ = optimize.nnls(A, b, maxiter=50 * A.shape[1] + 100)
    except RuntimeError as exc:  # iteration limit on a degenerate problem
        raise DataError(f"NNLS did not converge ({exc}); the features may be nearly collinear.") from exc
    r = b - A @ x
    return x, float(r @ r)


#: For the matrices several models of a CV fold start from (see :func:`fold_memo`).
shared_independent_subset = fold_memo(independent_subset)
shared_nnls = fold_memo(nnls)
