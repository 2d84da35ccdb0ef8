"""The neighbourhood systems of LACross (eq. 4.1), compiled: for each test phase u, the training phases D(u)
within l2 distance eps of u (or the k nearest when fewer are), and Q = X_D^T X_D / |D|, c = X_D^T y_D / |D|.

Per block of 64 test phases the squared distances come from one matrix product (|x|^2 + |u|^2 - 2 u.x).
A phase's sums are those of its members' rows of P = [upper triangle of x x^T, x y] (119 numbers at d = 14).
Consecutive phases of a program are alike, and so are their neighbourhoods: when fewer rows joined or left
than the phase has members, its sums are the previous phase's plus the rows that joined minus those that
left; otherwise, and always for the first phase of a block (so rounding drifts over at most 64 updates),
they are summed afresh. Membership is kept one byte per training phase and compared eight at a time. On
the benchmark problems (982 training phases, neighbourhoods of 28 to 460) that adds about 72,000 rows for
10,000 phases in program order instead of 1.16 million.

**k nearest.** A phase with fewer than k members in eps takes its k nearest training phases. A threshold
keeps a few candidates: the largest distance to the previous phase's k nearest when the previous phase
fell back too (consecutive phases of a program are alike, so this often keeps exactly k), else the
2k/8-th smallest of every 8th distance (about 2k rows), counted first; a bounded max-heap picks the k
nearest among the candidates (among all rows, when the sample's threshold keeps fewer than k). Ties at the
k-th distance are broken by the order the heap meets the rows, as any selection must break them.

Compiled with numba (``cache=True``, warmed by ``./run.sh`` / ``./test.sh``); pieces of the batch run on two
Python threads (:mod:`modeling.phases.pieces`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from modeling.parallel import one_blas_thread
from modeling.phases.pieces import run

#: phases per matrix product of distances
BLOCK = 64
#: every STRIDE-th distance forms the sample that sets the k-nearest threshold
STRIDE = 8


@njit(nogil=True, cache=True)
def _heap_smallest(vals, idx_in, m, k, idx, hd):
    """The k smallest of vals[0:m] (row ids idx_in[0:m]) into idx[0:k], by a bounded max-heap in hd."""
    for j in range(k):
        hd[j] = vals[j]
        idx[j] = idx_in[j]
        c = j
        while c > 0:
            p = (c - 1) // 2
            if hd[p] >= hd[c]:
                break
            hd[p], hd[c] = hd[c], hd[p]
            idx[p], idx[c] = idx[c], idx[p]
            c = p
    for j in range(k, m):
        v = vals[j]
        if v < hd[0]:
            hd[0] = v
            idx[0] = idx_in[j]
            p = 0
            while True:
                left = 2 * p + 1
                if left >= k:
                    break
                right = left + 1
                q = left if (right >= k or hd[left] >= hd[right]) else right
                if hd[q] <= hd[p]:
                    break
                hd[p], hd[q] = hd[q], hd[p]
                idx[p], idx[q] = idx[q], idx[p]
                p = q


@njit(nogil=True, cache=True)
def _k_nearest(D2, k, idx, hd, cand, cvals, rows, warm):
    """Row ids of the k smallest entries of D2 into idx[0:k] (module docstring). ``warm``: idx[0:k] holds the
    previous phase's k nearest, whose largest distance now is a threshold that keeps at least k rows."""
    n = D2.shape[0]
    t = np.inf
    ns = n // STRIDE
    ks = (2 * k) // STRIDE + 1
    if warm:
        t = D2[idx[0]]
        for r in range(1, k):
            t = max(t, D2[idx[r]])
    elif ns >= 2 * ks:
        m = 0
        for j in range(0, ns * STRIDE, STRIDE):
            cvals[m] = D2[j]
            rows[m] = j
            m += 1
        _heap_smallest(cvals, rows, m, ks, cand, hd)
        t = hd[0]
        m = 0
        for j in range(n):
            m += D2[j] <= t
        if m < k:
            t = np.inf
    m = 0
    for j in range(n):  # the candidates (every row when t is infinite); few, so the branch predicts well
        if D2[j] <= t:
            cand[m] = j
            cvals[m] = D2[j]
            m += 1
    if m < k:  # distances that are not numbers: the first k rows, never an index out of range
        for j in range(k):
            idx[j] = j
        return
    if m == k:
        for r in range(k):
            idx[r] = cand[r]
        return
    _heap_smallest(cvals, cand, m, k, idx, hd)


ONES = np.uint64(0x0101010101010101)


