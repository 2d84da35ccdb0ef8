"""Command line ``newapp``: estimates for an application never run on the target, held out.

``python -m modeling newapp --host GTX-680 --target GTX-980 [--cv logo|loko] [--calibrate-with N] --json``
evaluates every estimate leave-one-application-out (or leave-one-kernel-out) on the shipped data;
``--csv FILE --target COL --group COL --host-col COL [--id COL] [--host-device NAME --target-device NAME]
[--devices FILE] [--map ROLE=COL ...]`` does the same on any workload table. ``--application APP``
prints one held-out application's estimates per workload, with its warnings.

A GPU never built or measured: ``--target-spec "name=X,architecture=Hopper,sms=132,cuda_cores=16896,
boost_clock_mhz=1980,memory_bandwidth_gbs=3350"`` (or ``--gpu NAME``, a row of the device table) prints the
spec roofline of every workload with its range, labelled with the same rule's error on the measured pairs
(shipped data: the host with every measured target GPU; a table: its own measured target column).
"""

from __future__ import annotations

import json

from modeling.errors import ConfigError, ModelingError
from modeling.newapp.data import ROLES
from modeling.parallel import add_jobs_argument


def _roles(pairs) -> dict:
    out = {}
    for p in pairs or []:
        role, sep, col = p.partition("=")
        if not sep or not col:
            raise ConfigError(f"--map takes ROLE=COLUMN, not {p!r}; roles: {', '.join(ROLES)}.")
        out[role.strip()] = col.strip()
    return out


def load_table(args):
    from modeling.newapp.data import frame_table, shipped_table

    if args.csv:
        from modeling.tables.reading import read_table

        missing = [f for f, v in (("--target", args.target), ("--group", args.group), ("--host-col", args.host_col))
                   if not v]
        if missing:
            raise ModelingError(f"--csv needs {', '.join(missing)}.")
        devices = read_table(args.devices).frame if args.devices else None
        return frame_table(read_table(args.csv).frame, target=args.target, group=args.group,
                           host_col=args.host_col, id_col=args.id_col, host_device=args.host_device,
                           target_device=args.target_device, mapping=_roles(args.map), devices=devices,
                           metric=args.metric)
    if not (args.host and args.target):
        raise ModelingError("Give --host and --target GPUs (see 'python -m modeling devices'), or --csv FILE.")
    return shipped_table(args.host, args.target, args.metric)


def _pct(v):
    return "-" if v is None else f"{v:,.1f}" if v < 1e4 else f"{v:,.0f}"


def _print_methods(res):
    """The methods of a HeldOutEvaluation or an ApplicationEstimate, and the lowest mean APE among them."""
    print(f"{'method':26s} {'mean APE %':>11s} {'median %':>9s} {'<=10 %':>7s} {'<=25 %':>7s} {'n':>5s}")
    for m in res.methods:
        extra = f"  ({m.missing})" if m.missing else ""
        print(f"{m.method:26s} {_pct(m.mean_ape):>11s} {_pct(m.median_ape):>9s} {_pct(m.within_10):>7s} "
              f"{_pct(m.within_25):>7s} {m.n:>5d}{extra}")
    for m in res.methods:
        if m.note:
            print(f"! {m.method}: {m.note}")
    if res.best is not None:
        print(f"lowest mean APE: {res.best.method} ({res.best.mean_ape:.1f} %)")


def hypothetical_device(args) -> dict | None:
    """The device of ``--target-spec`` (typed) or ``--gpu`` (a device-table row), or None."""
    from modeling.newapp.data import device_spec
    from modeling.newapp.hypothetical import parse_target_spec

    if args.target_spec and args.gpu:
        raise ConfigError("Give --target-spec or --gpu, not both.")
    if args.target_spec:
        return parse_target_spec(args.target_spec)
    if args.gpu:
        from modeling.tables.reading import read_table

        return device_spec(args.gpu, read_table(args.devices).frame if args.devices else None)
    return None


def hypothetical_result(args, device: dict):
    """The HypotheticalEstimate the command line prints (the page computes the same)."""
    from modeling.newapp.hypothetical import shipped_hypothetical, table_hypothetical

    source = "typed" if args.target_spec else "device table"
    if args.csv:
        return table_hypothetical(load_table(args), device, source)
    if not args.host:
        raise ModelingError("Give --host (the GPU whose counters are used), or --csv FILE.")
    return shipped_hypothetical(args.host, device, args.metric, source)


