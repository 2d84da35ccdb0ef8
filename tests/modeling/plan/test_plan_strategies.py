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