@njit(nogil=True, cache=True)
def _add_rows(P, words, cur, acc):
    """acc += (rows of P whose byte in ``words`` is set), with the sign + where ``cur``'s byte is set and -
    where it is not; the bytes are read as 64-bit words, eight rows per test."""
    w = P.shape[1]
    for wi in range(words.shape[0]):
        x = words[wi]
        if x == 0:
            continue
        for bit in range(8):
            if (x >> np.uint64(8 * bit)) & np.uint64(1):
                j = wi * 8 + bit
                if cur[j]:
                    for q in range(w):
                        acc[q] += P[j, q]
                else:
                    for q in range(w):
                        acc[q] -= P[j, q]


@njit(nogil=True, cache=True)
def _systems(XT, xx, P, tri, U, eps2, k, lo, hi, Q, c, small):
    d, n = XT.shape
    nu = P.shape[1] - d
    w = P.shape[1]
    nw = (n + 7) // 8
    idx = np.empty(n, np.int64)
    cand = np.empty(n, np.int64)
    rows = np.empty(n, np.int64)
    cvals = np.empty(n)
    hd = np.empty(n)
    acc = np.zeros(w)
    cur = np.zeros(nw * 8, np.uint8)  # membership bytes (padding stays 0)
    prev = np.zeros(nw * 8, np.uint8)
    diff = np.zeros(nw, np.uint64)
    for b0 in range(lo, hi, BLOCK):
        b1 = min(b0 + BLOCK, hi)
        Ub = U[b0:b1]
        G = Ub @ XT
        for ii in range(b1 - b0):
            i = b0 + ii
            uu = 0.0
            for q in range(d):
                uu += Ub[ii, q] * Ub[ii, q]
            D2 = G[ii]
            for j in range(n):  # squared distances
                D2[j] = xx[j] + uu - 2.0 * D2[j]
            m = 0
            for j in range(n):  # members within eps
                cur[j] = D2[j] <= eps2
                m += cur[j]
            small[i] = m < k
            if m < k:
                _k_nearest(D2, k, idx, hd, cand, cvals, rows, ii > 0 and small[i - 1])
                m = k
                for j in range(n):
                    cur[j] = 0
                for r in range(k):
                    cur[idx[r]] = 1
            cw = cur.view(np.uint64)
            changed = n
            if ii > 0:  # the previous phase's sums are kept: count the rows that joined or left
                pw = prev.view(np.uint64)
                changed = 0
                for wi in range(nw):
                    x = cw[wi] ^ pw[wi]
                    diff[wi] = x
                    changed += (x * ONES) >> np.uint64(56)  # bytes are 0 or 1: their sum
            if changed < m:  # update the previous sums by the few rows that differ
                _add_rows(P, diff, cur, acc)
            else:  # sum the members afresh (always the first phase of a block: no drift past BLOCK updates)
                for q in range(w):
                    acc[q] = 0.0
                _add_rows(P, cw, cur, acc)
            cur, prev = prev, cur
            inv = 1.0 / m
            for a in range(d):  # row by row, each entry from its place in the upper triangle
                for b in range(d):
                    Q[i, a, b] = acc[tri[a, b]] * inv
            for a in range(d):
                c[i, a] = acc[nu + a] * inv


def systems(X, ys, U, eps: float, k_min: int):
    """(Q (B, d, d), c (B, d), fell back (B,)) for the B rows of ``U`` (module docstring); ``k_min`` is capped
    at the number of training phases."""
    X = np.ascontiguousarray(X, dtype=float)
    U = np.ascontiguousarray(U, dtype=float)
    ys = np.asarray(ys, dtype=float)
    n, d = X.shape
    B = len(U)
    iu, ju = np.triu_indices(d)
    P = np.ascontiguousarray(np.hstack([X[:, iu] * X[:, ju], X * ys[:, None]]))
    XT = np.ascontiguousarray(X.T)
    xx = (X ** 2).sum(axis=1)
    tri = np.empty((d, d), np.int64)  # tri[a, b]: the column of P holding x_a x_b
    tri[iu, ju] = np.arange(len(iu))
    tri[ju, iu] = np.arange(len(iu))
    Q, c, small = np.empty((B, d, d)), np.empty((B, d)), np.zeros(B, np.bool_)
    k = int(min(max(k_min, 1), n))
    eps2 = float(eps) ** 2
    with one_blas_thread():
        run(lambda lo, hi: _systems(XT, xx, P, tri, U, eps2, k, lo, hi, Q, c, small), B)
    return Q, c, small


def warm_up() -> None:
    """Compile (or load from the cache) the kernels once, e.g. at install time."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    systems(X, X[:, 0], X[:5] + 3.0, 0.5, 10)
