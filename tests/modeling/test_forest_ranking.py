"""Random forest settings, RSS importance, tree sweep and feature ranking."""

import numpy as np
import pytest

from modeling.ensemble import make_splits
from modeling.forest_sweep import TREE_COUNTS, tree_sweep
from modeling.models import ForestRegressor
from modeling.ranking import rank_features


def data(seed=0, n=120):
    rng = np.random.default_rng(seed)
    X = rng.uniform(1, 10, size=(n, 6))
    y = 5 * X[:, 2] ** 2 + X[:, 4] + rng.normal(scale=0.5, size=n) + 10
    return X, y


def test_forest_matches_r_defaults():
    X, y = data()
    f = ForestRegressor(16, random_state=0).fit(X, y).forest_
    assert f.max_features == pytest.approx(1 / 3) and f.min_samples_split == 6 and f.bootstrap


def test_rss_importance_equals_impurity_importance_shares():
    X, y = data()
    m = ForestRegressor(32, random_state=0).fit(X, y)
    rss = m.rss_importance()
    assert np.argmax(rss) == 2
    # per-tree normalized shares averaged (sklearn) vs pooled shares: same leader, both sum to 1
    assert np.isclose((rss / rss.sum()).sum(), 1.0)
    assert np.argmax(m.forest_.feature_importances_) == 2


def test_tree_sweep_shapes_and_prefix_consistency():
    X, y = data()
    splits = make_splits(len(y), "kfold", 5, None, 0)
    s = tree_sweep(X, y, splits, tree_counts=(2, 8, 32))
    assert s.n_trees == [2, 8, 32] and len(s.e_out) == 3 and s.best_n in (2, 8, 32)
    assert s.e_out[-1] < s.e_out[0] * 1.5
    assert TREE_COUNTS == (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)


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