def _print_hypothetical(res: dict) -> None:
    d, tr = res["device"], res["track"]
    print(f"{d['device']} ({d['architecture']}, {d['sms']:.0f} SMs, {d['cuda_cores']:.0f} cores, "
          f"{d['boost_clock_mhz']:g} MHz, {d['memory_bandwidth_gbs']:g} GB/s), never measured; "
          f"spec roofline from {res['host']['device']}'s counters, {res['n_workloads']} workloads ({res['metric']})")
    print(f"the same rule on measured pairs — {tr['source']}:")
    print(f"{'target':14s} {'arch':9s} {'median APE %':>13s} {'mean APE %':>11s} {'in range %':>11s} {'n':>5s}")
    for p in [*tr["pairs"], {"target": "pooled", "architecture": "", **tr["pooled"]}]:
        print(f"{p['target']:14s} {p['architecture']:9s} {_pct(p['median_ape']):>13s} {_pct(p['mean_ape']):>11s} "
              f"{_pct(p['in_range']):>11s} {p['n']:>5d}")
    iv = tr.get("interval")
    if iv:
        print(f"{iv['level'] * 100:g} % interval: estimate / {iv['factor']:.3g} .. estimate x {iv['factor']:.3g} "
              f"(calibrated over {iv['n_pairs']} measured pairs, supported level {iv['level_supported'] * 100:.0f} %; "
              f"each pair held out: {iv['held_out_coverage']:.1f} % inside)")
    print(f"applicability: {res['applicability']['verdict']}")
    for w in res["warnings"]:
        print(f"! {w['title']}\n  {w['evidence']}")
    print(f"{'workload':40s} {'class':8s} {'host':>11s} {'estimate':>11s} {'lower':>11s} {'upper':>11s} "
          f"{'class low':>11s} {'class high':>11s}")
    for r in res["rows"]:
        lo, hi = ("-", "-") if r["lower"] is None else (f"{r['lower']:.4g}", f"{r['upper']:.4g}")
        print(f"{r['id'][:40]:40s} {r['class']:8s} {r['host']:11.4g} {r['point']:11.4g} {lo:>11s} {hi:>11s} "
              f"{r['lo']:11.4g} {r['hi']:11.4g}")


def cmd_newapp(args) -> int:
    from modeling.newapp.application import estimate_application
    from modeling.newapp.evaluate import evaluate

    device = hypothetical_device(args)
    if device is not None:
        res = hypothetical_result(args, device).to_dict()
        if args.json:
            print(json.dumps(res, indent=2))
        else:
            _print_hypothetical(res)
        return 0
    table = load_table(args)
    models = None if args.models == "default" else args.models
    if args.application:
        picks = [{"id": i} for i in (args.calibrate_ids.split(",") if args.calibrate_ids else [])]
        res = estimate_application(table, args.application, picks, models, args.seed, args.jobs)
        if args.json:
            print(json.dumps(res.to_dict(), indent=2))
            return 0
        print(f"{args.application} held out; learned from {', '.join(res.training_applications)}")
        _print_methods(res)
        for w in res.warnings:
            print(f"! {w['title']}\n  {w['evidence']}")
        return 0
    res = evaluate(table, args.cv, args.calibrate_with, models, args.seed, args.jobs)
    if args.json:
        print(json.dumps(res.to_dict(rows=False), indent=2))
        return 0
    s = res.scenario
    print(f"{s.get('host')} -> {s.get('target')} ({s.get('metric')}), {res.cv_label}, "
          f"{res.n_workloads} workloads; one-run calibrates with {args.calibrate_with} input(s) per kernel")
    _print_methods(res)
    for g, ws in res.warnings.items():
        for w in ws:
            print(f"! {g}: {w['title']}")
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("newapp", help="estimates for an application never run on the target (held out)")
    src = p.add_argument_group("data")
    src.add_argument("--host", help="host GPU of the shipped data (e.g. GTX-680)")
    src.add_argument("--target", help="target GPU (shipped data) or target column (--csv)")
    src.add_argument("--metric", default="duration", choices=["duration", "cycles"])
    src.add_argument("--csv", help="a CSV or Parquet workload table instead of the shipped data")
    src.add_argument("--group", help="application column (--csv)")
    src.add_argument("--id", dest="id_col", help="workload id column (--csv)")
    src.add_argument("--host-col", help="the host's own time (or cycles) column (--csv)")
    src.add_argument("--host-device", help="host device name in the device table (roofline)")
    src.add_argument("--target-device", help="target device name in the device table (roofline)")
    src.add_argument("--devices", help="a device table (CSV) with the shipped table's columns, instead of it")
    src.add_argument("--map", action="append", metavar="ROLE=COL",
                     help=f"column of a role ({', '.join(ROLES)}); default: the shipped counter names")
    hy = p.add_argument_group("a GPU never built or measured (spec roofline with its record)")
    hy.add_argument("--target-spec", metavar="SPECS",
                    help="typed device: name=…,architecture=…,sms=…,cuda_cores=…,boost_clock_mhz=…,"
                         "memory_bandwidth_gbs=…")
    hy.add_argument("--gpu", metavar="NAME", help="a row of the device table (--devices, or the shipped one)")
    ev = p.add_argument_group("evaluation")
    ev.add_argument("--cv", default="logo", choices=["logo", "loko"])
    ev.add_argument("--calibrate-with", type=int, default=1, help="measured inputs per held-out kernel (one-run)")
    ev.add_argument("--models", default="default",
                    help="'default' (HALWPE preset + GradientBoosting), 'none', or comma-separated names")
    ev.add_argument("--application", help="hold out this application and print its estimates and warnings")
    ev.add_argument("--calibrate-ids", help="with --application: workload ids measured on the target (one-run)")
    ev.add_argument("--seed", type=int, default=0)
    add_jobs_argument(ev, "(model, held-out fold) fits")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_newapp)
