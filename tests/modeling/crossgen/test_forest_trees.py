"""The compiled forest grows the trees of a plain, slow statement of the same algorithm.

The reference below is R's regression forest as the module docstring of ``forest_trees`` states it,
written for reading, not speed: every node sorts its rows again for each drawn feature (no presorted
lists, no partitions, no shortcuts). It draws its random numbers from the same generator (numba's,
seeded alike) in the same order: the bootstrap counts of a tree, then at each node taken depth first
(right child first) ``mtry`` draws of a partial Fisher-Yates shuffle of the feature indices, which carries
over from node to node and tree to tree. A faster grower must give the same features, thresholds and
children, and the same leaf values (summed in another order here, hence a relative 1e-12).
"""

import numpy as np
import pytest
from numba import njit

from modeling.crossgen.forest_trees import LEAF, TreeArrays


@njit(cache=False)
def _seed(seed):
    np.random.seed(seed)


@njit(cache=False)
def _randint(n):
    return np.random.randint(n)


def reference_forest(X, y, n_trees, mtry, nodesize, bootstrap, seed):
    """List of trees, each a dict node -> (feature, threshold, left, right, value, decrease)."""
    n, p = X.shape
    _seed(int(seed) % 2**32)
    perm = list(range(p))
    trees = []
    for _ in range(n_trees):
        w = np.zeros(n)
        if bootstrap:
            for _ in range(n):
                w[_randint(n)] += 1.0
        else:
            w[:] = 1.0
        wy = w * y
        nodes = {}
        n_nodes = 1
        stack = [(0, [r for r in range(n) if w[r] > 0])]
        while stack:
            node, rows = stack.pop()
            by_first = sorted(rows, key=lambda r: (X[r, 0], r))
            sw = swy = 0.0
            for r in by_first:
                sw += w[r]
                swy += wy[r]
            nodes[node] = (LEAF, 0.0, LEAF, LEAF, swy / sw, 0.0)
            if sw <= nodesize or len(rows) < 2:
                continue
            parent = best = swy * swy / sw
            bar = best * (1.0 + 1e-12) + 1e-300  # a later split must beat the best by a relative 1e-12
            split = None
            for k in range(mtry):
                jj = k + _randint(p - k)
                perm[jj], perm[k] = perm[k], perm[jj]
                f = perm[k]
                ordered = sorted(rows, key=lambda r: (X[r, f], r))
                lw = lwy = 0.0
                for i in range(len(ordered) - 1):
                    r, nxt = ordered[i], ordered[i + 1]
                    lw += w[r]
                    lwy += wy[r]
                    if X[r, f] == X[nxt, f]:
                        continue
                    rw, rwy = sw - lw, swy - lwy
                    num, den = lwy * lwy * rw + rwy * rwy * lw, lw * rw
                    if num > bar * den:
                        best = num / den
                        bar = best * (1.0 + 1e-12) + 1e-300
                        split = (f, 0.5 * (X[r, f] + X[nxt, f]), ordered[:i + 1], ordered[i + 1:])
            if split is None:
                continue
            f, thr, go_left, go_right = split
            nodes[node] = (f, thr, n_nodes, n_nodes + 1, swy / sw, best - parent)
            stack.append((n_nodes, go_left))
            stack.append((n_nodes + 1, go_right))
            n_nodes += 2
        trees.append(nodes)
    return trees


def _table(seed, n=70, p=9):
    """Rows with ties (rounded columns), a duplicated column, a constant one and a heavy tail."""
    rng = np.random.default_rng(seed)
    X = rng.lognormal(size=(n, p))
    X[:, 1] = np.round(X[:, 1], 1)
    X[:, 2] = X[:, 3]
    X[:, 4] = 7.0
    X[:, 5] = np.round(X[:, 5] * 3) / 3
    y = X[:, 0] * 3 + np.sin(X[:, 3]) + X[:, 1] * X[:, 6] + rng.normal(scale=0.1, size=n)
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 2018, 2**33 + 5])
@pytest.mark.parametrize("mtry,nodesize,bootstrap,n", [(3, 5, True, 70), (9, 1, False, 70), (1, 2, True, 70),
                                                       (4, 5, False, 70), (3, 5, True, 300)])
def test_trees_match_the_plain_statement(seed, mtry, nodesize, bootstrap, n):
    """300 rows: deeper trees, with long chains of splits that peel a leaf off."""
    X, y = _table(seed % 1000, n=n)
    n_trees = 6
    got = TreeArrays(X, y, n_trees, mtry, nodesize, bootstrap, seed)
    want = reference_forest(X, y, n_trees, mtry, nodesize, bootstrap, seed)
    assert got.node_count.tolist() == [len(t) for t in want]
    for t, nodes in enumerate(want):
        ids = sorted(nodes)
        assert ids == list(range(len(ids)))
        ref = np.array([nodes[i] for i in ids])
        k = len(ids)
        assert got.feature[t, :k].tolist() == ref[:, 0].astype(int).tolist()
        assert got.threshold[t, :k].tolist() == ref[:, 1].tolist()  # midpoints of the same two values
        assert got.left[t, :k].tolist() == ref[:, 2].astype(int).tolist()
        assert got.right[t, :k].tolist() == ref[:, 3].astype(int).tolist()
        leaf = ref[:, 0] == LEAF
        np.testing.assert_allclose(got.value[t, :k][leaf], ref[leaf, 4], rtol=1e-12)
        np.testing.assert_allclose(got.decrease[t, :k], ref[:, 5], rtol=1e-9, atol=1e-9 * abs(ref[:, 5]).max())
    # the trees did split (a root may not when mtry = 1 draws the constant column): not a comparison of stumps
    assert (got.feature[:, 0] >= 0).sum() >= n_trees - 1
    assert got.node_count.max() > 15
