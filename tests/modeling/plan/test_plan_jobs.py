"""A plan's batch does not depend on how many processes compute it: the replays spread over processes and the
random start assessed once per seed give the batches (and replay curves) the one-process planner gave."""

import pytest

from modeling.plan.inputs import parse_budget, read_plan_table
from modeling.plan.planner import plan

from tests.modeling.plan.conftest import synthetic_frame

#: what the planner chose on this table in one process, before its replays were spread over processes
BEFORE = {
 "12": [
  "representative",
  [
   "w56",
   "w53",
   "w78",
   "w71",
   "w55",
   "w82",
   "w83",
   "w93",
   "w94",
   "w49",
   "w61",
   "w80"
  ],
  [
   [
    0.16017011260259745,
    0.13320224804854228,
    0.13176672564239048,
    0.10325493522867746
   ],
   [
    0.16017011260259745,
    0.16817854373674,
    0.12745495434423748,
    0.09445872285747074
   ],
   [
    0.16017011260259745,
    0.1388438932050462,
    0.10807959104504125,
    0.09549680367983648
   ],
   [
    0.16017011260259745,
    0.13329241596135602,
    0.11118116662605045,
    0.0989116850712604
   ],
   [
    0.16017011260259745,
    0.14449031381037658,
    0.13121853086548113,
    0.0978991581131112
   ],
   [
    0.16017011260259745,
    0.12802113474489638,
    0.12850439132561842,
    0.10352437992713244
   ],
   [
    0.16017011260259745,
    0.13270265818230514,
    0.14791180951659072,
    0.1346925287304806
   ],
   [
    0.16017011260259745,
    0.13270265818230514,
    0.14082004527681258,
    0.1281151952808371
   ]
  ]
 ],
 "3h": [
  "random",
  [
   "w59",
   "w106",
   "w104",
   "w76",
   "w60",
   "w51",
   "w53",
   "w92",
   "w48",
   "w105",
   "w56",
   "w101",
   "w58"
  ],
  [
   [
    0.16017011260259745,
    0.12451088191428009,
    0.12344897327672844,
    0.1375011945445037
   ],
   [
    0.16017011260259745,
    0.12823886795766093,
    0.14678276184883307,
    0.2104329890299932
   ],
   [
    0.16017011260259745,
    0.09693775289489424,
    0.16615181101558585,
    0.13916598463110685
   ],
   [
    0.16017011260259745,
    0.1493859748830795,
    0.17448182893059766,
    0.2883269973557534
   ],
   [
    0.16017011260259745,
    0.14979876920487176,
    0.13177057646235624,
    0.1868707105120626
   ],
   [
    0.16017011260259745,
    0.13067185965637063,
    0.20058841964515767,
    0.20319417095568415
   ],
   [
    0.16017011260259745,
    0.15117751958004716,
    0.17475836678697454,
    0.19904059012147735
   ],
   [
    0.16017011260259745,
    0.13123558201673755,
    0.1644457247571146,
    0.2601546511817532
   ]
  ]
 ]
}


@pytest.mark.parametrize("budget", ["12", "3h"])
def test_same_batches_as_the_one_process_planner(budget):
    frame = synthetic_frame(n=120, measured=40)
    table = read_plan_table(frame, "target", "workload", host_col="host_s", group_col="application",
                            cost_col="sim_hours")
    res = plan(table, parse_budget(budget), seed=0, calibration_ids=[f"w{i}" for i in range(0, 40, 2)], n_jobs=2)
    strategy, ids, errors = BEFORE[budget]
    assert res.strategy == strategy
    assert [item.id for item in res.batch] == ids
    assert [c.error for c in res.replay] == errors


def test_plan_command_uses_every_core_by_default():
    import argparse

    from modeling.parallel import cores
    from modeling.plan import cli

    p = argparse.ArgumentParser()
    cli.add_parsers(p.add_subparsers())
    args = p.parse_args(["plan", "--csv", "t.csv", "--target", "y", "--id", "i", "--budget", "3"])
    assert args.jobs == cores()
