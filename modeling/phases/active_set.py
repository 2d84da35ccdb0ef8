"""An exact batched solver of the LACross problems (eq. 4.1): a primal active-set method per phase, compiled
(numba) and run over the phases on two threads.

Problem i (as in :mod:`modeling.phases.scqp`): minimize 1/2 theta^T Q_i theta - c_i^T theta subject to
theta >= 0 and sum(theta) <= T_i. In Jacobi-scaled variables phi = s * theta (s_k = sqrt(Q_kk), so the
scaled Hessian has a unit diagonal) the l1 bound reads a^T phi <= T with a = 1/s.

**Method** (Nocedal & Wright, Algorithm 16.3). Start at phi = 0 with every bound in the working set. Each
iteration solves the equality-constrained QP on the free variables (with a^T phi = T when the l1 bound is in
the working set): a Cholesky factorization of the free block and, with the bound, its Schur complement. A
step that would leave the feasible set stops at the first constraint it meets, which joins the working set.
At the minimum of the face (a step no constraint blocked, or a zero step) the multipliers of the working set
are computed (bounds: lambda_j = g_j + mu a_j with g = Q phi - c; the l1 bound: mu) and the most negative
one leaves; when none is negative the point satisfies the KKT conditions of the convex QP: it is the
optimum. A face whose Hessian is singular (neighbourhood systems are often nearly rank one) gets a ridge of
1e-12 on its unit diagonal, which makes the step follow the flat direction until a constraint stops it.

``found`` is False for a problem that used up ``max_iter`` iterations (none did on the shipped traces) or
whose final point fails the KKT check; :func:`modeling.phases.scqp.solve` finishes those.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from modeling.phases.pieces import run


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
def _leaving(Qs, cs, a, phi, free, tight, mu, tol, scale, g):
    """At the minimum of the current face: the working-set constraint whose multiplier is most negative
    (bounds: lambda_j = g_j + mu a_j with g = Qs phi - cs; the l1 bound: mu): its index, -1 for the l1 bound,
    -2 when none is below -tol * scale (the KKT conditions hold)."""
    d = cs.shape[0]
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
        which = -1
    return which


@njit(cache=True)
def _solve_one(Qs, cs, a, T, max_iter, tol, phi, free, idx, L, r1, r2, y1, y2, x, g, p):
    """One problem from phi = 0 into ``phi`` (the buffers are the caller's); returns (found, iterations).

    An iteration solves the equality-constrained QP of the working set and steps towards its solution. A
    step that no constraint blocks ends at the face's minimum, so the multipliers are examined at once (the
    same test that the next iteration's zero step would make, without solving the same system again)."""
    d = cs.shape[0]
    for j in range(d):
        phi[j] = 0.0
        free[j] = False
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
        at_minimum = step <= 1e-13 * big
        if not at_minimum:
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
            at_minimum = block == -2
        if at_minimum:
            which = _leaving(Qs, cs, a, phi, free, tight, mu, tol, scale, g)
            if which == -2:
                return True, it
            if which == -1:
                tight = False
            else:
                free[which] = True
                nf += 1
    return False, it


@njit(nogil=True, cache=True)
def _solve_range(Q, c, T, max_iter, tol, lo, hi, theta, found, iters):
    """Problems lo..hi-1, each Jacobi-scaled here (the scaling of :func:`modeling.phases.scaling.jacobi_scale`,
    by multiplying with 1 / s) and solved; theta = phi / s. The buffers are allocated once per piece."""
    d = c.shape[1]
    Qs = np.empty((d, d))
    cs = np.empty(d)
    inv = np.empty(d)  # 1 / s, which is also the l1 weights a of phi
    phi = np.empty(d)
    free = np.empty(d, np.bool_)
    idx = np.empty(d, np.int64)
    L = np.zeros((d, d))
    r1, r2, y1, y2 = np.zeros(d), np.zeros(d), np.zeros(d), np.zeros(d)
    x, g, p = np.zeros(d), np.zeros(d), np.zeros(d)
    for i in range(lo, hi):
        top = 1.0
        for k in range(d):
            top = max(top, Q[i, k, k])
        for k in range(d):
            q = Q[i, k, k]
            inv[k] = 1.0 / (np.sqrt(max(q, 1e-300)) if q > 1e-300 * top else 1.0)
        for r in range(d):
            for k in range(d):
                Qs[r, k] = Q[i, r, k] * inv[r] * inv[k]
            cs[r] = c[i, r] * inv[r]
        ok, it = _solve_one(Qs, cs, inv, T[i], max_iter, tol, phi, free, idx, L, r1, r2, y1, y2, x, g, p)
        for k in range(d):
            theta[i, k] = phi[k] * inv[k]
        found[i] = ok
        iters[i] = it


def solve_batch(Q, c, T, tol: float = 1e-9, max_iter: int | None = None):
    """Every problem i (Q[i], c[i], T[i]) by the active-set method (module docstring); returns
    (theta (B, d), found (B,), iterations (B,))."""
    B, d = c.shape
    Q, c = np.ascontiguousarray(Q, dtype=float), np.ascontiguousarray(c, dtype=float)
    T = np.ascontiguousarray(T, dtype=float)
    theta, found, iters = np.zeros((B, d)), np.zeros(B, np.bool_), np.zeros(B, np.int64)
    steps = max_iter or 20 * d + 50
    run(lambda lo, hi: _solve_range(Q, c, T, steps, tol, lo, hi, theta, found, iters), B)
    return theta, found, iters


def warm_up() -> None:
    """Compile (or load from the cache) the kernels once, e.g. at install time."""
    solve_batch(np.eye(3)[None], np.ones((1, 3)), np.ones(1))
