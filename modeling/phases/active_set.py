"""An exact batched solver of the LACross problems (eq. 4.1): a primal active-set method per phase, compiled
(numba) and run over the phases on two threads.

Problem i (as in :mod:`modeling.phases.scqp`): minimize 1/2 theta^T Q_i theta - c_i^T theta subject to
theta >= 0 and sum(theta) <= T_i. In Jacobi-scaled variables phi = s * theta (s_k = sqrt(Q_kk), so the
scaled Hessian has a unit diagonal) the l1 bound reads a^T phi <= T with a = 1/s.

**Method** (Nocedal & Wright, Algorithm 16.3). Start at phi = 0 with every bound in the working set. Each step
solves the equality-constrained QP on the free variables (with a^T phi = T when the l1 bound is in the working
set): a Cholesky factorization of the free block and, with the bound, its Schur complement. A step that would
leave the feasible set stops at the first constraint it meets, which joins the working set; at a point where
the step is zero, the multipliers of the working set are computed (bounds: lambda_j = g_j + mu a_j with g = Q
phi - c; the l1 bound: mu) and the most negative one leaves; when none is negative the point satisfies the KKT
conditions of the convex QP: it is the optimum. A face whose Hessian is singular (neighbourhood systems are
often nearly rank one) gets a ridge of 1e-12 on its unit diagonal, which makes the step follow the flat
direction until a constraint stops it.

``found`` is False for a problem that used up ``max_iter`` working-set changes (none did on the shipped
traces) or whose final point fails the KKT check; :func:`modeling.phases.scqp.solve` finishes those.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from modeling.phases.scaling import jacobi_scale

RIDGE = 1e-12


@njit(cache=True)
def _chol_solve(L, m, rhs, out):
    """Solve (L L^T) out = rhs for the leading m x m block (forward then back substitution)."""
    for i in range(m):
        v = rhs[i]
        for k in range(i):
            v -= L[i, k] * out[k]
        out[i] = v / L[i, i]
    for i in range(m - 1, -1, -1):
        v = out[i]
        for k in range(i + 1, m):
            v -= L[k, i] * out[k]
        out[i] = v / L[i, i]


@njit(cache=True)
def _eqp(Qs, cs, a, T, free, tight, nf, idx, L, r1, r2, y1, y2, x):
    """The equality-constrained QP on the free set into ``x`` (all d); returns mu (0 when the l1 bound is not
    in the working set). Cholesky of the free block (+ ridge); with the bound, the Schur complement:
    Q x + mu a = c, a^T x = T  ->  x = y1 - mu y2 with Q y1 = c, Q y2 = a, mu = (a^T y1 - T) / (a^T y2).
    Every buffer is preallocated by the caller: no allocation per step."""
    d = cs.shape[0]
    k = 0
    for j in range(d):
        if free[j]:
            idx[k] = j
            k += 1
    for i in range(nf):  # Cholesky of the free block, lower triangle
        for j in range(i + 1):
            v = Qs[idx[i], idx[j]]
            if i == j:
                v += RIDGE
            for q in range(j):
                v -= L[i, q] * L[j, q]
            if i == j:
                L[i, i] = np.sqrt(v) if v > 1e-300 else 1e-150
            else:
                L[i, j] = v / L[j, j]
    for i in range(nf):
        r1[i] = cs[idx[i]]
        r2[i] = a[idx[i]]
    _chol_solve(L, nf, r1, y1)
    mu = 0.0
    if tight:
        _chol_solve(L, nf, r2, y2)
        num, den = -T, 0.0
        for i in range(nf):
            num += r2[i] * y1[i]
            den += r2[i] * y2[i]
        mu = num / den if den > 0 else 0.0
    for j in range(d):
        x[j] = 0.0
    for i in range(nf):
        x[idx[i]] = y1[i] - mu * y2[i] if tight else y1[i]
    return mu


@njit(cache=True)
def _solve_one(Qs, cs, a, T, max_iter, tol):
    d = cs.shape[0]
    phi = np.zeros(d)
    free = np.zeros(d, np.bool_)
    idx = np.empty(d, np.int64)
    L = np.zeros((d, d))
    r1, r2, y1, y2 = np.zeros(d), np.zeros(d), np.zeros(d), np.zeros(d)
    x = np.zeros(d)
    g = np.zeros(d)
    p = np.zeros(d)
    tight = False
    nf = 0
    scale = 1.0
    for j in range(d):
        scale = max(scale, abs(cs[j]) + 1.0)
    it = 0
    for it in range(1, max_iter + 1):
        mu = 0.0
        if nf > 0:
            mu = _eqp(Qs, cs, a, T, free, tight, nf, idx, L, r1, r2, y1, y2, x)
        else:
            for j in range(d):
                x[j] = 0.0
        step = 0.0
        for j in range(d):
            p[j] = x[j] - phi[j]
            step = max(step, abs(p[j]))
        big = 1.0
        for j in range(d):
            big = max(big, abs(phi[j]))
        if step <= 1e-13 * big:
            # at the minimum of this face: multipliers of the working set
            for i in range(d):
                v = -cs[i]
                for j in range(d):
                    v += Qs[i, j] * phi[j]
                g[i] = v
            worst, which = -tol * scale, -2
            for j in range(d):
                if not free[j]:
                    lam = g[j] + mu * a[j]
                    if lam < worst:
                        worst, which = lam, j
            if tight and mu < worst:
                worst, which = mu, -1
            if which == -2:
                return phi, True, it
            if which == -1:
                tight = False
            else:
                free[which] = True
                nf += 1
            continue
        alpha, block = 1.0, -2
        for j in range(d):
            if free[j] and p[j] < 0.0:
                t = -phi[j] / p[j]
                if t < alpha:
                    alpha, block = t, j
        if not tight:
            ap = 0.0
            aphi = 0.0
            for j in range(d):
                ap += a[j] * p[j]
                aphi += a[j] * phi[j]
            if ap > 0.0:
                t = (T - aphi) / ap
                if t < alpha:
                    alpha, block = max(t, 0.0), -1
        for j in range(d):
            phi[j] += alpha * p[j]
        if block >= 0:
            phi[block] = 0.0
            free[block] = False
            nf -= 1
        elif block == -1:
            tight = True
        for j in range(d):  # rounding: stay feasible
            if phi[j] < 0.0:
                phi[j] = 0.0
    return phi, False, it


@njit(nogil=True, cache=True)
def _solve_range(Qs, cs, a, T, max_iter, tol, lo, hi, phi, found, iters):
    for i in range(lo, hi):
        x, ok, it = _solve_one(Qs[i], cs[i], a[i], T[i], max_iter, tol)
        phi[i] = x
        found[i] = ok
        iters[i] = it


#: problems per piece of work; pieces run on two Python threads (the compiled code releases the GIL), not on
#: numba's own threading layer, which is neither fork-safe (local jobs are forked) nor safe to enter from
#: two threads at once (a threads-pool worker runs two jobs in one process)
PIECE = 2048
THREADS = 2


def solve_batch(Q, c, T, tol: float = 1e-9, max_iter: int | None = None):
    """Every problem i (Q[i], c[i], T[i]) by the active-set method (module docstring); returns
    (theta (B, d), found (B,), working-set changes (B,))."""
    B, d = c.shape
    s, Qs, cs, a = (np.ascontiguousarray(v) for v in jacobi_scale(Q, c))
    T = np.ascontiguousarray(T, dtype=float)
    phi, found, iters = np.zeros((B, d)), np.zeros(B, np.bool_), np.zeros(B, np.int64)
    steps = max_iter or 20 * d + 50
    pieces = [(lo, min(lo + PIECE, B)) for lo in range(0, B, PIECE)]
    if len(pieces) == 1:
        _solve_range(Qs, cs, a, T, steps, tol, 0, B, phi, found, iters)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            list(pool.map(lambda r: _solve_range(Qs, cs, a, T, steps, tol, r[0], r[1], phi, found, iters), pieces))
    return phi / s, found, iters
