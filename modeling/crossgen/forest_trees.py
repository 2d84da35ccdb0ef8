"""Regression trees of R's ``randomForest``, compiled (RastSim 4.2, 4.4).

The forest of the ensemble follows R's regression forest: each tree is grown on
a bootstrap sample of n rows (drawn with replacement; a row drawn k times
weighs k), at each node ``mtry`` distinct features are drawn and the split that
most reduces the residual sum of squares among them is taken (threshold at the
midpoint of the two neighbouring values, ``x <= t`` goes left), a node of
``nodesize`` or fewer bootstrap rows is not split, and leaves predict the mean
of their rows. If none of the ``mtry`` features separates the node, it becomes
a leaf, as in R.

The split search runs on per-feature ranks (ties share a rank), carried in the
sorted lists themselves (each entry is the row's rank above its index), so a
node reads one feature's ranks in order without gathering them. It evaluates
the criterion at every row and keeps it only where the rank changes, so the
loop has no branch that ties make unpredictable. Trees are kept as flat arrays
(feature, threshold, children, value, RSS decrease), one row per tree, so
prediction and the RSS importance (RastSim 5.5, R's ``IncNodePurity``) are
array loops.

Everything around the split search is kept small: the bootstrap sample is a
count per row (nothing is copied); the rows are sorted once per feature for the
whole forest and each tree filters these orders to its drawn rows, after which
a split stably partitions them, so every node finds each feature's rows in
order and no node sorts; a child that will be a leaf is not partitioned into
(its rows are only summed); the ``mtry`` features of a node are the first
``mtry`` steps of one Fisher-Yates shuffle; every buffer is allocated once per
forest. The trees are exactly those of the earlier, slower grower for the same
seed (``tests/modeling/crossgen/test_forest_trees.py`` checks them against a
plain statement of the algorithm that sorts at every node).

Compiled with numba (``cache=True``: the machine code is kept next to this
file after the first call of each kernel).
"""

from __future__ import annotations

import numpy as np
from numba import njit

LEAF = -1
ZERO = np.uint64(0)  # unsigned cursors: no negative-index handling in the hot loop
ONE = np.uint64(1)


