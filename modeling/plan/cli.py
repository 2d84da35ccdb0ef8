"""Command line: ``python -m modeling plan --csv TABLE --target COL --host-col COL --id COL ... --json``.

Rows with an empty target are the candidates, rows with a value the simulated ones. Prints the batch
(``{"strategy", "batch": [{"id", "rank", "cost", "why", "width", ...}], "expected", "replay", ...}`` with
``--json``, the plan's summary otherwise: :mod:`modeling.plan.summary`); ``--out`` writes the batch as CSV (the
list a simulation farm runs); ``--results`` first fills in the simulated values of a finished batch: a table of
ids and values (matched by id), or the farm's own output (files, folders or zips of GPGPU-Sim / Accel-Sim / gem5
output or a long table), joined to the table's ids on the workload key (:mod:`modeling.plan.loop`);
``--previous`` (the last round's ``--json`` output or batch CSV) names the batch, so the workloads that did not
come back are listed (``--retry-missing`` puts them first in the next batch), and says what the round changed.
"""

from __future__ import annotations

import json

from modeling.crossgen.situations import NEW_INPUTS, SITUATIONS
from modeling.tables.export import table_out, write_table
from modeling.errors import ConfigError
from modeling.parallel import add_jobs_argument
from modeling.plan.summary import LEVEL


def cmd_plan(args) -> int:
    import pandas as pd

    from modeling.plan.inputs import merge_results, parse_budget, read_plan_table
    from modeling.plan.planner import plan
    from modeling.tables.reading import read_table

    if args.cost_col is None and args.slowdown is None:
        raise ConfigError("Give the cost of a simulation: --cost-col COLUMN (hours) or --slowdown X (simulator "
                          "time over host time, with --host-col).")
    budget = parse_budget(args.budget)
    table = read_table(args.csv)
    frame = table.frame
    rounds = previous = None
    if args.retry_missing and not args.previous:
        raise ConfigError("--retry-missing needs the last round's batch: give it with --previous.")
    if args.results_stat and not args.results:
        raise ConfigError("--results-stat names a statistic of the results: give them with --results.")
    if args.previous:
        from modeling.plan.loop import read_previous

        previous = read_previous(args.previous)
    if args.results:
        from modeling.plan.loop import is_simulator_output, read_round

        if all(is_simulator_output(p) for p in args.results):
            frame, rounds = read_round(args.results, frame, args.id, args.target, statistic=args.results_stat,
                                       configuration=args.configuration,
                                       batch_ids=[b["id"] for b in previous["batch"]] if previous else None)
        elif len(args.results) == 1:
            frame = merge_results(frame, read_table(args.results[0]).frame, args.id, args.target)
        else:
            raise ConfigError("Give one results table (ids and values), or simulator output only.")
    first = None
    if args.retry_missing:
        from modeling.plan.loop import missing_of_batch, retry_first

        batch_ids = [b["id"] for b in previous["batch"]]
        first = retry_first(rounds.missing if rounds is not None else missing_of_batch(
            frame, args.id, args.target, batch_ids,
            "no value for it in the results" if args.results else "no value for it in the table"))
    cal_ids = None
    if args.calibration_col:
        if args.calibration_col not in frame.columns:
            raise ConfigError(f"Calibration column {args.calibration_col!r} is not in the table.")
        cal_ids = frame.loc[frame[args.calibration_col].fillna(0).astype(bool), args.id].astype(str).tolist()
    features = [f.strip() for f in args.features.split(",")] if args.features else None
    if features is None and args.calibration_col:
        features = [c for c in frame.columns if c not in {args.target, args.id, args.group, args.cost_col,
                                                          args.calibration_col}
                    and pd.api.types.is_numeric_dtype(frame[c])]
    pt = read_plan_table(frame, args.target, args.id, host_col=args.host_col, group_col=args.group,
                         cost_col=args.cost_col, slowdown=args.slowdown, features=features,
                         text_dropped=table.text_dropped)
    res = plan(pt, budget, strategy=args.strategy, situation=args.situation, level=args.level, seed=args.seed,
               calibration_ids=cal_ids, replay_seeds=args.replay_seeds,
               first_ids=first,
               n_jobs=args.jobs)
    if args.out:
        write_table(res.batch_frame(), args.out)
    if args.merged_out:
        write_table(frame, args.merged_out)
    d = res.to_dict()
    changes = None
    if previous is not None:
        from modeling.plan.loop import round_changes

        values = rounds.values if rounds is not None else dict(zip(pt.ids[pt.measured], pt.y[pt.measured]))
        changes = round_changes(previous, values, res)
    if rounds is not None:
        d["results"] = rounds.to_dict()
    if changes is not None:
        # the round's number, parent version and count are /plan's (a dataset version): not in the JSON
        d["changes"] = {k: v for k, v in changes.to_dict().items() if k not in ("round", "parent", "merged")}
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    from modeling.results import Provenance

    prov = Provenance.now("plan", {k: v for k, v in vars(args).items() if k != "func"}, args.csv, args.csv)
    print(res.summary(data=args.csv, target=args.target, level=args.level, changes=changes, results=rounds,
                      provenance=prov).as_text())
    for path in (args.out, args.merged_out):
        if path:
            print(f"written: {path}")
    return 0


