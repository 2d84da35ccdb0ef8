"""Command line ``phases``: LACross on held-out programs beside the global model and the baselines.

``python -m modeling phases --host-freq 1000 --target-freq 2000 --target cycles [--features counters|counters+host]
[--norm z|rate|raw] [--granularity G] [--eps cv|PCT] [--T cv|FACTOR] [--folds 5] [--seed 0] [--json]``
on the shipped cBench traces, or ``--phases DIR`` (written by ``build-data armpm --out DIR``).

``python -m modeling phases predict --trace FILE --host-freq F --target-freq G [--target cycles|power]
[--model auto|lacross|global|nnls-baseline|ratio-baseline|program-ratio|mean-baseline] [--level 0.9] [--phases DIR]
[--json | --out FILE.csv|.parquet]``: the target trace of a program never run on the target, from its host
run (:mod:`modeling.phases.predict`).
"""

from __future__ import annotations

import json

from modeling.tables.export import table_out, write_table
from modeling.errors import ModelingError


def _num_or_cv(v: str):
    if v == "cv":
        return v
    try:
        return float(v)
    except ValueError:
        raise ModelingError(f"expected 'cv' or a number, not {v!r}") from None


def cmd_phases(args) -> int:
    from modeling.phases import data
    from modeling.phases.evaluate import evaluate

    if args.phases:
        samples = data.samples_from(args.phases)
        rule = data.granularity_of(samples, args.host_freq, args.target_freq)
    else:
        samples = None
        rule = data.shipped_granularity(args.host_freq, args.target_freq)
    if args.granularity is None:
        args.granularity = rule.value
    if samples is not None:
        ph = data.pair_from(samples, args.host_freq, args.target_freq, args.granularity)
        excluded = data.excluded_runs(samples)
    else:
        ph = data.shipped_pair(args.host_freq, args.target_freq, args.granularity)
        excluded = data.excluded_runs()
    ev = evaluate(ph, args.target, args.features, args.norm, _num_or_cv(args.eps), _num_or_cv(args.T),
                  args.folds, args.seed, args.cache_l, args.search)
    cache_cost = None
    if args.cache_l > 0:  # what the unique-phase cache costs: the same LACross run without it
        plain = evaluate(ph, args.target, args.features, args.norm, _num_or_cv(args.eps), _num_or_cv(args.T),
                         args.folds, args.seed, 0.0, args.search, models=("lacross",))
        with_cache, without = ev.score("lacross").per_phase_mape, plain.score("lacross").per_phase_mape
        cache_cost = {"lacross_mape_without_cache": without, "lacross_mape_with_cache": with_cache,
                      "change": with_cache - without}
    if args.json:
        out = ev.cli_json()
        out.pop("phase_predictions")
        if cache_cost:
            out["cache_cost"] = cache_cost
        out.update(host_freq=args.host_freq, target_freq=args.target_freq, granularity=args.granularity,
                   excluded_runs=excluded)
        print(json.dumps(out, indent=2))
        return 0
    where = str(args.phases) if args.phases else data.SHIPPED_NAME
    print(ev.summary(f"{where}: {args.host_freq:g} → {args.target_freq:g} MHz", args.granularity,
                     f"{len(excluded)} run(s), instructions more than 10 % from the median of the program's runs"
                     ).as_text())
    if cache_cost:
        c = cache_cost
        print(f"unique-phase cache at L = {args.cache_l:g}: LACross per-phase MAPE "
              f"{c['lacross_mape_with_cache']:.2f} % with it, {c['lacross_mape_without_cache']:.2f} % without "
              f"({c['change']:+.2f} points)")
    return 0


def predict_json(res) -> dict:
    """The command's JSON: the result's ``cli_json()`` (``program``, ``model``, ``level``, ``total``,
    ``phases`` with ``start_instructions``, ``predicted``, ``lower``, ``upper``, ``fallback``, and the rest)."""
    return res.cli_json()