@njit(cache=True)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=True)
def _grow_tree(xt, ww, srt, lo, hi, n_rows, mtry, nodesize, perm, tmp, buf,
               feature, threshold, left, right, value, decrease, stack):
    """Grow one tree; srt[j, :n_rows] holds the rows in order of feature j.

    An entry of a list is the row's rank in that feature above its index, ``rank * 2**s + row``
    (``lo`` masks the row, ``hi`` the rank): the split search reads ranks in the order of the list
    instead of gathering them from a row of ranks (a cache miss per row at deep nodes).

    Every node owns the same range [start, end) of each feature's list; a split
    stably partitions all lists, so no node ever sorts. When one child will be a
    leaf, the lists keep only the other child's rows (at the start of the range)
    and the leaf's value is summed on the way, in the order of feature 0 as for
    any other leaf. ``ww[r] = (w_r, w_r y_r)``: weight and weighted target of a
    row side by side, one cache line for both.
    """
    p = srt.shape[0]
    n_nodes = 1
    stack[0, 0] = 0
    stack[0, 1] = 0
    stack[0, 2] = n_rows
    top = 1
    while top > 0:
        top -= 1
        node = stack[top, 0]
        start = stack[top, 1]
        end = stack[top, 2]
        sw = 0.0
        swy = 0.0
        for i in range(start, end):
            r = srt[0, i] & lo
            sw += ww[r, 0]
            swy += ww[r, 1]
        value[node] = swy / sw
        feature[node] = LEAF
        left[node] = LEAF
        right[node] = LEAF
        decrease[node] = 0.0
        if sw <= nodesize or end - start < 2:
            continue
        parent_crit = swy * swy / sw
        best_crit = parent_crit
        threshold_crit = best_crit * (1.0 + 1e-12) + 1e-300
        best_f = -1
        best_pos = 0
        best_thr = 0.0
        for k in range(mtry):
            jj = k + np.random.randint(p - k)
            f = perm[jj]
            perm[jj] = perm[k]
            perm[k] = f
            lst = srt[f]
            if lst[start] & hi == lst[end - 1] & hi:
                continue
            lw = 0.0
            lwy = 0.0
            v = lst[start]
            r = v & lo
            rank_r = v & hi
            for i in range(start, end - 1):
                v = lst[i + 1]
                nxt = v & lo
                rank_n = v & hi
                lw += ww[r, 0]
                lwy += ww[r, 1]
                rw = sw - lw
                rwy = swy - lwy
                # lwy^2/lw + rwy^2/rw > threshold, without dividing; evaluated at every row (no branch on
                # the ranks, which ties make unpredictable) and taken only where the rank changes
                num = lwy * lwy * rw + rwy * rwy * lw
                den = lw * rw
                if (num > threshold_crit * den) & (rank_r != rank_n):
                    crit = num / den
                    best_crit = crit
                    best_f = f
                    best_pos = i + 1
                    best_thr = 0.5 * (xt[f, r] + xt[f, nxt])
                    threshold_crit = best_crit * (1.0 + 1e-12) + 1e-300
                r = nxt
                rank_r = rank_n
        if best_f < 0:
            continue
        feature[node] = best_f
        threshold[node] = best_thr
        decrease[node] = best_crit - parent_crit
        left[node] = n_nodes
        right[node] = n_nodes + 1
        n_nodes += 2
        lw = 0.0
        lst = srt[best_f]
        for i in range(start, best_pos):
            lw += ww[lst[i] & lo, 0]
        if (lw <= nodesize or best_pos - start < 2) and (sw - lw <= nodesize or end - best_pos < 2):
            # both children are leaves: record them without partitioning the lists
            for child, a, b in ((left[node], start, best_pos), (right[node], best_pos, end)):
                cw = 0.0
                cwy = 0.0
                for i in range(a, b):
                    cw += ww[lst[i] & lo, 0]
                    cwy += ww[lst[i] & lo, 1]
                value[child] = cwy / cw
                feature[child] = LEAF
                left[child] = LEAF
                right[child] = LEAF
                decrease[child] = 0.0
            continue
        left_leaf = lw <= nodesize or best_pos - start < 2  # weights are counts: lw is exact in any order
        right_leaf = sw - lw <= nodesize or end - best_pos < 2
        for i in range(start, best_pos):
            tmp[lst[i] & lo] = 1
        for i in range(best_pos, end):
            tmp[lst[i] & lo] = 0
        m = end - start
        lbuf = buf[0]
        rbuf = buf[1]
        if left_leaf or right_leaf:
            # one child is a leaf: only the other one's rows are kept, at the start of the range; the
            # leaf's value is summed in the order of feature 0, as if it had been split off
            keep = np.uint8(0) if left_leaf else np.uint8(1)
            cw = 0.0
            cwy = 0.0
            for j in range(p):
                lj = srt[j, start:end]
                a = ZERO
                if j == 0:
                    for i in range(m):
                        v = lj[i]
                        r = v & lo
                        if tmp[r] == keep:
                            lj[a] = v
                            a += ONE
                        else:
                            cw += ww[r, 0]
                            cwy += ww[r, 1]
                else:
                    for i in range(m):
                        v = lj[i]
                        lj[a] = v  # in place: a store never lands after the next load
                        a += np.uint64(tmp[v & lo] == keep)
            if left_leaf:
                leaf, kept = left[node], right[node]
            else:
                leaf, kept = right[node], left[node]
            value[leaf] = cwy / cw
            feature[leaf] = LEAF
            left[leaf] = LEAF
            right[leaf] = LEAF
            decrease[leaf] = 0.0
            stack[top, 0] = kept
            stack[top, 1] = start
            stack[top, 2] = start + (end - best_pos if left_leaf else best_pos - start)
            top += 1
            continue
        for j in range(p):
            if j == best_f:
                continue
            # out of place: stores never alias the loads of the list, which lets the
            # loop run about 4x faster than an in-place partition
            lj = srt[j, start:end]
            a = ZERO
            b = ZERO
            for i in range(m):
                v = lj[i]
                goes_left = np.uint64(tmp[v & lo])
                lbuf[a] = v
                rbuf[b] = v
                a += goes_left
                b += ONE - goes_left
            for i in range(a):
                lj[i] = lbuf[i]
            for i in range(b):
                lj[a + np.uint64(i)] = rbuf[i]
        stack[top, 0] = left[node]
        stack[top, 1] = start
        stack[top, 2] = best_pos
        top += 1
        stack[top, 0] = right[node]
        stack[top, 1] = best_pos
        stack[top, 2] = end
        top += 1
    return n_nodes


@njit(cache=True)
def _grow_forest(order, srt, buf, lo, hi, xt, y, n_trees, mtry, nodesize, bootstrap, seed,
                 feature, threshold, left, right, value, decrease, node_count):
    _seed(seed)
    p, n = order.shape
    perm = np.arange(p)
    ww = np.zeros((n, 2))  # (weight, weight x target) of each row, side by side
    tmp = np.zeros(n, dtype=np.uint8)
    in_bag = np.zeros(n, dtype=np.uint8)
    stack = np.empty((2 * n + 2, 3), dtype=np.int64)
    for t in range(n_trees):
        # the bootstrap sample as counts: a row drawn k times weighs k, nothing is copied
        ww[:, 0] = 0.0
        if bootstrap:
            for _ in range(n):
                ww[np.random.randint(n), 0] += 1.0
        else:
            ww[:, 0] = 1.0
        for r in range(n):
            in_bag[r] = ww[r, 0] > 0
        n_rows = 0
        for j in range(p):
            # branch-free filter of the presorted rows to the drawn ones
            oj = order[j]
            sj = srt[j]
            c = ZERO
            for i in range(n):
                v = oj[i]
                sj[c] = v
                c += np.uint64(in_bag[v & lo])
            n_rows = int(c)
        for r in range(n):
            ww[r, 1] = ww[r, 0] * y[r]
        node_count[t] = _grow_tree(xt, ww, srt, lo, hi, n_rows, mtry, nodesize, perm, tmp, buf,
                                   feature[t], threshold[t], left[t], right[t], value[t],
                                   decrease[t], stack)


