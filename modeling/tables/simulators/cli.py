"""Command line: ``import-sim PATH... [--join MEASURED...] [--by order --offset N] [--target STAT,...
--features measured|simulated|STAT,...] [--json] [--out TABLE] [--jobs N]``.

Reads simulator output (files, folders or zips: GPGPU-Sim / Accel-Sim logs, Accel-Sim ``get_stats.py``
output, gem5 ``stats.txt``, long tables; ``modeling.tables.simulators.detect``) and prints what was read:
per file its format, records and notes, and the files refused with their reasons. ``--json`` prints every
record with its workload key, configuration, dump, values and notes; ``--out`` writes the tidy table (one
row per record, one column per statistic) as CSV or Parquet. ``--jobs N`` reads the files in N processes
(by default one per core; the records and their order are the same whatever N is).

``--join MEASURED`` joins the records to measured runs (profiler CSVs or another simulator's output;
``modeling.tables.simulators.join``) on the workload key (``--by order`` joins by launch order instead,
with ``--offset``) and prints the join report: matched, unmatched on each side (named), and kernels whose
names differ at the same position. ``--target`` names the simulated statistics to predict (names, or
cycles, seconds, instructions, power); the features are the measured side's values (``--features
measured``, the default with ``--join``), the simulated records' other statistics (``simulated``), or named
statistics of them; ``--out`` then writes that dataset, each row with the file and dump its target and its
features came from. The exit status is 0 when something was read, 2 when nothing could be.
"""

from __future__ import annotations

import json

from modeling.errors import ConfigError, DataError
from modeling.tables.export import table_out, write_table


def run_import_sim(paths: list, as_json: bool, out: str | None = None, join_paths: list | None = None,
                   by: str = "key", offset: int = 0, targets: list | None = None,
                   features: str | None = None, jobs: int = 1) -> dict:
    from modeling.tables.simulators import join as sj
    from modeling.tables.simulators.detect import read_paths

    if offset and by != "order":
        raise ConfigError("--offset applies to a join by launch order only (--by order).")
    if features == "measured" and not join_paths:
        raise ConfigError("--features measured needs the measured runs: give them with --join.")
    if features is not None and not targets:
        raise ConfigError("--features chooses the features of a dataset: name its target(s) with --target too.")
    result = read_paths(paths, jobs=jobs)
    report = dataset = None
    notes = []
    simulated = sj.runs_of_import(result)
    if join_paths:
        measured, notes = sj.read_measured(join_paths)
        report = sj.join(simulated, measured, by=by, offset=offset)
    if targets:
        feats = features or ("measured" if join_paths else "simulated")
        if feats not in sj.ROLE_SIDES:
            feats = [f.strip() for f in feats.split(",") if f.strip()]
        dataset = sj.build_dataset(simulated, targets, feats, report)
    if out:
        write_table(dataset.frame if dataset is not None else result.frame(), out)
    if as_json:
        info = result.to_dict()
    else:
        info = {"files": [f.to_dict() | {"units": len(f.units), "original_names": len(f.original)}
                          for f in result.files],
                "records": len(result.records),
                "refused": [{"source": s, "reason": m} for s, m in result.refused], "notes": result.notes,
                "out": out}
    if report is not None:
        info["join"] = report.to_dict()
        info["measured_notes"] = notes
    if dataset is not None:
        info["dataset"] = dataset.to_dict()
    info["_report"] = report
    return info


def _import_sim(args) -> int:
    targets = [t.strip() for t in args.target.split(",") if t.strip()] if args.target else None
    info = run_import_sim(args.paths, args.json, args.out, args.join, args.by, args.offset, targets, args.features,
                          jobs=args.jobs)
    report = info.pop("_report")
    if args.json or report is None:
        print(json.dumps(info, indent=2, default=str))
    else:
        for f in info["files"]:
            print(f"{f['source']}: {f['format']}, {f['records']} record(s), {f['statistics']} statistic(s)")
            for n in f["notes"]:
                print(f"  note: {n}")
        for r in info["refused"]:
            print(f"refused: {r['reason']}")  # the reason names its file
        for n in info["measured_notes"]:
            print(f"measured side: {n}")
        print(report.text())
        if "dataset" in info:
            d = info["dataset"]
            print(f"dataset: {d['rows']} workload(s), target {', '.join(d['targets'])}, {len(d['features'])} "
                  f"feature(s) from the {d['features_from']} side")
            for n in d["notes"]:
                print(f"  note: {n}")
        if args.out:
            print(f"written: {args.out}")
    if not info["files"]:
        raise DataError("Nothing was imported: every file was refused (reasons above).")
    return 0


def add_parsers(sub) -> None:
    from modeling.parallel import add_jobs_argument
    from modeling.tables.simulators.join import BY_CHOICES

    p = sub.add_parser("import-sim", help="simulator output (GPGPU-Sim, Accel-Sim, gem5, long table) as records")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or zips of simulator output")
    p.add_argument("--json", action="store_true", help="print every record with its key, dump, values and notes")
    p.add_argument("--out", default=None, type=table_out,
                   help="write the table of records (or with --target the dataset) to TABLE.csv or .parquet")
    p.add_argument("--join", nargs="+", metavar="MEASURED", help="measured runs to join the records to: profiler "
                                                                 "CSVs or another simulator's output")
    p.add_argument("--by", default="key", choices=list(BY_CHOICES),
                   help="join on the workload key (default) or, only when asked, by launch order")
    p.add_argument("--offset", type=int, default=0, help="with --by order: the measured launch the first "
                                                         "simulated one joins (a traced window)")
    p.add_argument("--target", help="simulated statistic(s) to predict, comma-separated: names or cycles, "
                                    "seconds, instructions, power")
    p.add_argument("--features", help="measured (the joined runs' values; default with --join), simulated (the "
                                      "records' other statistics) or comma-separated statistic names")
    add_jobs_argument(p, "the files (not zip members) are read")
    p.set_defaults(func=_import_sim)
