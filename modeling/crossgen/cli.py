"""Command line of the cross-generation method: ``ensemble``, ``sweep``, ``rank``, ``devices``.

``python -m modeling ensemble --host GTX-680 --target GTX-980 [--json]`` runs a
scenario and prints its leaderboard; ``sweep`` the Random Forest tree-count
sweep (RastSim 4.4); ``rank`` one model's feature ranking; ``devices`` the
shipped GPUs.
"""

from __future__ import annotations

import json

from modeling.crossgen.situations import NEW_INPUTS, SITUATIONS
from modeling.intervals import conformal
from modeling.crossgen.ensemble import TRANSFORMS
from modeling.errors import ModelingError
from modeling.parallel import add_jobs_argument
from modeling.tables.arguments import add_workload_table
from modeling.tables.export import table_out, write_table


def _scenario_args(p, transforms=TRANSFORMS, transform="none"):
    """The data and evaluation options of a crossgen command; ``transforms`` the target transforms it offers."""
    src = p.add_argument_group("data")
    add_workload_table(src, "group column (application) for grouped CV (--csv)")
    src.add_argument("--features", help="comma-separated feature columns (default: all numeric)")
    ev = p.add_argument_group("evaluation")
    ev.add_argument("--models", default="halwpe", help="halwpe | rastsim | comma-separated names")
    ev.add_argument("--cv", default="kfold", choices=["kfold", "group", "logo"])
    ev.add_argument("--folds", type=int, default=10)
    ev.add_argument("--transform", default=transform, choices=list(transforms))
    ev.add_argument("--seed", type=int, default=0)
    add_jobs_argument(ev, "(model, fold) fits")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")


def load_scenario(args) -> dict:
    """Resolve the data options of a command into a scenario dict."""
    if args.csv:
        from modeling.tables.workload import table_scenario
        from modeling.tables.reading import read_table

        if not args.target:
            raise ModelingError("--csv needs --target COLUMN.")
        table = read_table(args.csv)
        feats = [f.strip() for f in args.features.split(",")] if args.features else None
        return table_scenario(table.frame, args.target, args.group, args.id_col, feats, args.host_col,
                              table.conversions)
    from modeling import shipped

    if not (args.host and args.target):
        raise ModelingError("Give --host and --target GPUs (see 'python -m modeling devices'), or --csv FILE.")
    return shipped.scenario(args.host, args.target, args.metric)


def _prepared(args):
    """The scenario and its validated arrays (constant columns dropped, as in ``ensemble``)."""
    from modeling.crossgen.ensemble import prepare_scenario

    scen = load_scenario(args)
    return scen, prepare_scenario(scen)


def _run(args, scen):
    from modeling.crossgen.ensemble import run_scenario

    return run_scenario(scen, models=args.models, cv=args.cv, folds=args.folds, transform=args.transform,
                        seed=args.seed, n_jobs=args.jobs)


def cmd_ensemble(args) -> int:
    scen = load_scenario(args)
    res = _run(args, scen)
    missing = scen.get("missing_rows", 0)
    if args.json:
        print(json.dumps({**res.cli_json(), "missing_rows": missing}, indent=2))
        return 0
    print(res.summary(missing, _provenance(args, "ensemble", {"models": args.models, "cv": args.cv,
                                                            "folds": args.folds, "transform": args.transform}))
          .as_text())
    return 0


def cmd_sweep(args) -> int:
    from modeling.crossgen.ensemble import make_splits
    from modeling.crossgen.sweep import tree_sweep

    scen, d = _prepared(args)
    splits = make_splits(len(d["y"]), args.cv, args.folds, d["groups"], args.seed)
    res = tree_sweep(d["X"], d["y"], splits, seed=args.seed, n_jobs=args.jobs)
    if args.json:
        print(json.dumps(res.cli_json(), indent=2))
        return 0
    print(res.summary(_provenance(args, "sweep", {"cv": args.cv, "folds": args.folds})).as_text())
    return 0


def cmd_rank(args) -> int:
    from modeling.crossgen.ensemble import categories_of
    from modeling.crossgen.ranking import rank_features

    scen, d = _prepared(args)
    res = rank_features(d["X"], d["y"], d["names"], args.model, categories=categories_of(scen, d["names"]),
                        seed=args.seed)
    if args.json:
        print(json.dumps(res.cli_json(), indent=2))
        return 0
    prov = _provenance(args, "ranking", {"model": args.model})
    print(res.summary(len(d["y"]), prov, top=args.top).as_text())
    return 0


def cmd_devices(args) -> int:
    from modeling import shipped

    df = shipped.devices()
    print(df.to_json(orient="records", indent=2) if args.json else df.to_string(index=False))
    return 0


