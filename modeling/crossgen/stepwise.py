"""Forward and backward stepwise selection by AIC/BIC (HALWPE IV.D, RastSim 4.1).

Four selectors, {forward, backward} x {AIC, BIC}, each with an OLS or an NNLS
fit, as in HALWPE Fig. 5. The criterion is statsmodels' AIC/BIC for a Gaussian
linear model with ``k`` parameters (selected features + intercept); R's
``step()`` differs only by a constant, so it selects the same features.

Speed (the straightforward way refits a model for every candidate at every
step):

* OLS forward keeps every candidate orthogonalized against the selected
  columns (modified Gram-Schmidt); the RSS after adding column ``j`` is then
  ``RSS - (z_j . r)^2 / (z_j . z_j)`` for all candidates in one matrix product.
* OLS backward keeps ``G = (X_S' X_S)^-1`` and the coefficients; removing ``j``
  raises the RSS by ``b_j^2 / G_jj`` and G is downdated in O(k^2). Every 25
  removals G is recomputed from a QR factor: the R of ``X_S`` once at the start,
  then, while that R is well conditioned (estimated condition number below
  ``WELL_CONDITIONED``, 1e4), the R of the previous R's kept columns: a k x k QR
  instead of an n x k one, the same factor without touching the n rows again.
  The two routes round differently, by about the condition number times the
  machine epsilon; on ill-conditioned tables (the shipped counters reach 1e7)
  that difference can reorder near-equal removals, so there the n x k QR is
  kept and the selections stay those of the straightforward refresh.
* NNLS variants bound each candidate's NNLS RSS from below by the OLS RSS of
  the same column set (a larger feasible set can only fit better) and from
  above by a one-coordinate step; candidates are solved exactly in order of
  their lower bound and the search stops once the best exact RSS is at or below
  the next lower bound, so the chosen candidate is the exact best.

An NNLS model's size ``k`` counts its non-zero coefficients: a feature whose
coefficient NNLS drives to zero leaves the model without changing its fit.
Candidates of one step are compared by RSS (at equal size, the criterion
orders them the same way); the step is taken when it lowers the criterion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import linalg

from modeling.crossgen.linear import (
    RSS_FLOOR,
    Standardized,
    independent_subset,
    information_criterion,
    nnls,
    shared_independent_subset,
    shared_nnls,
)

_ZERO = 1e-10  # relative norm below which an orthogonalized candidate is collinear


def subtract_outer(Z, q, c):
    """``Z -= outer(q, c)`` in place (compiled; numba is loaded by the first fit, not at import)."""
    from modeling.crossgen.inplace import subtract_outer as compiled

    compiled(Z, q, c)


def downdate(G, g, gjj):
    """``G -= outer(g, g) / gjj`` in place (compiled, as :func:`subtract_outer`)."""
    from modeling.crossgen.inplace import downdate as compiled

    compiled(G, g, gjj)


@dataclass
class StepRecord:
    """One row of the R-style step table."""

    step: int
    action: str  # "start", "+ feature", "- feature"
    feature: int | None
    n_features: int
    rss: float
    criterion: float

    def to_dict(self, names=None) -> dict:
        name = None if self.feature is None else (names[self.feature] if names is not None else int(self.feature))
        return {"step": self.step, "action": self.action, "feature": name,
                "n_features": int(self.n_features), "rss": float(self.rss), "criterion": float(self.criterion)}


@dataclass
class Selection:
    selected: np.ndarray
    beta: np.ndarray  # standardized coefficients of the selected columns
    steps: list[StepRecord] = field(default_factory=list)
    n_candidates_solved: int = 0  # NNLS solves spent (for the benchmark)


def _crit(rss, n, k, tss, kind):
    return information_criterion(rss, n, k + 1, tss, kind)


FULL_START = "start: all independent columns"
#: A start leaves at least this many residual degrees of freedom, and at least a quarter of n.
MIN_RESIDUAL_DF = 10


def saturated(n: int, k: int) -> bool:
    """True when a model of ``k`` columns leaves fewer than ``max(10, n/4)`` residual degrees of freedom."""
    return n - k < max(MIN_RESIDUAL_DF, math.ceil(n / 4))


def backward_start(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, str]:
    """The columns backward elimination starts from, and a note saying how they were chosen.

    HALWPE and RastSim start backward selection from the full model. With more
    features than workloads (577 counters, 364 workloads) the full model
    interpolates: its RSS sits at the floor, every removal raises AIC/BIC, and
    elimination never takes a step. So when the full (independent) model would
    leave fewer than ``max(10, n/4)`` residual degrees of freedom, the start is
    instead the ``k = floor(n / ln n)`` columns most correlated with the target
    (sure independence screening, Fan and Lv 2008, with their screening size),
    reduced to an independent subset. A prefix of the greedy forward path would
    not do: it packs the start with the columns that fit the noise best, and
    elimination stays stuck there. Otherwise the start is the full model, as in
    the papers.
    """
    n = X.shape[0]
    S = shared_independent_subset(X)
    if not saturated(n, S.size):
        return S, FULL_START
    k = max(1, min(int(n / math.log(n)), n - max(MIN_RESIDUAL_DF, math.ceil(n / 4))))
    norms = np.sqrt(np.einsum("ij,ij->j", X, X))
    corr = np.abs(X.T @ y) / np.where(norms > 0, norms, np.inf)
    top = np.sort(np.argsort(-corr, kind="stable")[:k])
    top = top[shared_independent_subset(X[:, top])]
    return top, f"start: the {top.size} columns most correlated with the target (screening; n - k = {n - top.size})"


# ----------------------------------------------------------------------- OLS
def ols_forward(std: Standardized, criterion: str, max_steps: int | None = None) -> Selection:
    """Forward stepwise OLS; returns the selected columns (in order added)."""
    X, y = std.X, std.y
    n, p = X.shape
    tss = float(y @ y)
    limit = min(n - 2, p) if max_steps is None else min(max_steps, n - 2, p)
    Z = X.copy()
    norm0 = np.einsum("ij,ij->j", X, X)
    active = norm0 > 0
    r = y.copy()
    rss = tss
    sel: list[int] = []
    crit = _crit(rss, n, 0, tss, criterion)
    steps = [StepRecord(0, "start", None, 0, rss, crit)]
    while len(sel) < limit:  # max_steps (benchmarks) caps the number of steps
        zz = np.einsum("ij,ij->j", Z, Z)
        ok = active & (zz > _ZERO * norm0)
        if not ok.any():
            break
        zr = Z.T @ r
        gain = np.where(ok, zr**2 / np.where(ok, zz, 1.0), -np.inf)
        j = int(np.argmax(gain))
        new_rss = max(rss - gain[j], 0.0)
        new_crit = _crit(new_rss, n, len(sel) + 1, tss, criterion)
        if not new_crit < crit:
            break
        q = Z[:, j] / np.sqrt(zz[j])
        r -= q * (q @ r)
        subtract_outer(Z, q, q @ Z)
        active[j] = False
        sel.append(j)
        rss, crit = new_rss, new_crit
        steps.append(StepRecord(len(steps), "+", j, len(sel), rss, crit))
    idx = np.array(sel, dtype=int)
    beta = _ols_beta(X, y, idx)
    return Selection(idx, beta, steps)


def _ols_beta(X, y, idx):
    if idx.size == 0:
        return np.zeros(0)
    return linalg.lstsq(X[:, idx], y, lapack_driver="gelsy")[0]


def _r_factor(A: np.ndarray) -> np.ndarray:
    """The square R of a QR factorization of ``A`` (rows >= columns)."""
    return linalg.qr(A, mode="r")[0][: A.shape[1]]


#: Below this estimated condition number of R the k x k refresh is used (see :func:`ols_backward`).
WELL_CONDITIONED = 1e4


def _well_conditioned(R: np.ndarray) -> bool:
    """Is the triangular ``R`` well conditioned (LAPACK's 1-norm estimate, O(k^2))?"""
    rcond, info = linalg.lapack.dtrcon(R, norm="1", uplo="U")
    return info == 0 and rcond * WELL_CONDITIONED > 1.0


def _inverse_from_r(R: np.ndarray) -> np.ndarray:
    """``(A'A)^-1 = R^-1 R^-T`` for ``A = QR``."""
    Rinv = linalg.solve_triangular(R, np.eye(R.shape[0]))
    return Rinv @ Rinv.T


def _inverse_gram(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return _inverse_from_r(_r_factor(X[:, idx]))


def ols_backward(std: Standardized, criterion: str, max_steps: int | None = None) -> Selection:
    """Backward stepwise OLS from the full independent model, or on saturated problems from
    the start :func:`backward_start` chooses (shown in the first step's action)."""
    X, y = std.X, std.y
    n = X.shape[0]
    tss = float(y @ y)
    S, note = backward_start(X, y)
    if S.size == 0:
        return Selection(S, np.zeros(0), [StepRecord(0, note, None, 0, tss, _crit(tss, n, 0, tss, criterion))])
    R = _r_factor(X[:, S])
    R_cols = S.copy()  # the columns of X that R factors, in order
    G = _inverse_from_r(R)
    b = G @ (X[:, S].T @ y)
    res = y - X[:, S] @ b
    rss = float(res @ res)
    crit = _crit(rss, n, S.size, tss, criterion)
    steps = [StepRecord(0, note, None, int(S.size), rss, crit)]
    # G and b keep the size of the last refresh; a removed position is zeroed and never chosen again
    live = np.ones(S.size, dtype=bool)
    since_refresh = 0
    while live.any() and (max_steps is None or len(steps) <= max_steps):
        k = int(live.sum())
        d = np.diag(G)
        delta = b**2 / np.maximum(d, np.finfo(float).tiny)
        delta[~live] = np.inf
        j = int(np.argmin(delta))
        new_rss = rss + float(delta[j])
        new_crit = _crit(new_rss, n, k - 1, tss, criterion)
        if not new_crit < crit:
            break
        gjj = G[j, j]
        g = G[:, j].copy()
        b -= g * (b[j] / gjj)
        downdate(G, g, gjj)  # G -= outer(g, g) / gjj in place: the same arithmetic as on the kept block
        G[j, :] = 0.0
        G[:, j] = 0.0
        b[j] = 0.0
        live[j] = False
        removed = int(S[j])
        since_refresh += 1
        if since_refresh >= 25 and live.any():  # limit drift of the downdates
            # R of the remaining columns from the kept columns of the last R (Q'X_S = R[:, kept], so a QR
            # of that k x k matrix gives the R of X_S): O(k^3), never touching the n rows
            S, live = S[live], np.ones(k - 1, dtype=bool)
            R = _r_factor(R[:, np.isin(R_cols, S)] if _well_conditioned(R) else X[:, S])
            R_cols = S
            G = _inverse_from_r(R)
            b = G @ (X[:, S].T @ y)
            res = y - X[:, S] @ b
            new_rss = float(res @ res)
            new_crit = _crit(new_rss, n, S.size, tss, criterion)
            since_refresh = 0
        rss, crit = new_rss, new_crit
        steps.append(StepRecord(len(steps), "-", removed, int(live.sum()), rss, crit))
    S = S[live]
    idx = np.array(sorted(S), dtype=int)
    return Selection(idx, _ols_beta(X, y, idx), steps)


# ---------------------------------------------------------------------- NNLS
class _OLSBounds:
    """OLS RSS of ``A + {j}`` for every candidate j (lower bounds for NNLS), kept across steps.

    Holds every column orthogonalized against the active set A (``Z``) and the
    OLS residual of A (``r``). A step that appends one column to A updates both
    by one modified Gram-Schmidt step, O(n p); any other change of A starts
    again from a QR of ``X[:, A]``. The bounds agree with a fresh projection to
    rounding.
    """

    def __init__(self, X, y, norm2):
        self.X, self.y, self.norm2 = X, y, norm2
        self.reset(np.zeros(0, dtype=int))

    def reset(self, A: np.ndarray) -> None:
        X, y = self.X, self.y
        if A.size:
            Q = linalg.qr(X[:, A], mode="economic")[0]
            self.Z = X - Q @ (Q.T @ X)
            self.r = y - Q @ (Q.T @ y)
        else:
            self.Z = X.copy()
            self.r = y.copy()
        self.A = A.copy()
        self._norms()

    def _norms(self) -> None:
        self.zz = np.einsum("ij,ij->j", self.Z, self.Z)

    def move_to(self, A: np.ndarray) -> None:
        """Follow the active set to ``A``."""
        if A.size == self.A.size + 1 and np.array_equal(A[:-1], self.A):
            j = int(A[-1])
            q = self.Z[:, j] / np.sqrt(self.zz[j])
            self.r -= q * (q @ self.r)
            subtract_outer(self.Z, q, q @ self.Z)
            self.A = A.copy()
            self._norms()
        elif not np.array_equal(A, self.A):
            self.reset(A)

    def lower(self, cand: np.ndarray) -> np.ndarray:
        rss0 = float(self.r @ self.r)
        zz = self.zz[cand]
        zr = self.Z[:, cand].T @ self.r
        gain = np.where(zz > _ZERO * self.norm2[cand], zr**2 / np.where(zz > 0, zz, 1.0), 0.0)
        return np.maximum(rss0 - gain, 0.0)


def _positive_ols(X, y, cols):
    """(RSS, (cols, beta)) of OLS on ``cols`` when every coefficient is positive, else None.

    An NNLS problem whose unconstrained least-squares solution is strictly
    positive has that solution as its optimum (no constraint is active).
    """
    beta, _, rank, _ = linalg.lstsq(X[:, cols], y, lapack_driver="gelsy", check_finite=False)
    if rank < len(cols) or beta.min() <= 0:  # dependent columns: leave it to the NNLS solver
        return None
    r = y - X[:, cols] @ beta
    return float(r @ r), (cols, beta)


def _solve_in_order(lower, upper, solve):
    """Exact argmin of ``solve(i)`` given lower/upper bounds (branch and bound)."""
    order = np.argsort(lower, kind="stable")
    cutoff = float(np.min(upper)) if len(upper) else np.inf
    best_i, best_val, best_sol, solved = None, np.inf, None, 0
    for i in order:
        if best_i is not None and (lower[i] >= best_val or lower[i] > cutoff):
            break
        val, sol = solve(int(i))
        solved += 1
        if val < best_val:
            best_i, best_val, best_sol = int(i), val, sol
    return best_i, best_val, best_sol, solved


def nnls_forward(std: Standardized, criterion: str, max_steps: int | None = None) -> Selection:
    """Forward stepwise NNLS (exact best candidate per step, see module notes)."""
    X, y = std.X, std.y
    n, p = X.shape
    tss = float(y @ y)
    norm2 = np.einsum("ij,ij->j", X, X)
    A = np.zeros(0, dtype=int)
    beta = np.zeros(0)
    rss = tss
    crit = _crit(rss, n, 0, tss, criterion)
    steps = [StepRecord(0, "start", None, 0, rss, crit)]
    solved = 0
    bounds = _OLSBounds(X, y, norm2)
    while A.size < min(n - 2, p) and (max_steps is None or len(steps) <= max_steps):
        resid = y - X[:, A] @ beta
        grad = X.T @ resid
        mask = (grad > 1e-12 * np.sqrt(tss * np.maximum(norm2, 1e-300))) & (norm2 > 0)
        mask[A] = False
        cand = np.flatnonzero(mask)
        if cand.size == 0:
            break
        bounds.move_to(A)
        lower = bounds.lower(cand)
        upper = rss - grad[cand] ** 2 / norm2[cand]

        def solve(i):
            cols = np.append(A, cand[i])
            ols = _positive_ols(X, y, cols)
            if ols is not None:  # interior optimum: the NNLS solution, no active-set iterations
                return ols
            x, r = nnls(X[:, cols], y)
            return r, (cols, x)

        _, new_rss, (cols, x), k = _solve_in_order(lower, upper, solve)
        solved += k
        keep = x > 0
        new_A, new_beta = cols[keep], x[keep]
        new_crit = _crit(new_rss, n, new_A.size, tss, criterion)
        if not new_crit < crit:
            break
        added = int(cols[-1])
        A, beta, rss, crit = new_A, new_beta, new_rss, new_crit
        steps.append(StepRecord(len(steps), "+", added, int(A.size), rss, crit))
    order = np.argsort(A)
    return Selection(A[order], beta[order], steps, solved)


def _drop(G: np.ndarray, j: int) -> np.ndarray:
    """Inverse Gram matrix without position j (rank-one downdate, O(k^2))."""
    keep = np.arange(G.shape[0]) != j
    gj = G[keep, j]
    return G[np.ix_(keep, keep)] - np.outer(gj, gj) / G[j, j]


def nnls_backward(std: Standardized, criterion: str, max_steps: int | None = None) -> Selection:
    """Backward stepwise NNLS from the full NNLS fit (exact best removal per step).

    The full fit's non-zero coefficients are the start, as in the papers, when
    they leave at least ``max(10, n/4)`` residual degrees of freedom; otherwise
    (a saturated fit, which no removal can improve by AIC/BIC) the start is the
    NNLS fit on :func:`backward_start`'s columns. The OLS lower bounds need
    ``(X_A' X_A)^-1`` for the active set A; it is downdated as columns leave
    and recomputed every 25 steps.
    """
    X, y = std.X, std.y
    n, p = X.shape
    tss = float(y @ y)
    x, rss = shared_nnls(X, y)  # the papers' start: NNLS on every column
    A = np.flatnonzero(x > 0)
    note = "start: the full NNLS fit"
    if saturated(n, A.size):  # no removal can improve AIC/BIC from an interpolating fit
        start, note = backward_start(X, y)
        xs, rss = shared_nnls(X[:, start], y)
        x = np.zeros(p)
        x[start] = xs
        A = start[xs > 0]
    beta = x[A]
    crit = _crit(rss, n, A.size, tss, criterion)
    steps = [StepRecord(0, note, None, int(A.size), rss, crit)]
    solved = 1
    G = None
    since_refresh = 0
    norm2 = np.einsum("ij,ij->j", X, X)
    while A.size and (max_steps is None or len(steps) <= max_steps):
        if G is None or since_refresh >= 25:
            G = _inverse_gram(X, A) if independent_subset(X[:, A], rtol=1e-10).size == A.size else None
            since_refresh = 0
        d = None if G is None else np.diag(G)
        have_ols = d is not None and bool(np.all(np.isfinite(d)) and np.all(d > 0))
        if have_ols:
            b = G @ (X[:, A].T @ y)
            r0 = y - X[:, A] @ b
            lower = float(r0 @ r0) + b**2 / d  # OLS RSS of A minus one column
        else:  # dependent active columns: the trivially valid bound
            lower = np.zeros(A.size)
        # feasible point: the current solution with coefficient j set to 0 (KKT: x_j . r = 0)
        upper = rss + beta**2 * norm2[A]

        def solve(i):
            cols = np.delete(A, i)
            if have_ols:
                # OLS without column i from the inverse Gram (rank-one downdate); when every
                # coefficient stays positive it is the NNLS solution and its RSS is lower[i]
                bi = np.delete(b - G[:, i] * (b[i] / d[i]), i)
                if bi.size and bi.min() > 0:
                    return float(lower[i]), (cols, bi)
            xx, r = nnls(X[:, cols], y)
            return r, (cols, xx)

        i, new_rss, (cols, xx), k = _solve_in_order(lower, upper, solve)
        solved += k
        keep = xx > 0
        new_A = cols[keep]
        new_crit = _crit(new_rss, n, new_A.size, tss, criterion)
        if not new_crit < crit:
            break
        removed = int(A[i])
        if G is not None:
            G = _drop(G, i)
            for pos in sorted(np.flatnonzero(~keep), reverse=True):
                G = _drop(G, int(pos))
            since_refresh += 1 + int((~keep).sum())
        A, beta, rss, crit = new_A, xx[keep], new_rss, new_crit
        steps.append(StepRecord(len(steps), "-", removed, int(A.size), rss, crit))
    return Selection(A, beta, steps, solved)


SELECTORS = {
    ("ols", "forward"): ols_forward,
    ("ols", "backward"): ols_backward,
    ("nnls", "forward"): nnls_forward,
    ("nnls", "backward"): nnls_backward,
}

__all__ = ["SELECTORS", "Selection", "StepRecord", "RSS_FLOOR"]
