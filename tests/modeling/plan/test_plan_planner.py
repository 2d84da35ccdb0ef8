"""plan(): the batch with why, the expected effect, the replay curves and auto's choice."""

import json

import numpy as np
import pytest

from modeling.errors import ConfigError
from modeling.plan import auto
from modeling.plan.inputs import Budget, read_plan_table
from modeling.plan.planner import plan


def test_a_plan_within_budget_with_why(table):
    p = plan(table, Budget("hours", 3.0), strategy="diversity", replay_seeds=1)
    hours = sum(b.cost for b in p.batch)
    assert 0 < hours <= 3.0 and p.expected.batch_hours == pytest.approx(hours)
    assert [b.rank for b in p.batch] == list(range(1, len(p.batch) + 1))
    ids = set(table.ids[table.candidates])
    assert all(b.id in ids for b in p.batch)
    for b in p.batch:
        assert "costs" in b.why and "to the simulated set" in b.why
        assert b.width is None or b.width > 1
    assert p.strategy == "diversity" and p.requested == "diversity"
    assert {c.strategy for c in p.replay} == set(auto.CANDIDATES)  # 30 measured: enough to replay
    # a round of 15 % of the hours can simulate every workload a replay held back: its curve stops there, saying so
    assert all(len(c.error) == auto.ROUNDS + 1 or c.ran_out for c in p.replay)
    assert p.expected.error_now is not None and p.expected.error_after is not None
    assert p.expected.error_after <= p.expected.error_now
    json.dumps(p.to_dict())


def test_auto_takes_the_strategy_with_the_lowest_replayed_error(table):
    p = plan(table, Budget("count", 5), strategy="auto", replay_seeds=1)
    scores = {c.strategy: np.mean(c.error[1:]) for c in p.replay}
    best, default = min(scores, key=scores.get), auto.DEFAULT["count"]
    expect = best if scores[best] <= (1 - auto.SWITCH_MARGIN) * scores[default] else default
    assert p.strategy == expect and p.requested == "auto"
    assert p.strategy in p.chosen_because and "mean |log error|" in p.chosen_because
    assert len(p.batch) == 5


def test_auto_keeps_the_default_unless_clearly_beaten():
    def runs(**errors):
        return {s: [[{"error": 1.0}, {"error": e}]] for s, e in errors.items()}

    assert auto.pick(runs(representative=0.10, random=0.095))[0] == "representative"  # 5 % better: not enough
    assert auto.pick(runs(representative=0.10, random=0.08))[0] == "random"
    assert auto.pick(runs(representative=0.10, random=0.095), "hours")[0] == "representative"  # the same default
    assert auto.pick(runs(**{"cost-diversity": 0.10, "representative": 0.095}), "hours")[0] == "representative"
    chosen, why, _ = auto.pick(runs(representative=0.10, random=0.095))
    assert "the default" in why and "random 0.095" in why


def test_auto_with_too_few_simulated_uses_the_default(frame):
    frame.loc[10:, "target"] = np.nan
    t = read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours")
    p = plan(t, Budget("count", 4))
    assert p.strategy == auto.DEFAULT["count"] and "too few to replay" in p.chosen_because
    assert p.replay == [] and len(p.batch) == 4
    p = plan(t, Budget("hours", 2.0))
    assert p.strategy == auto.DEFAULT["hours"]


def test_nothing_simulated_yet(frame):
    frame["target"] = np.nan
    frame.loc[0, "target"] = 1.0  # one simulated: the baseline answers, no interval
    t = read_plan_table(frame, "target", "workload", host_col="host_s", cost_col="sim_hours")
    p = plan(t, Budget("count", 6), strategy="uncertainty")
    assert len(p.batch) == 6 and all(b.width is None for b in p.batch)
    assert "baseline" in p.model


def test_calibration_ids_calibrate(table):
    ids = list(table.ids[table.measured][:15])
    p = plan(table, Budget("count", 3), strategy="random", calibration_ids=ids, replay_seeds=1)
    assert "calibration ids" in p.calibration and "15 workloads chosen at random" in p.model


def test_bad_strategy_and_situation(table):
    with pytest.raises(ConfigError, match="Unknown strategy"):
        plan(table, Budget("count", 3), strategy="best")
    with pytest.raises(ConfigError, match="Unknown situation"):
        plan(table, Budget("count", 3), strategy="random", situation="new-gpus")


def test_new_applications(table):
    p = plan(table, Budget("count", 4), strategy="stratified", situation="new-applications", replay_seeds=1)
    assert p.situation == "new-applications" and len(p.batch) == 4


def test_a_plan_reads_back_from_its_json_as_the_same_typed_result(table):
    from modeling.plan.results import Plan

    p = plan(table, Budget("count", 4), strategy="uncertainty", replay_seeds=1)
    back = Plan.from_dict(json.loads(json.dumps(p.to_dict())))
    assert back == p and back.batch[0].id == p.batch[0].id and back.replay[0].hours == p.replay[0].hours


def test_a_plan_picks_in_the_space_its_replays_planned_in(table, monkeypatch):
    """Once a model is fitted, the batch is chosen in the importance-weighted counter space, as in the
    replays that chose the strategy (not in the unweighted one)."""
    from modeling.plan import strategies

    seen = []
    real = strategies.order

    def spy(strategy, ctx):
        seen.append(ctx.feature_weight)
        return real(strategy, ctx)

    monkeypatch.setattr(strategies, "order", spy)
    plan(table, Budget("count", 6), strategy="representative", replay_seeds=1)
    assert seen and seen[-1] is not None and seen[-1].sum() == pytest.approx(1.0)
