"""Every strategy on hand-made contexts: what it picks and that the budget holds."""

import numpy as np
import pytest

from modeling.errors import ConfigError
from modeling.plan import strategies
from modeling.plan.batch import select
from modeling.plan.inputs import Budget


THREE = Budget("count", 3)


def _ctx(Z, cand, sim, width=None, cost=None, groups=None, budget=THREE, seed=0):
    n = len(Z)
    return strategies.Context(np.asarray(Z, float), np.asarray(cand), np.asarray(sim, int),
                              None if width is None else np.asarray(width, float),
                              np.ones(n) if cost is None else np.asarray(cost, float),
                              None if groups is None else np.asarray(groups), budget, np.random.default_rng(seed))


def test_fill_counts_and_hours():
    cost = np.array([5.0, 1.0, 3.0, 1.0])
    assert strategies.fill(np.array([0, 1, 2, 3]), cost, Budget("count", 2)).tolist() == [0, 1]
    # 5 fits, 1 does not (6 > 5.5), ... skips what does not fit and goes on
    assert strategies.fill(np.array([0, 1, 2, 3]), cost, Budget("hours", 5.5)).tolist() == [0]
    assert strategies.fill(np.array([2, 0, 1, 3]), cost, Budget("hours", 5.5)).tolist() == [0, 2, 3]


def test_random_is_reproducible_and_uniform():
    Z = np.zeros((50, 2))
    a, _ = strategies.order("random", _ctx(Z, np.arange(10, 50), np.arange(10), seed=3))
    b, _ = strategies.order("random", _ctx(Z, np.arange(10, 50), np.arange(10), seed=3))
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == list(range(10, 50))


def test_stratified_is_proportional_to_the_applications():
    groups = np.array(["a"] * 60 + ["b"] * 30 + ["c"] * 10)
    order, why = strategies.order("stratified", _ctx(np.zeros((100, 2)), np.arange(100), [], groups=groups))
    first = groups[order[:10]]
    assert (first == "a").sum() == 6 and (first == "b").sum() == 3 and (first == "c").sum() == 1
    assert "within application" in why[0]


def test_diversity_is_k_center():
    # simulated at the origin; candidates on a line: farthest first, then the one farthest from both
    Z = np.array([[0.0, 0], [1, 0], [2, 0], [5, 0], [10, 0]])
    order, _ = strategies.order("diversity", _ctx(Z, [1, 2, 3, 4], [0], budget=Budget("count", 2)))
    assert order[:2].tolist() == [4, 3]  # 10 is farthest from 0; then 5 (distance 5 to both)


def test_diversity_per_hour_takes_the_cheaper_of_two_far_points():
    Z = np.array([[0.0, 0], [10, 0], [-9.5, 0]])
    cost = np.array([1.0, 100.0, 1.0])
    plain, _ = strategies.order("diversity", _ctx(Z, [1, 2], [0], cost=cost, budget=Budget("count", 1)))
    per_hour, _ = strategies.order("cost-diversity", _ctx(Z, [1, 2], [0], cost=cost, budget=Budget("count", 1)))
    assert plain[0] == 1 and per_hour[0] == 2


def test_uncertainty_spreads_over_clusters():
    # two tight clusters; the three widest sit in cluster A: a batch of two takes one of each (of the
    # 3 x 2 widest candidates)
    rng = np.random.default_rng(0)
    Z = np.vstack([rng.normal(0, 0.01, (6, 2)), rng.normal(5, 0.01, (6, 2))])
    width = np.array([9, 8, 7, 0.1, 0.1, 0.1, 6, 5, 4, 0.1, 0.1, 0.1])
    order, why = strategies.order("uncertainty", _ctx(Z, np.arange(12), [], width=width,
                                                      budget=Budget("count", 2)))
    assert order[0] == 0  # the widest of all
    assert order[1] == 6  # the widest of the other cluster, not the second widest overall
    assert "cluster" in why[0]