def add_parsers(sub) -> None:
    from modeling.plan.planner import STRATEGY_CHOICES

    p = sub.add_parser("plan", help="which workloads to simulate next, under a budget of workloads or hours")
    p.add_argument("--csv", required=True, help="workload table (CSV or Parquet); an empty target = a candidate")
    p.add_argument("--target", required=True, help="target column (the simulated value)")
    p.add_argument("--host-col", help="the host's own measure of the target (e.g. host time, seconds)")
    p.add_argument("--id", required=True, help="workload id column")
    p.add_argument("--group", help="application column")
    p.add_argument("--features", help="comma-separated counter columns (default: every numeric column)")
    cost = p.add_mutually_exclusive_group()
    cost.add_argument("--cost-col", help="simulator hours per workload")
    cost.add_argument("--slowdown", type=float, help="simulator slowdown: hours = host time (s) x X / 3600")
    p.add_argument("--budget", required=True, help="N workloads, or Nh simulator hours (e.g. 20 or 40h)")
    p.add_argument("--strategy", default="auto", choices=list(STRATEGY_CHOICES))
    p.add_argument("--situation", default=NEW_INPUTS, choices=list(SITUATIONS))
    p.add_argument("--level", type=float, default=LEVEL, help=f"nominal coverage of the intervals (default {LEVEL:g})")
    p.add_argument("--results", nargs="+", metavar="PATH",
                   help="a finished batch, merged first: a CSV/Parquet of id and target columns, or the simulator "
                        "output (files, folders, zips, a long table) joined on the workload key")
    p.add_argument("--results-stat", help="the simulator statistic that is the target (a name, or cycles, seconds, "
                                          "instructions, power; default: the target column's name)")
    p.add_argument("--configuration", help="the simulated configuration the target is of, when the results hold "
                                           "several")
    p.add_argument("--previous", help="the last round's plan (its --json output or --out batch CSV): lists the "
                                      "batch's workloads that did not come back and what the round changed")
    p.add_argument("--retry-missing", action="store_true",
                   help="put the last batch's workloads that did not come back first in the next batch")
    p.add_argument("--merged-out", type=table_out,
                   help="write the table with the round's results merged to FILE.csv or FILE.parquet")
    p.add_argument("--calibration-col", help="column marking the simulated workloads drawn at random (1/0): "
                                             "they alone calibrate the intervals")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--replay-seeds", type=int, default=2, help="seeds of the replay on the simulated workloads")
    add_jobs_argument(p, "the model's folds and the strategies' replays")
    p.add_argument("--out", type=table_out, help="write the batch to FILE.csv or FILE.parquet")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_plan)


__all__ = ["add_parsers", "cmd_plan"]
