"""Command line: ``import-sim PATH... [--json] [--out TABLE]``.

Reads simulator output (files, folders or zips: GPGPU-Sim / Accel-Sim logs, Accel-Sim ``get_stats.py``
output, gem5 ``stats.txt``, long tables; ``modeling.tables.simulators.detect``) and prints what was read:
per file its format, records and notes, and the files refused with their reasons. ``--json`` prints every
record with its workload key, configuration, dump, values and notes; ``--out`` writes the tidy table (one
row per record, one column per statistic) as CSV or Parquet. The exit status is 0 when something was
read, 2 when nothing could be.
"""

from __future__ import annotations

import json

from modeling.errors import DataError


def run_import_sim(paths: list, as_json: bool, out: str | None = None) -> dict:
    from modeling.tables.export import write_csv
    from modeling.tables.simulators.detect import read_paths

    result = read_paths(paths)
    if out:
        if not out.endswith((".csv", ".parquet")):
            raise DataError("--out must end in .csv or .parquet.")
        frame = result.frame()
        if out.endswith(".parquet"):
            frame.to_parquet(out, index=False)
        else:
            write_csv(frame, out)
    if as_json:
        return result.to_dict()
    return {"files": [f.to_dict() | {"units": len(f.units), "original_names": len(f.original)}
                      for f in result.files],
            "records": len(result.records),
            "refused": [{"source": s, "reason": m} for s, m in result.refused], "notes": result.notes,
            "out": out}


def _import_sim(args) -> int:
    info = run_import_sim(args.paths, args.json, args.out)
    print(json.dumps(info, indent=2, default=str))
    if not info["files"]:
        raise DataError("Nothing was imported: every file was refused (reasons above).")
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("import-sim", help="simulator output (GPGPU-Sim, Accel-Sim, gem5, long table) as records")
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or zips of simulator output")
    p.add_argument("--json", action="store_true", help="print every record with its key, dump, values and notes")
    p.add_argument("--out", default=None, help="write the table of records to TABLE.csv or .parquet")
    p.set_defaults(func=_import_sim)
