"""Random forest settings, RSS importance, tree sweep and feature ranking."""

import numpy as np
import pytest

from modeling.crossgen.ensemble import make_splits
from modeling.crossgen.sweep import TREE_COUNTS, tree_sweep
from modeling.crossgen.estimators import ForestRegressor
from modeling.crossgen.ranking import rank_features


def data(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = rng.uniform(1, 10, size=(n, 6))
    y = 5 * X[:, 2] ** 2 + X[:, 4] + rng.normal(scale=0.5, size=n) + 10
    return X, y


def test_forest_uses_r_defaults():
    X, y = data()
    f = ForestRegressor(16, random_state=0).fit(X, y)
    assert f.mtry_ == 2 and f.nodesize == 5 and f.bootstrap  # floor(6 / 3)
    assert f.trees_.node_count.shape == (16,)


def test_single_full_tree_is_sklearns_cart_tree():
    """No bootstrap and every feature at every split: the CART tree sklearn grows.

    Same node count, same partition of the training rows (so the same fitted
    values) and the same total RSS decrease. Where two features cut a node into
    the same two sets, the trees may keep different ones, so new points can
    land differently; the training rows cannot.
    """
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(3)
    X = rng.integers(0, 4000, size=(300, 7)).astype(float) / 64
    y = X[:, 0] * 3 + np.sin(X[:, 1]) * 20 + rng.normal(scale=0.5, size=300)
    ours = ForestRegressor(1, max_features=1.0, bootstrap=False).fit(X, y)
    ref = DecisionTreeRegressor(min_samples_split=6, random_state=0).fit(X, y)
    t = ref.tree_
    internal = t.children_left >= 0
    rss = t.impurity * t.weighted_n_node_samples
    gains = rss[internal] - rss[t.children_left[internal]] - rss[t.children_right[internal]]
    assert ours.trees_.node_count[0] == t.node_count
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)
    assert ours.rss_importance().sum() == pytest.approx(gains.sum(), rel=1e-9)


def _rows_per_node(trees, X, k=0):
    counts = np.zeros(trees.node_count[k], dtype=int)
    for x in X:
        node = 0
        counts[node] += 1
        while trees.feature[k, node] >= 0:
            f = trees.feature[k, node]
            node = trees.left[k, node] if x[f] <= trees.threshold[k, node] else trees.right[k, node]
            counts[node] += 1
    return counts


@pytest.mark.parametrize("nodesize", [1, 5, 20])
def test_nodesize_stops_splitting_small_nodes(nodesize):
    """R's rule: a node with nodesize rows or fewer is a leaf; every split node had more."""
    X, y = data(n=200)
    t = ForestRegressor(1, max_features=1.0, bootstrap=False, nodesize=nodesize).fit(X, y).trees_
    counts = _rows_per_node(t, X)
    internal = t.feature[0, : t.node_count[0]] >= 0
    assert (counts[internal] > nodesize).all()
    leaves = ~internal
    if nodesize == 1:  # grown to purity on distinct x: one row per leaf
        assert (counts[leaves] == 1).all()
    stump = ForestRegressor(1, max_features=1.0, bootstrap=False, nodesize=len(y)).fit(X, y)
    assert stump.trees_.node_count[0] == 1 and np.allclose(stump.predict(X), y.mean())


def test_nodesize_counts_bootstrap_duplicates():
    """With bootstrap weights a node is split when its draws, duplicates counted, exceed nodesize: some
    split nodes hold 5 or fewer distinct training rows (counting distinct rows, none would)."""
    X, y = data(n=200)
    f = ForestRegressor(8, random_state=1).fit(X, y)
    t = f.trees_
    split_sizes = [c for k in range(8) for c, internal in zip(_rows_per_node(t, X, k),
                                                               t.feature[k, : t.node_count[k]] >= 0) if internal]
    assert min(split_sizes) <= 5
    # a forest is reproducible from its seed and differs across seeds
    g = ForestRegressor(8, random_state=1).fit(X, y)
    h = ForestRegressor(8, random_state=2).fit(X, y)
    np.testing.assert_array_equal(f.predict(X), g.predict(X))
    assert not np.allclose(f.predict(X), h.predict(X))


def test_rss_importance_sums_the_split_gains():
    X, y = data()
    m = ForestRegressor(32, random_state=0).fit(X, y)
    rss = m.rss_importance()
    assert np.argmax(rss) == 2 and (rss >= 0).all()
    # one tree without bootstrap: the gains add up to root RSS minus the leaves' RSS
    one = ForestRegressor(1, max_features=1.0, bootstrap=False).fit(X, y)
    leaf_of = np.array([_leaf(one.trees_, x) for x in X])
    leaves_rss = sum(((y[leaf_of == v] - y[leaf_of == v].mean()) ** 2).sum() for v in np.unique(leaf_of))
    assert one.rss_importance().sum() == pytest.approx(((y - y.mean()) ** 2).sum() - leaves_rss, rel=1e-9)