def test_cost_aware_uncertainty_takes_width_per_hour():
    Z = np.array([[0.0, 0], [0.001, 0], [0.002, 0]])
    width = np.array([2.0, 1.8, 0.5])
    cost = np.array([100.0, 1.0, 1.0])
    plain, _ = strategies.order("uncertainty", _ctx(Z, [0, 1, 2], [], width=width, cost=cost,
                                                    budget=Budget("count", 1)))
    cheap, _ = strategies.order("cost", _ctx(Z, [0, 1, 2], [], width=width, cost=cost, budget=Budget("count", 1)))
    assert plain[0] == 0 and cheap[0] == 1


def test_uncertainty_without_a_model_falls_back_to_k_center():
    Z = np.array([[0.0, 0], [1, 0], [10, 0]])
    order, why = strategies.order("uncertainty", _ctx(Z, [1, 2], [0], budget=Budget("count", 1)))
    assert order[0] == 2 and "no model yet" in why[0]


@pytest.mark.parametrize("name", strategies.STRATEGIES)
def test_every_strategy_keeps_the_hours_budget(name):
    rng = np.random.default_rng(1)
    n = 80
    Z = rng.normal(size=(n, 3))
    cost = 10 ** rng.uniform(-1, 1, n)
    groups = np.array(["a", "b"] * 40)
    ctx = _ctx(Z, np.arange(10, n), np.arange(10), width=rng.uniform(0.1, 1, n - 10), cost=cost, groups=groups,
               budget=Budget("hours", 5.0), seed=2)
    picks, why, flags = select(name, ctx)
    assert cost[picks].sum() <= 5.0 + 1e-9 and len(picks) >= 1
    assert len(set(picks.tolist())) == len(picks) and set(picks.tolist()) <= set(range(10, n))
    assert len(why) == len(picks) == len(flags)
    assert flags.all() if name == "random" else True


def test_unknown_strategy():
    with pytest.raises(ConfigError, match="Unknown strategy"):
        strategies.order("clever", _ctx(np.zeros((3, 2)), [1, 2], [0]))


def test_cost_aware_uncertainty_stays_among_the_uncertain():
    # a nearly certain, nearly free candidate does not win on width per hour: only the uncertain ones compete
    Z = np.array([[0.0, 0], [0.1, 0], [0.2, 0], [0.3, 0], [0.4, 0]])
    width = np.array([2.0, 1.9, 1.8, 0.01, 0.01])
    cost = np.array([10.0, 10.0, 10.0, 1e-6, 1e-6])
    order, _ = strategies.order("cost", _ctx(Z, np.arange(5), [], width=width, cost=cost, budget=Budget("count", 1)))
    assert order[0] == 0


def test_feature_weights_shape_the_k_center_space():
    # counter 0 separates the candidates, counter 1 the other way; the model's weight decides which counts
    Z = np.array([[0.0, 0], [10, 1], [1, 10]])
    plain, _ = strategies.order("diversity", _ctx(Z, [1, 2], [0], budget=Budget("count", 1)))
    ctx = _ctx(Z, [1, 2], [0], budget=Budget("count", 1))
    ctx.feature_weight = np.array([0.9, 0.1])
    weighted, _ = strategies.order("diversity", ctx)
    ctx.feature_weight = np.array([0.1, 0.9])
    other, _ = strategies.order("diversity", ctx)
    assert weighted[0] == 1 and other[0] == 2 and plain[0] in (1, 2)


def _greedy_medoids_by_brute_force(Z, cand, sim, k, cost=None):
    """Facility location stated plainly: each pick lowers the candidates' mean distance to their nearest
    simulated-or-picked workload the most (per sqrt cost when given); nothing simulated: the first pick is
    the 1-medoid."""
    from scipy.spatial.distance import cdist

    D = cdist(Z[cand], Z[cand])
    d = cdist(Z[cand], Z[sim]).min(axis=1) if len(sim) else np.full(len(cand), np.inf)
    picks = []
    for _ in range(k):
        best, best_score = None, -np.inf
        for j in range(len(cand)):
            if j in picks:
                continue
            c = np.sqrt(cost[cand[j]]) if cost is not None else 1.0
            score = -D[j].mean() * c if not np.isfinite(d).all() else np.maximum(d - D[j], 0).mean() / c
            if score > best_score:
                best, best_score = j, score
        picks.append(best)
        d = np.minimum(d, D[best])
    return [int(cand[j]) for j in picks]


