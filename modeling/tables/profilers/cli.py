"""Command line: ``import (ncu|nvprof|rocprof) FILE... [--target-file FILE] [--workload KEY] [--tag-column NAME]
--out TABLE``.

Host files of one profiler become one workload table (``--workload kernel|kernel+tag|app``; the tag of each
file is the part of its name that differs from the side's other files: ``workloads.file_tags``, or, with
``--tag-column``, each launch's value in that column of the file, e.g. ncu's ``Process Name``; the target's
profiles use the same column when they all have it, else their file names);
``--target-file`` adds the target: another profile (any of the three profilers, recognised from its
header) or a simulator's results table (CSV / Parquet with a workload key and cycles or time columns).
Prints what was read and the one-sided rows and metrics as JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

from modeling.errors import DataError


def run_import(tool: str, files: list, target_files: list, key: str, out: str | None, k: float,
               tag_column: str | None = None) -> dict:
    from modeling.tables.profilers.detect import read_profile
    from modeling.tables.profilers.join import host_only, with_profile, with_simulator
    from modeling.tables.profilers.values import profiler_text
    from modeling.tables.profilers.detect import detect
    from modeling.tables.profilers.workloads import file_tags, target_tag_column, to_workloads
    from modeling.tables.reading import read_table

    def profiles(paths, tool):
        return [(read_profile(Path(p).read_bytes(), tool), tag) for p, tag in zip(paths, file_tags(paths))]

    host = to_workloads(profiles(files, tool), key, k, tag_column)
    if not target_files:
        joined = host_only(host)
    else:
        raw = Path(target_files[0]).read_bytes()
        if not raw.startswith(b"PAR1") and detect(profiler_text(raw)) is not None:
            target = profiles(target_files, None)
            joined = with_profile(host, to_workloads(target, key, k, target_tag_column(target, tag_column)))
        elif len(target_files) == 1:
            joined = with_simulator(host, read_table(target_files[0]).frame)
        else:
            raise DataError("Give one simulator table, or profiles only, as --target-file.")
    if out:
        if not out.endswith((".parquet", ".csv")):
            raise DataError("--out must end in .parquet or .csv.")
        if out.endswith(".parquet"):
            joined.frame.to_parquet(out, index=False)
        else:
            joined.frame.to_csv(out, index=False)
    return {"formats": host.formats, "launches": host.repeats, "workload_key": key, "tag_column": tag_column,
            **joined.to_dict(), "out": out}


def _import(args) -> int:
    info = run_import(args.tool, args.files, args.target_file or [], args.workload, args.out, args.mad_k,
                      args.tag_column)
    print(json.dumps(info, indent=2, default=str))
    return 0


def add_parsers(sub) -> None:
    from modeling.tables.profilers.workloads import KEYS
    from modeling.tables.repeats import DEFAULT_K

    p = sub.add_parser("import", help="profiler output (ncu, nvprof, rocprof) as a workload table")
    p.add_argument("tool", choices=("ncu", "nvprof", "rocprof"))
    p.add_argument("files", nargs="+", help="the host's profiler CSV files")
    p.add_argument("--target-file", action="append", help="the target's profile(s) or a simulator results table")
    p.add_argument("--workload", choices=KEYS, default="kernel")
    p.add_argument("--tag-column", default=None, metavar="NAME",
                   help="read each launch's input tag from this column of the file (kernel+tag, app), "
                        "e.g. 'Process Name'; default: the file name")
    p.add_argument("--out", default=None, help="TABLE.parquet or .csv")
    p.add_argument("--mad-k", type=float, default=DEFAULT_K, help="repeat filter window in scaled MADs")
    p.set_defaults(func=_import)