def cmd_phases_predict(args) -> int:
    from pathlib import Path

    from modeling.phases import data
    from modeling.phases.predict import predict_trace, read_trace_file
    from modeling.results import Provenance
    from modeling.version import code_version

    frame, read_notes = read_trace_file(args.trace)
    samples, name = None, data.SHIPPED_NAME
    if args.phases:
        samples, name = data.samples_from(args.phases), str(args.phases)
    res = predict_trace(frame, args.host_freq, args.target_freq, args.target, args.model, args.level, None,
                        name, args.granularity, args.program, args.run, training_samples=samples, folds=args.folds,
                        seed=args.seed)
    res.notes[:0] = [f"reading the trace: {n}" for n in read_notes]
    if args.out:
        import datetime

        write_table(res.to_frame({"training": name, "code_version": code_version(),
                                  "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}),
                    args.out)
    if args.json:
        print(json.dumps(predict_json(res), indent=2))
        return 0
    prov = Provenance.now("phasesnew", {"host_freq": args.host_freq, "target_freq": args.target_freq,
                                         "target": args.target, "model": args.model, "level": args.level},
                          str(args.phases) if args.phases else "cbench", name, seconds=res.seconds)
    print(res.summary(Path(args.trace).name, prov, prov.text("training data")).as_text())
    if args.out:
        print(f"wrote {args.out}")
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("phases", help="LACross phase-level prediction on held-out programs")
    p.add_argument("--phases", help="directory with armpm_samples.parquet (default: the shipped cBench traces)")
    p.add_argument("--host-freq", type=float, default=1000)
    p.add_argument("--target-freq", type=float, default=2000)
    p.add_argument("--target", default="cycles", choices=["cycles", "power"])
    p.add_argument("--features", default="counters", choices=["counters", "counters+host"])
    p.add_argument("--norm", default="z", choices=["z", "rate", "raw"])
    p.add_argument("--granularity", type=float, default=None,
                   help="retired instructions per phase (default: 2e9, or about one sample of the data's densest "
                        "run when its samples are larger; modeling.phases.granularity)")
    p.add_argument("--eps", default="cv", help="'cv' or a percentile of training distances (100 = global)")
    p.add_argument("--T", default="cv", help="'cv' or a multiple of the global NNLS l1 norm ('inf' = no bound)")
    p.add_argument("--search", default="best", choices=["best", "first-below-5"],
                   help="CV: the best setting, or the paper's first setting under 5 %% error")
    p.add_argument("--cache-l", type=float, default=0.0, help="unique-phase cache threshold (l-inf, feature units)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_phases)
    acts = p.add_subparsers(dest="phases_action", required=False, metavar="predict")
    q = acts.add_parser("predict", help="the target trace of a program never run on the target, from its host run")
    q.add_argument("--trace", required=True, help="host trace: samples (Parquet/CSV, the shipped format), the raw "
                   "armpm trace, or a phase table")
    q.add_argument("--host-freq", type=float, required=True)
    q.add_argument("--target-freq", type=float, required=True)
    q.add_argument("--target", default="cycles", choices=["cycles", "power"])
    q.add_argument("--model", default="auto", choices=["auto", "lacross", "global", "nnls-baseline",
                                                       "ratio-baseline", "program-ratio", "mean-baseline"])
    q.add_argument("--level", type=float, default=0.9)
    q.add_argument("--phases", help="directory with armpm_samples.parquet to train on (default: shipped)")
    q.add_argument("--granularity", type=float, default=None,
                   help="retired instructions per phase (default: the same rule over the host run and the "
                        "training data)")
    q.add_argument("--program", help="the program, when the trace holds several")
    q.add_argument("--run", type=int, help="the host run, when the trace holds several (default: the first)")
    q.add_argument("--folds", type=int, default=5)
    q.add_argument("--seed", type=int, default=0)
    out = q.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--out", type=table_out, help="write the prediction table (.csv or .parquet) with provenance")
    q.set_defaults(func=cmd_phases_predict)