def cmd_predict(args) -> int:
    """Fit on every measured workload and predict the workloads of ``--new`` (or the table's own workloads
    without a target), with intervals, the baseline and an applicability verdict per workload."""
    from modeling.crossgen.predict import new_workloads, predict_scenario
    from modeling.tables.reading import read_table

    scen = load_scenario(args)
    new = None
    if args.new:
        from modeling.crossgen.ensemble import prepare_scenario

        frame = read_table(args.new).frame
        names = scen["feature_names"]
        prepare_scenario(scen)  # the training table's own errors first
        new = new_workloads(frame, names, args.new_id or (args.id_col if args.id_col in frame.columns else None),
                            args.new_group or (args.group if args.group and args.group in frame.columns else None))
    res = predict_scenario(scen, new, model=args.model, transform=args.transform, level=args.level,
                           situation=args.situation, rule=args.rule, seed=args.seed, folds=args.folds,
                           models=args.models, n_jobs=args.jobs)
    if args.out:
        write_table(res.to_frame({"code_version": _code_version()}), args.out)
    if args.json:
        d = res.cli_json()
        d["cv_coverage_percent"] = conformal.quoted_coverage(d["cv_coverage"])
        print(json.dumps(d, indent=2))
        return 0
    print(res.summary(_context(args, res)).as_text())
    if args.out:
        print(f"written: {args.out}")
    return 0


def _context(args, res):
    """What the command line's summary of a prediction says of its data: where the workloads came from, the unit,
    the scenario and the provenance."""
    from modeling import shipped
    from modeling.crossgen.prediction_summary import Context
    from modeling.results import Provenance

    name = args.csv or shipped.NAME
    unit = "" if args.csv else shipped.UNITS[args.metric]
    host = args.host_col if args.csv else args.host
    source = args.new or "the dataset's workloads without a measured target"
    c = res.choice
    params = {"host": host, "target": args.target, "metric": args.metric, "model": c.requested_model,
              "transform": c.requested_transform, "level": c.level, "situation": c.situation, "seed": args.seed}
    prov = Provenance.now("predict", params, args.csv or "rodinia", name, seconds=res.seconds)
    scenario = f"{name}: {host or 'host'} → {args.target}, {args.metric} ({unit or 'no unit given'})."
    return Context(source, args.target, unit, scenario, prov, prov.text())


def _provenance(args, kind: str, params: dict):
    """The provenance of a command's result on its data (the shipped data or ``--csv``)."""
    from modeling import shipped
    from modeling.results import Provenance

    host = args.host_col if args.csv else args.host
    every = {"host": host, "target": args.target, "metric": args.metric, **params, "seed": args.seed}
    return Provenance.now(kind, every, args.csv or "rodinia", args.csv or shipped.NAME)


def _code_version() -> str:
    from modeling.version import code_version

    return code_version()


def add_parsers(sub) -> None:
    e = sub.add_parser("ensemble", help="run a scenario and print the leaderboard")
    _scenario_args(e)
    e.set_defaults(func=cmd_ensemble)
    s = sub.add_parser("sweep", help="Random Forest tree-count sweep (n = 2^1 .. 2^10)")
    _scenario_args(s)
    s.set_defaults(func=cmd_sweep)
    r = sub.add_parser("rank", help="feature ranking of one model")
    _scenario_args(r)
    r.add_argument("--model", default="OLS/Forward/BIC")
    r.add_argument("--top", type=int, default=20)
    r.set_defaults(func=cmd_rank)
    pr = sub.add_parser("predict", help="predict workloads without a measured target, with intervals")
    _scenario_args(pr, transforms=("auto", *TRANSFORMS), transform="auto")  # auto: chosen by cross-validation
    pr.add_argument("--new", help="CSV or Parquet of workloads to predict (host counters; a target column is "
                                  "never read); default: the data's own workloads without a target")
    pr.add_argument("--new-id", help="id column of --new (default: --id when the table has it)")
    pr.add_argument("--new-group", help="application column of --new (default: --group when the table has it)")
    pr.add_argument("--model", default="recommended", help="a model name, or recommended (nested CV, baseline "
                                                           "included)")
    pr.add_argument("--level", type=float, default=0.9, help="nominal coverage of the intervals (default 0.9)")
    pr.add_argument("--situation", default=NEW_INPUTS, choices=list(SITUATIONS))
    pr.add_argument("--rule", default=None, choices=["pooled", "weighted", "per_application", "held_out"],
                    help="interval rule (default: pooled for new inputs, held_out for new applications)")
    pr.add_argument("--out", type=table_out, help="write the prediction table to FILE.csv or FILE.parquet")
    pr.set_defaults(func=cmd_predict)
    dv = sub.add_parser("devices", help="list the shipped GPUs")
    dv.add_argument("--json", action="store_true")
    dv.set_defaults(func=cmd_devices)