@pytest.mark.parametrize("n_sim", [0, 3])
def test_representative_is_greedy_k_medoids(n_sim):
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(40, 3))
    sim, cand = np.arange(n_sim), np.arange(n_sim, 40)
    order, why = strategies.order("representative", _ctx(Z, cand, sim, budget=Budget("count", 5)))
    assert order[:5].tolist() == _greedy_medoids_by_brute_force(Z, cand, sim, 5)
    assert sorted(order.tolist()) == cand.tolist()
    assert ("medoid" if n_sim == 0 else "nearer to a simulated workload") in why[0]
    assert "nearer to a simulated workload" in why[1]


def test_representative_prefers_the_crowd_where_k_center_takes_the_outlier():
    rng = np.random.default_rng(1)
    crowd = rng.normal(3.0, 0.3, (30, 2))
    Z = np.vstack([[[0.0, 0.0]], crowd, [[-20.0, 0.0]]])  # 0 simulated, 1..30 a crowd, 31 an outlier
    cand = np.arange(1, 32)
    center, _ = strategies.order("diversity", _ctx(Z, cand, [0], budget=Budget("count", 1)))
    medoid, _ = strategies.order("representative", _ctx(Z, cand, [0], budget=Budget("count", 1)))
    assert center[0] == 31 and 1 <= medoid[0] <= 30


@pytest.mark.parametrize("n_sim", [0, 2])
def test_representative_per_hour(n_sim):
    rng = np.random.default_rng(2)
    Z = rng.normal(size=(60, 2))
    cost = rng.uniform(0.1, 50.0, 60)
    cand = np.arange(2, 60)
    order, why = strategies.order("cost-representative", _ctx(Z, cand, np.arange(n_sim), cost=cost,
                                                              budget=Budget("count", 6)))
    assert order[:6].tolist() == _greedy_medoids_by_brute_force(Z, cand, np.arange(n_sim), 6, cost)
    # the square root of the cost, not the cost: a power of 1 picks otherwise here
    linear = _greedy_medoids_by_brute_force(Z, cand, np.arange(n_sim), 6, cost ** 2)
    assert order[:6].tolist() != linear
    assert ("times sqrt hour" if n_sim == 0 else "per sqrt hour") in why[0]


def test_representative_with_duplicates_picks_each_workload_once():
    Z = np.repeat(np.array([[0.0, 0], [1, 0], [5, 5]]), 4, axis=0)
    order, _ = strategies.order("representative", _ctx(Z, np.arange(12), [], budget=Budget("count", 5)))
    assert sorted(order.tolist()) == list(range(12))
    assert sorted(Z[order[:3]].tolist()) == [[0.0, 0.0], [1.0, 0.0], [5.0, 5.0]]  # one of each place first


def test_representative_on_large_tables_samples_and_orders_the_rest():
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(strategies.MEDOID_ROWS + 400, 2))
    cand, sim = np.arange(5, len(Z)), np.arange(5)
    a, why = strategies.order("representative", _ctx(Z, cand, sim, budget=Budget("count", 4), seed=7))
    b, _ = strategies.order("representative", _ctx(Z, cand, sim, budget=Budget("count", 4), seed=7))
    assert a.tolist() == b.tolist() and sorted(a.tolist()) == cand.tolist()
    # the picks come from the sample weighed as picks, drawn first from the same generator
    pool = np.sort(np.random.default_rng(7).choice(cand, strategies.MEDOID_PICKS, replace=False))
    assert set(a[:4].tolist()) <= set(pool.tolist())
    # the rest: the farthest from the simulated and picked first
    far = strategies.nearest_distance(Z, a[4:], np.concatenate([sim, a[:4]]))
    assert np.all(np.diff(far) <= 0) and "farthest" in why[4]
