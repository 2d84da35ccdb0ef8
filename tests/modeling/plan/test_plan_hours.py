"""A budget in hours on a heavy-tailed cost table: the batch follows its strategy, the random calibration slice
is a stated share of the hours and of the count, and a replay that runs out of workloads is reported, not
raised."""

import numpy as np
import pytest
from scipy.stats import norm, rankdata

from modeling.plan import auto, strategies
from modeling.plan.batch import select
from modeling.plan.calibration import CALIBRATION_SHARE
from modeling.plan.inputs import Budget, read_plan_table
from modeling.plan.planner import _expected, plan
from modeling.plan.replay import curve, embed, replay
from modeling.plan.results import ReplayCurve
from tests.modeling.plan.conftest import synthetic_frame

#: the budget of a round in the tests below (hours)
BUDGET = 20.0


def heavy_frame(n=400, measured=40, seed=0):
    """Costs lognormal over six orders of magnitude (median 0.03 h, sigma 2.5 in log hours, in the order of the
    host time), and three workloads costing more than a round's budget."""
    f = synthetic_frame(n=n, measured=measured, seed=seed)
    z = norm.ppf((rankdata(f["host_s"], method="ordinal") - 0.5) / n)
    cost = 0.03 * np.exp(2.5 * z)
    cost[np.argsort(-cost)[:3]] = [3 * BUDGET, 2 * BUDGET, 1.5 * BUDGET]
    return f.assign(sim_hours=cost)


@pytest.fixture()
def heavy():
    f = heavy_frame()
    t = read_plan_table(f, "target", "workload", host_col="host_s", group_col="application", cost_col="sim_hours")
    assert np.log10(t.cost.max() / t.cost.min()) > 6 and (t.cost > BUDGET).sum() == 3
    return t


@pytest.mark.parametrize("strategy", ["cost-diversity", "diversity", "representative", "cost-representative",
                                      "uncertainty", "cost"])
def test_the_random_slice_is_a_share_of_the_hours_and_of_the_count(heavy, strategy):
    p = plan(heavy, Budget("hours", BUDGET), strategy=strategy, replay_seeds=1)
    cal = [b for b in p.batch if b.calibration]
    picks = [b for b in p.batch if not b.calibration]
    hours = sum(b.cost for b in p.batch)
    assert hours <= BUDGET + 1e-9 and hours > 0.9 * BUDGET  # the budget is spent
    assert sum(b.cost for b in cal) <= CALIBRATION_SHARE * BUDGET + 1e-9
    assert len(cal) <= CALIBRATION_SHARE * len(p.batch) + 1  # stochastic rounding: one more at most
    assert len(picks) >= len(cal)  # before: 222 of 223 were random draws
    share = f"{CALIBRATION_SHARE:.0%}"
    assert all(f"at most {share} of the batch's hours and at most {share} of its workloads" in b.why for b in cal)
    assert f"at most {share} of the batch's hours" in p.calibration
    assert not any("not reached by k-center" in b.why for b in picks)


def test_the_greedy_strategies_spend_an_hours_budget_on_their_own_picks(heavy):
    """k-center and k-medoids pick among what the hours left still buy, so the order's head is the batch."""
    Z = embed(heavy)
    cand, known = np.flatnonzero(heavy.candidates), np.flatnonzero(heavy.measured)
    for name, word in (("diversity", "farthest"), ("cost-diversity", "farthest"), ("representative", "brings"),
                       ("cost-representative", "brings")):
        ctx = strategies.Context(Z, cand, known, None, heavy.cost, heavy.groups, Budget("hours", BUDGET),
                                 np.random.default_rng(0))
        order, why = strategies.order(name, ctx)
        pos = strategies.fill(order, heavy.cost, ctx.budget)
        assert all(why[i].startswith(word) for i in pos), name
        assert heavy.cost[order[pos]].sum() > 0.9 * BUDGET


def test_a_count_budget_keeps_its_slice(table):
    ctx = strategies.Context(embed(table), np.flatnonzero(table.candidates), np.flatnonzero(table.measured), None,
                             table.cost, table.groups, Budget("count", 10), np.random.default_rng(1))
    picks, why, flags = select("diversity", ctx)
    assert len(picks) == 10 and flags.sum() == 2 and "20% of the batch's workloads" in why[-1]


def test_a_replay_that_runs_out_of_workloads_says_so(heavy):
    done = heavy.subset(np.flatnonzero(heavy.measured))
    total = float(done.cost.sum())
    for s in ("random", "cost-diversity"):
        run = replay(done, s, round_budget=Budget("hours", total), rounds=3, start=20, seed=0)
        assert len(run) == 1 and run[-1]["ran_out"]  # the first batch took all: before, a traceback in assess
        c = curve(s, [run], "hours")
        assert c.ran_out == 1 and len(c.error) == 1
    chosen, why, scores = auto.pick({"random": [run], "diversity": [run]}, "hours")
    assert chosen == auto.DEFAULT["hours"] and "ran out of workloads" in why and scores == {}


def test_pick_scores_every_strategy_on_the_rounds_all_of_them_have():
    def r(*errors, out=False):
        rows = [{"error": e, "ran_out": False} for e in errors]
        rows[-1]["ran_out"] = out
        return [rows]

    runs = {"cost-diversity": r(1.0, 0.5, 0.1, 0.05), "random": r(1.0, 0.4, out=True)}
    chosen, why, scores = auto.pick(runs, "hours")
    assert scores == {"cost-diversity": 0.5, "random": 0.4} and "ran out" in why and "first 1 round(s)" in why


def test_an_auto_plan_in_hours_on_a_heavy_tailed_table(heavy):
    """Before: the replays' random slice simulated every held-back workload and the next round raised."""
    p = plan(heavy, Budget("hours", BUDGET), strategy="auto", replay_seeds=2)
    assert p.batch and p.strategy in auto.CANDIDATES
    assert sum(b.cost for b in p.batch if b.calibration) <= CALIBRATION_SHARE * BUDGET + 1e-9


def test_no_expected_effect_from_a_flat_or_rising_replay(heavy):
    class A:
        cv_error, lower, upper = 0.0582, None, None

    flat = ReplayCurve("cost-diversity", "hours", 1, [10, 20, 30], [1.0, 2.0, 3.0], [0.06, 0.061, 0.062],
                       [0, 0, 0], [6, 6, 6], [None] * 3, [None] * 3, [None] * 3, ran_out=1)
    e = _expected(A(), flat, 100.0, 100.0, 5, 100.0, "hours")
    assert e.error_after is None and "did not fall" in e.basis
    assert "^ -0.00" not in e.basis
    assert "ran out of workloads" in e.basis


@pytest.mark.parametrize("strategy", ["cost-diversity", "representative"])
def test_a_batch_in_hours_is_mostly_the_strategys(heavy, strategy):
    """The batch alone (no replay): before, the random slice was sized from the median cost (20 % of
    BUDGET / 0.03 h slots) and spent the whole budget."""
    ctx = strategies.Context(embed(heavy), np.flatnonzero(heavy.candidates), np.flatnonzero(heavy.measured), None,
                             heavy.cost, heavy.groups, Budget("hours", BUDGET), np.random.default_rng(0))
    picks, why, flags = select(strategy, ctx)
    assert heavy.cost[picks[flags]].sum() <= CALIBRATION_SHARE * BUDGET + 1e-9
    assert flags.sum() <= CALIBRATION_SHARE * len(picks) + 1
    assert heavy.cost[picks].sum() > 0.9 * BUDGET
