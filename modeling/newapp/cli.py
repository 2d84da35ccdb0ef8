"""Command line ``newapp``: estimates for an application never run on the target, held out.

``python -m modeling newapp --host GTX-680 --target GTX-980 [--cv logo|loko] [--calibrate-with N] --json``
evaluates every estimate leave-one-application-out (or leave-one-kernel-out) on the shipped data;
``--csv FILE --target COL --group COL --host-col COL [--id COL] [--host-device NAME --target-device NAME]
[--devices FILE] [--map ROLE=COL ...]`` does the same on any workload table. ``--application APP``
prints one held-out application's estimates per workload, with its warnings. The text is the result's summary
(:mod:`modeling.newapp.summary`), the one the page's card and its report show.

A GPU never built or measured: ``--target-spec "name=X,architecture=Hopper,sms=132,cuda_cores=16896,
boost_clock_mhz=1980,memory_bandwidth_gbs=3350"`` (or ``--gpu NAME``, a row of the device table) prints the
spec roofline of every workload with its range, labelled with the same rule's error on the measured pairs
(shipped data: the host with every measured target GPU; a table: its own measured target column), and its
interval calibrated on those pairs without the predicted GPU's own.

``--splits`` (with ``--host``; ``--split KEY`` for one) holds each other shipped GPU out in turn under four
splits (a new GPU of a measured architecture, a new architecture, chronological, a new GPU and a new
application together) and prints per held-out GPU the mean and median APE, the interval and its coverage, and
per split the lowest coverage; ``--per-kernel`` adds the mean APE per kernel and held-out GPU.
"""

from __future__ import annotations

import json

from modeling.errors import ConfigError, ModelingError
from modeling.newapp.data import ROLES
from modeling.parallel import add_jobs_argument
from modeling.tables.arguments import add_workload_table


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


def _data(args) -> tuple[str, str, str, str | None]:
    """The data's id, name, the unit of its times and its fingerprint, as the page names them (the shipped data's
    fingerprint: 16 hex digits of the sha256 of its workload table; a CSV file has none)."""
    from modeling import shipped

    if args.csv:
        from pathlib import Path

        return str(args.csv), Path(args.csv).name, "", None
    import hashlib

    from modeling import DATA_DIR

    fingerprint = hashlib.sha256((DATA_DIR / "gpu_workloads.parquet").read_bytes()).hexdigest()[:16]
    return "rodinia", shipped.NAME, shipped.UNITS.get(args.metric, ""), fingerprint


def _provenance(args, seconds: float):
    from modeling.results import Provenance

    data, name, _, fingerprint = _data(args)
    params = {k: v for k, v in vars(args).items() if k not in ("func", "json") and v not in (None, [], False)}
    return Provenance.now("newapp", params, data, name, fingerprint, seconds=seconds)


def _pct(v):
    return "-" if v is None else f"{v:,.1f}" if v < 1e4 else f"{v:,.0f}"


def split_result(args):
    """The SplitValidation the command line prints (``--splits``; the page reads the same function)."""
    from modeling.newapp.splits import SPLITS, shipped_validation

    if args.csv or not args.host:
        raise ModelingError("--splits holds the shipped GPUs out in turn: give --host (the GPU whose counters are "
                            "used), not --csv.")
    res = shipped_validation(args.host, args.metric)
    if args.split:
        if args.split not in SPLITS:
            raise ConfigError(f"Unknown split {args.split!r}; use one of {', '.join(SPLITS)}.")
        res.splits = [res.split(args.split)]
    return res


def _print_splits(res, per_kernel: bool) -> None:
    print(f"the spec roofline from {res.host}'s counters ({res.metric}), each other GPU held out in turn; "
          f"{res.level * 100:g} % interval calibrated on the GPUs each split allows (the estimate itself is "
          "the same under every split: it learns nothing from measured GPUs)")
    for s in res.splits:
        print(f"\n{s.split}: {s.label}")
        print(f"{'held out':12s} {'arch':8s} {'released':8s} {'mean APE %':>10s} {'median %':>9s} {'factor':>7s} "
              f"{'coverage %':>10s} {'n':>4s}  calibrated on")
        for g in s.gpus:
            f = "-" if g.factor is None else f"{g.factor:.3g}"
            print(f"{g.target:12s} {g.architecture:8s} {g.released or '-':8s} {_pct(g.mean_ape):>10s} "
                  f"{_pct(g.median_ape):>9s} {f:>7s} {_pct(g.coverage):>10s} {g.n:>4d}  "
                  f"{', '.join(g.training) or '-'}" + (f"  ({g.note})" if g.note else ""))
        mc = "-" if s.min_coverage is None else f"{s.min_coverage:.1f} %"
        print(f"lowest coverage over the held-out GPUs: {mc}; mean APE over them: {_pct(s.mean_ape)} %")
    if per_kernel and res.splits:
        gpus = res.splits[0].gpus
        kernels = sorted({k for g in gpus for k in g.per_kernel})
        print("\nmean APE % per kernel and held-out GPU")
        print(f"{'kernel':34s} " + " ".join(f"{g.target[:10]:>10s}" for g in gpus))
        for k in kernels:
            print(f"{k[:34]:34s} " + " ".join(f"{_pct(g.per_kernel.get(k)):>10s}" for g in gpus))


def cmd_newapp(args) -> int:
    from modeling.newapp.application import estimate_application
    from modeling.newapp.evaluate import evaluate

    if args.splits or args.split:
        res = split_result(args)
        if args.json:
            print(json.dumps(res.to_dict(), indent=2))
        else:
            _print_splits(res, args.per_kernel)
        return 0
    device = hypothetical_device(args)
    _, name, unit, _ = _data(args)
    if device is not None:
        res = hypothetical_result(args, device)
        if args.json:
            print(json.dumps(res.to_dict(), indent=2))
        else:
            print(res.summary(name, unit, _provenance(args, res.seconds)).as_text())
        return 0
    table = load_table(args)
    models = None if args.models == "default" else args.models
    if args.application:
        picks = [{"id": i} for i in (args.calibrate_ids.split(",") if args.calibrate_ids else [])]
        res = estimate_application(table, args.application, picks, models, args.seed, args.jobs)
        if args.json:
            print(json.dumps(res.to_dict(), indent=2))
            return 0
        print(res.summary(name, table.host_spec, table.target_spec, _provenance(args, res.seconds)).as_text())
        return 0
    res = evaluate(table, args.cv, args.calibrate_with, models, args.seed, args.jobs)
    if args.json:
        print(json.dumps(res.to_dict(rows=False), indent=2))
        return 0
    print(res.summary(name, _provenance(args, res.seconds)).as_text())
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("newapp", help="estimates for an application never run on the target (held out)")
    src = p.add_argument_group("data")
    add_workload_table(src, "application column (--csv)")
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
    hy.add_argument("--splits", action="store_true",
                    help="hold each shipped GPU out in turn under the four splits (with --host)")
    hy.add_argument("--split", help="only this split: gpu, architecture, chronological or gpu+application")
    hy.add_argument("--per-kernel", action="store_true", help="with --splits: the mean APE per kernel and GPU")
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
