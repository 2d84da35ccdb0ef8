"""Command line ``phases``: LACross on held-out programs beside the global model and the baselines.

``python -m modeling phases --host-freq 1000 --target-freq 2000 --target cycles [--features counters|counters+host]
[--norm z|rate|raw] [--granularity 2e9] [--eps cv|PCT] [--T cv|FACTOR] [--folds 5] [--seed 0] [--json]``
on the shipped cBench traces, or ``--phases DIR`` (written by ``build-data armpm --out DIR``).
"""

from __future__ import annotations

import json

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
        ph = data.pair_from(samples, args.host_freq, args.target_freq, args.granularity)
        excluded = data.excluded_runs(samples)
    else:
        ph = data.shipped_pair(args.host_freq, args.target_freq, args.granularity)
        excluded = data.excluded_runs()
    res = evaluate(ph, args.target, args.features, args.norm, _num_or_cv(args.eps), _num_or_cv(args.T),
                   args.folds, args.seed, args.cache_l, args.search)
    res.pop("phase_predictions")
    if args.cache_l > 0:  # what the unique-phase cache costs: the same LACross run without it
        plain = evaluate(ph, args.target, args.features, args.norm, _num_or_cv(args.eps), _num_or_cv(args.T),
                         args.folds, args.seed, 0.0, args.search, models=("lacross",))
        with_cache = next(m for m in res["models"] if m["model"] == "lacross")["per_phase_mape"]
        res["cache_cost"] = {"lacross_mape_without_cache": plain["models"][0]["per_phase_mape"],
                             "lacross_mape_with_cache": with_cache,
                             "change": with_cache - plain["models"][0]["per_phase_mape"]}
    res.update(host_freq=args.host_freq, target_freq=args.target_freq, granularity=args.granularity,
               excluded_runs=excluded)
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"{args.host_freq:g} -> {args.target_freq:g} MHz, {args.target}, features {args.features} ({args.norm}), "
          f"{res['n_programs']} programs, {res['n_phases']} phases of {args.granularity:.3g} instructions, "
          f"{res['folds']} program-grouped folds")
    print(f"{'model':16s} {'per-phase MAPE %':>17s} {'program mean %':>15s} {'program max %':>14s}")
    for m in res["models"]:
        print(f"{m['model']:16s} {m['per_phase_mape']:17.2f} {m['program_mean_ape']:15.2f} "
              f"{m['program_max_ape']:14.2f}")
    print(f"eps/T per fold: {[(c['eps_pct'], c['t_factor']) for c in res['chosen']]}; phases in a fallback "
          f"neighbourhood: {res['fallback_phases']}; unique-phase cache hit rate {res['unique_hit_rate']:.2f}; "
          f"excluded runs: {len(excluded)}")
    if "cache_cost" in res:
        c = res["cache_cost"]
        print(f"unique-phase cache at L = {args.cache_l:g}: LACross per-phase MAPE "
              f"{c['lacross_mape_with_cache']:.2f} % with it, {c['lacross_mape_without_cache']:.2f} % without "
              f"({c['change']:+.2f} points)")
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("phases", help="LACross phase-level prediction on held-out programs")
    p.add_argument("--phases", help="directory with armpm_samples.parquet (default: the shipped cBench traces)")
    p.add_argument("--host-freq", type=float, default=1000)
    p.add_argument("--target-freq", type=float, default=2000)
    p.add_argument("--target", default="cycles", choices=["cycles", "power"])
    p.add_argument("--features", default="counters", choices=["counters", "counters+host"])
    p.add_argument("--norm", default="z", choices=["z", "rate", "raw"])
    p.add_argument("--granularity", type=float, default=2e9, help="retired instructions per phase")
    p.add_argument("--eps", default="cv", help="'cv' or a percentile of training distances (100 = global)")
    p.add_argument("--T", default="cv", help="'cv' or a multiple of the global NNLS l1 norm ('inf' = no bound)")
    p.add_argument("--search", default="best", choices=["best", "first-below-5"],
                   help="CV: the best setting, or the paper's first setting under 5 %% error")
    p.add_argument("--cache-l", type=float, default=0.0, help="unique-phase cache threshold (l-inf, feature units)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_phases)
