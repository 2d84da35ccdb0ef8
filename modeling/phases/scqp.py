"""Batched simplex-constrained quadratic programs (LACross eq. 4.1), one per test phase.

Each problem i: minimize f_i(theta) = 1/2 theta^T Q_i theta - c_i^T theta subject to theta >= 0 and
sum(theta) <= T_i. For LACross, Q_i = X^T D(v_i) X / n and c_i = X^T D(v_i) Y / n over the training phases
in v_i's neighbourhood (eq. 4.1 expanded; the constant 1/2n Y^T D Y is left out of the objective).

The shape follows qpsolvers: a :class:`Problem` holds all phases' d x d systems at once and
:func:`solve` returns a :class:`Solution` with theta,
found, objective, primal residual and iterations per problem.

**Method.** :func:`solve` uses, by default, the exact batched active-set method of
:mod:`modeling.phases.active_set` (compiled, the phases split over two threads) and finishes any problem it leaves
unsolved with the accelerated projected gradient below (``method="apg"`` uses only the latter).

**Projected gradient.** Accelerated projected gradient (FISTA with adaptive restart) in Jacobi-scaled variables
phi = s * theta, s_k = sqrt(Q_kk) (the scaled Hessian has a unit diagonal, so raw counts and rates converge
alike). The feasible set becomes {phi >= 0, sum(phi_k / s_k) <= T}; its exact Euclidean projection is
:func:`project_weighted_simplex`. Step 1/L with L the largest eigenvalue of the scaled Hessian.

**Convergence criterion.** Problem i stops when its gradient mapping
G = L (phi - P(phi - grad/L)) satisfies max|G| <= tol * (1 + max|c_scaled|): the first-order optimality
condition in scaled units (G = 0 exactly at the optimum). ``found`` is False for problems that reach
``max_iter`` first. (A Frank-Wolfe duality-gap rule, which certifies the objective, took about 5x more
iterations on the shipped neighbourhood systems for the same objective accuracy against OSQP.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modeling.errors import DataError
from modeling.phases.scaling import jacobi_scale


def _all_finite(a: np.ndarray) -> bool:
    """No NaN or infinity in ``a`` (a finite sum settles it in one pass: either would carry into the sum; an
    infinite sum of finite entries that overflowed is checked entry by entry)."""
    return bool(np.isfinite(a.sum()) or np.all(np.isfinite(a)))


@dataclass
class Problem:
    """B problems of dimension d: Q (B, d, d) symmetric PSD, c (B, d), T (B,) l1 bounds (> 0)."""

    Q: np.ndarray
    c: np.ndarray
    T: np.ndarray

    def __post_init__(self):
        self.Q = np.asarray(self.Q, float)
        self.c = np.asarray(self.c, float)
        B, d = self.c.shape
        self.T = np.broadcast_to(np.asarray(self.T, float), (B,)).copy()
        if self.Q.shape != (B, d, d):
            raise DataError(f"Q has shape {self.Q.shape}; expected {(B, d, d)}.")
        if not (_all_finite(self.Q) and _all_finite(self.c) and _all_finite(self.T)):
            raise DataError("The problems have NaN or infinite entries.")
        if np.any(self.T <= 0):
            raise DataError("The l1 bound T must be positive.")

    def objective(self, theta) -> np.ndarray:
        theta = np.asarray(theta, float)
        return (0.5 * np.einsum("bi,bij,bj->b", theta, self.Q, theta, optimize=True)
                - np.einsum("bi,bi->b", self.c, theta))


@dataclass
class Solution:
    theta: np.ndarray  # (B, d)
    found: np.ndarray  # (B,) bool
    objective: np.ndarray  # (B,)
    primal_residual: np.ndarray  # (B,) max violation of theta >= 0 and sum(theta) <= T
    iterations: np.ndarray  # (B,) int


def project_weighted_simplex(v: np.ndarray, a: np.ndarray, T: np.ndarray) -> np.ndarray:
    """Exact Euclidean projection of each row of v onto {x >= 0, sum(a * x) <= T} (a > 0), batched.

    If the clipped point max(v, 0) is feasible it is the projection; otherwise x = max(v - lam a, 0) with the
    unique lam > 0 making sum(a x) = T, found from the sorted breakpoints v_k / a_k.
    """
    v = np.asarray(v, float)
    a = np.broadcast_to(np.asarray(a, float), v.shape)
    T = np.asarray(T, float).reshape(-1)
    x = np.maximum(v, 0.0)
    over = (a * x).sum(axis=1) > T
    if not over.any():
        return x
    vv, aa, TT = v[over], a[over], T[over]
    order = np.argsort(-vv / aa, axis=1)
    vs = np.take_along_axis(vv, order, axis=1)
    as_ = np.take_along_axis(aa, order, axis=1)
    num = np.cumsum(as_ * vs, axis=1) - TT[:, None]
    den = np.cumsum(as_ * as_, axis=1)
    lam = num / den
    ok = vs / as_ > lam  # k in the active set for the candidate of size k+1
    j = ok.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1)  # the largest active size
    lam_star = lam[np.arange(len(j)), j]
    x[over] = np.maximum(vv - lam_star[:, None] * aa, 0.0)
    return x


def solve(problem: Problem, tol: float = 1e-9, max_iter: int = 10000, theta0=None, polish: bool = True,
          method: str = "active-set") -> Solution:
    """All problems at once: the active-set method, then projected gradient for any it left unsolved
    (``method="active-set"``), or projected gradient only (``"apg"``; module docstring)."""
    if method == "active-set":
        sol = solve_active_set(problem, tol=tol)
        rest = np.flatnonzero(~sol.found)
        if rest.size:
            sub = solve(Problem(problem.Q[rest], problem.c[rest], problem.T[rest]), tol, max_iter,
                        sol.theta[rest], polish, method="apg")
            for name in ("theta", "found", "objective", "primal_residual"):
                getattr(sol, name)[rest] = getattr(sub, name)
            sol.iterations[rest] += sub.iterations
        return sol
    if method != "apg":
        raise DataError(f"unknown solver method {method!r} (active-set or apg)")
    return _solve_apg(problem, tol, max_iter, theta0, polish)


def solve_active_set(problem: Problem, tol: float = 1e-9) -> Solution:
    """The exact active-set method alone (:mod:`modeling.phases.active_set`); ``found`` False where it did not
    finish."""
    from modeling.phases.active_set import solve_batch  # compiled: loaded by the first job that solves

    theta, found, iters = solve_batch(problem.Q, problem.c, problem.T, tol)
    return _solution(problem, theta, found, iters)


def _solution(problem: Problem, theta, found, iters) -> Solution:
    """A Solution with the objective and the largest violation of theta >= 0 and sum(theta) <= T."""
    resid = np.maximum(np.maximum(-theta.min(axis=1), 0.0), theta.sum(axis=1) - problem.T)
    return Solution(theta, found, problem.objective(theta), np.maximum(resid, 0.0), iters)


def _solve_apg(problem: Problem, tol: float, max_iter: int, theta0, polish: bool) -> Solution:
    """Accelerated projected gradient on all problems at once (module docstring); ``polish``: every 25
    iterations from the 50th, try the exact solution on the iterate's support (:func:`_polish`)."""
    Q, c, T = problem.Q, problem.c, problem.T
    B, d = c.shape
    s, Qs, cs, a = jacobi_scale(Q, c)
    L = np.linalg.eigvalsh(Qs)[:, -1]
    L = np.maximum(L, 1e-12)
    scale = 1.0 + np.abs(cs).max(axis=1)
    phi = np.zeros((B, d)) if theta0 is None else project_weighted_simplex(np.asarray(theta0, float) * s, a, T)
    y = phi.copy()
    t = np.ones(B)
    iters = np.zeros(B, int)
    active = np.arange(B)
    found = np.zeros(B, bool)
    for k in range(max_iter):
        if active.size == 0:
            break
        Qa, ca, aa, Ta, La = Qs[active], cs[active], a[active], T[active], L[active]
        ya, pa = y[active], phi[active]
        g = np.einsum("bij,bj->bi", Qa, ya) - ca
        new = project_weighted_simplex(ya - g / La[:, None], aa, Ta)
        # adaptive restart (O'Donoghue & Candes): drop the momentum when it points uphill
        restart = np.einsum("bi,bi->b", ya - new, new - pa) > 0
        tn = 0.5 * (1 + np.sqrt(1 + 4 * t[active] ** 2))
        beta = np.where(restart, 0.0, (t[active] - 1) / tn)
        t[active] = np.where(restart, 1.0, tn)
        y[active] = new + beta[:, None] * (new - pa)
        phi[active] = new
        iters[active] += 1
        if k % 5 == 4 or k == max_iter - 1:  # check optimality every few steps (it costs one more gradient)
            gn = np.einsum("bij,bj->bi", Qa, new) - ca
            G = La[:, None] * (new - project_weighted_simplex(new - gn / La[:, None], aa, Ta))
            done = np.abs(G).max(axis=1) <= tol * scale[active]
            if polish and k >= 49 and k % 25 == 24:  # the support has usually settled: try the exact finish
                exact, ok = _polish(Qa, ca, aa, Ta, new)
                ok &= ~done
                phi[active[ok]] = exact[ok]
                done |= ok
            found[active[done]] = True
            y[active[done]] = phi[active[done]]
            active = active[~done]
    theta = phi / s
    return _solution(problem, theta, found, iters)