def _leaf(trees, x):
    node = 0
    while trees.feature[0, node] >= 0:
        node = trees.left[0, node] if x[trees.feature[0, node]] <= trees.threshold[0, node] else trees.right[0, node]
    return node


def test_tree_sweep_shapes_and_prefix_consistency():
    X, y = data()
    splits = make_splits(len(y), "kfold", 5, None, 0)
    s = tree_sweep(X, y, splits, tree_counts=(2, 8, 32))
    assert s.n_trees == [2, 8, 32] and len(s.e_out) == 3 and s.best_n in (2, 8, 32)
    assert TREE_COUNTS == (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    # the first n trees of a bigger forest are the forest of n trees with the same seed
    big = ForestRegressor(64, random_state=3).fit(X, y).tree_predictions(X)
    small = ForestRegressor(8, random_state=3).fit(X, y).tree_predictions(X)
    np.testing.assert_array_equal(big[:8], small)
    assert not np.array_equal(big[8:16], small)


def test_sweep_at_128_trees_equals_the_leaderboard_forest():
    from modeling import shipped
    from modeling.crossgen.ensemble import prepare, run_ensemble

    scen = shipped.scenario("GTX-680", "GTX-980", "duration")
    d = prepare(scen["X"], scen["y"], scen["feature_names"], scen["workload_ids"], scen["groups"], True,
                scen["host_index"])
    splits = make_splits(len(d["y"]), "kfold", 10, d["groups"], 0)
    sweep = tree_sweep(d["X"], d["y"], splits, tree_counts=(64, 128), seed=0)
    board = run_ensemble(scen["X"], scen["y"], models=["RandomForest"], groups=scen["groups"], seed=0,
                         host_index=scen["host_index"], drop_constant=True)
    assert sweep.e_out[1] == pytest.approx(board.models[0].e_out, rel=1e-12)


def test_rankings():
    X, y = data()
    names = [f"f{i}" for i in range(6)]
    cats = ["a", "b", "c", "d", "e", "f"]
    r = rank_features(X, y, names, "OLS/Forward/BIC", categories=cats)
    assert r.features[0]["feature"] == "f2" and r.features[0]["category"] == "c"
    assert r.features[0]["pvalue"] < 1e-10 and r.score_name == "pvalue"
    rf = rank_features(X, y, names, "RandomForest", perm_repeats=1, perm_folds=3)
    assert rf.features[0]["feature"] == "f2"
    assert rf.features[0]["permutation"] > 0
    assert sum(f["score"] for f in rf.features) == pytest.approx(100.0)
    nn = rank_features(X, y, names, "NNLS")
    assert nn.features[0]["feature"] == "f2" and all(f["coef"] > 0 for f in nn.features)


def test_honest_columns_beside_the_post_selection_p_values():
    """Noise features that selection picks on all rows get optimistic p-values; the selection frequency
    across folds and the sample-split p-value (t-test on rows selection did not see) expose them."""
    import statsmodels.api as sm

    from modeling.crossgen.ranking import split_pvalues

    rng = np.random.default_rng(4)
    n, p = 120, 60
    X = rng.normal(size=(n, p))
    y = 2.0 * X[:, 0] + 1.0 * X[:, 1] + rng.normal(size=n)
    names = [f"f{i}" for i in range(p)]
    r = rank_features(X, y, names, "OLS/Forward/AIC", seed=0)
    by = {f["feature"]: f for f in r.features}
    assert by["f0"]["selected_pct"] == 100.0 and by["f1"]["selected_pct"] == 100.0
    assert by["f0"]["split_pvalue"] < 1e-3 and by["f1"]["split_pvalue"] < 0.05
    noise = [f for f in r.features if f["feature"] not in ("f0", "f1")]
    assert noise and all(f["pvalue"] < 0.2 for f in noise)  # AIC keeps noise that looks significant
    # folds share 90 % of their rows, so noise the full data picked is often picked again, but not always
    assert np.mean([f["selected_pct"] for f in noise]) < 90
    assert np.mean([f["selected_pct"] < 100 for f in noise]) >= 0.5
    assert np.mean([f["split_pvalue"] is None or f["split_pvalue"] > 0.05 for f in noise]) >= 0.7
    # the split p-values are the t-test on the other half, as statsmodels computes it
    rows = np.random.default_rng(0).permutation(n)
    half_b = rows[n // 2:]
    split = split_pvalues(X, y, "OLS/Forward/AIC", 0)
    cols = sorted(split)
    ref = sm.OLS(y[half_b], sm.add_constant(X[half_b][:, cols])).fit().pvalues[1:]
    np.testing.assert_allclose([split[c] for c in cols], ref, rtol=1e-6)
    lasso = rank_features(X, y, names, "Lasso", seed=0)
    assert all(0 <= f["selected_pct"] <= 100 for f in lasso.features) and "split_pvalue" not in lasso.features[0]