@njit(cache=True)
def _predict_trees(X, feature, threshold, child, value, out):
    """``out[t, s]``: tree ``t``'s leaf value for row ``s``.

    Rows go in blocks that stay in cache while every tree walks them (tree by tree over all rows would
    stream the whole table from memory once per tree), and a step picks the child by indexing
    ``child[t, node]`` (left, right) with the comparison instead of branching on it: the branch is a coin
    toss the processor mispredicts half the time.
    """
    n_trees = feature.shape[0]
    block = 256
    for start in range(0, X.shape[0], block):
        stop = min(start + block, X.shape[0])
        for t in range(n_trees):
            for s in range(start, stop):
                node = 0
                f = feature[t, 0]
                while f != LEAF:
                    node = child[t, node, 1 - np.int64(X[s, f] <= threshold[t, node])]  # NaN: right, as before
                    f = feature[t, node]
                out[t, s] = value[t, node]


def sorted_entries(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each feature's rows in sorted order, as ``rank * 2**s + row`` entries, shape (p, n).

    The rank is the row's dense rank in that feature (ties equal), so entries sort as (value, row): the
    order of a stable sort. ``s`` is 16 bits below 65,536 rows (uint32 entries), else 32 (uint64).
    Returns the entries and the masks of the row and of the rank, in the entries' type.
    """
    xt = np.ascontiguousarray(X.T)
    order = np.argsort(xt, axis=1, kind="stable")
    xs = np.take_along_axis(xt, order, axis=1)
    steps = np.zeros(xt.shape, dtype=np.uint64)
    steps[:, 1:] = xs[:, 1:] != xs[:, :-1]  # a new distinct value starts here
    ranks = np.cumsum(steps, axis=1, dtype=np.uint64)  # in sorted order
    kind, bits = (np.uint32, 16) if xt.shape[1] <= 2**16 else (np.uint64, 32)  # a rank and a row are below n
    entries = ((ranks << np.uint64(bits)) | order.astype(np.uint64)).astype(kind)
    lo = kind(2**bits - 1)
    return entries, lo, kind(~lo)


class TreeArrays:
    """A grown forest: flat per-tree node arrays (trees x max nodes)."""

    def __init__(self, X, y, n_trees, mtry, nodesize, bootstrap, seed):
        n, p = X.shape
        cap = 2 * n + 1
        self.feature = np.full((n_trees, cap), LEAF, dtype=np.int64)
        self.threshold = np.zeros((n_trees, cap))
        self.left = np.full((n_trees, cap), LEAF, dtype=np.int64)
        self.right = np.full((n_trees, cap), LEAF, dtype=np.int64)
        self.value = np.zeros((n_trees, cap))
        self.decrease = np.zeros((n_trees, cap))
        self.node_count = np.zeros(n_trees, dtype=np.int64)
        entries, lo, hi = sorted_entries(X)
        _grow_forest(entries, np.empty_like(entries), np.empty((2, n), dtype=entries.dtype), lo, hi,
                     np.ascontiguousarray(X.T), np.ascontiguousarray(y, dtype=float),
                     int(n_trees), int(mtry), float(nodesize), bool(bootstrap), int(seed) % (2**32),
                     self.feature, self.threshold, self.left, self.right, self.value, self.decrease,
                     self.node_count)
        self.n_features = p

    def predict_per_tree(self, X) -> np.ndarray:
        """Predictions of every tree, shape (n_trees, n_rows)."""
        X = np.ascontiguousarray(X, dtype=float)
        out = np.empty((self.feature.shape[0], X.shape[0]))
        child = np.stack([self.left, self.right], axis=2)  # (trees, nodes, 2): left when X <= threshold
        _predict_trees(X, self.feature, self.threshold, child, self.value, out)
        return out

    def rss_decrease(self) -> np.ndarray:
        """RSS decrease of the splits on each feature, summed over trees, shape (p,)."""
        split = self.feature >= 0
        return np.bincount(self.feature[split], weights=self.decrease[split], minlength=self.n_features)

    def used_features(self) -> np.ndarray:
        return np.unique(self.feature[self.feature >= 0])


def warm_up() -> None:
    """Compile (or load from the cache) every kernel once, e.g. at install time."""
    rng = np.random.default_rng(0)
    X = rng.random((12, 3))
    TreeArrays(X, X[:, 0], 2, 1, 5, True, 0).predict_per_tree(X)