def solve_exact(Q: np.ndarray, c: np.ndarray, T: float, tol: float = 1e-12) -> np.ndarray:
    """One problem, by another route: NNLS on the Cholesky factor for the l1 multiplier mu, and bisection on
    mu until sum(theta) = T (or mu = 0 when the bound is slack). The independent reference of the tests."""
    from scipy.optimize import nnls

    Q = np.asarray(Q, float)
    d = len(c)
    R = np.linalg.cholesky(Q + 1e-12 * np.trace(Q) / d * np.eye(d)).T  # Q = R^T R

    def theta(mu):
        rhs = np.linalg.solve(R.T, np.asarray(c, float) - mu)  # min 1/2|R th - rhs|^2 = f + mu sum(th) + const
        return nnls(R, rhs, maxiter=50 * d)[0]

    th = theta(0.0)
    if th.sum() <= T:
        return th
    lo, hi = 0.0, 1.0
    while theta(hi).sum() > T:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if theta(mid).sum() > T:
            lo = mid
        else:
            hi = mid
        if hi - lo <= tol * max(1.0, hi):
            break
    return theta(hi)



def _polish(Qs, cs, a, T, phi):
    """Exact solution on the active set guessed from ``phi`` (scaled variables), batched.

    The support J = {k: phi_k > 0} and whether the l1 bound is tight are read from the iterate; the KKT
    system of the equality-constrained QP on them is solved exactly. A problem accepts the result only when
    it is feasible and its multipliers have the right signs: then it is the optimum (KKT conditions of a
    convex QP), up to rounding."""
    B, d = cs.shape
    J = phi > 1e-9 * np.maximum(phi.max(axis=1, keepdims=True), 1e-300)
    tight = (a * phi).sum(axis=1) >= T * (1 - 1e-6)
    K = np.zeros((B, d + 1, d + 1))
    K[:, :d, :d] = np.where(J[:, :, None] & J[:, None, :], Qs, 0.0)
    # (scaled Hessians have a unit diagonal: 1e-12 keeps an exactly singular face from failing the whole batch;
    # a face that is singular in fact gives a point that fails the checks below and is left to the iterations)
    K[:, np.arange(d), np.arange(d)] = np.where(J, np.einsum("bii->bi", Qs) + 1e-12, 1.0)
    aj = np.where(J & tight[:, None], a, 0.0)
    K[:, :d, d] = aj
    K[:, d, :d] = aj
    K[:, d, d] = np.where(tight, 0.0, 1.0)
    rhs = np.concatenate([np.where(J, cs, 0.0), np.where(tight, T, 0.0)[:, None]], axis=1)
    ok = np.zeros(B, bool)
    x = phi.copy()
    try:
        sol = np.linalg.solve(K, rhs[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:  # still singular somewhere in the batch: polish none of them this time
        return x, ok
    xs, mu = sol[:, :d], np.where(tight, sol[:, d], 0.0)
    g = np.einsum("bij,bj->bi", Qs, xs) - cs  # optimality: g + mu a = 0 on J, >= 0 off J, mu >= 0
    kkt = g + mu[:, None] * a
    tol = 1e-9 * (1.0 + np.abs(cs).max(axis=1))
    ok = (np.all(np.isfinite(sol), axis=1) & np.all(xs >= 0, axis=1) & (mu >= -tol)
          & ((a * xs).sum(axis=1) <= T * (1 + 1e-12))
          & np.all(np.where(J, np.abs(kkt) <= tol[:, None], kkt >= -tol[:, None]), axis=1))
    x[ok] = xs[ok]
    return x, ok
