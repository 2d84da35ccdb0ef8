"""Command line: ``import (ncu|nvprof|rocprof) FILE|FOLDER... [--target-file FILE|FOLDER] [--workload KEY]
[--tag-column NAME] --out TABLE``.

A folder is one rocprof-compute run (its counter files merged by dispatch, its input tag the folder's name:
``modeling.tables.profilers.rocprof_compute``); so are the files rocprof-compute names (``pmc_perf.csv``,
``SQ_LEVEL_WAVES.csv``, ``sysinfo.csv``) given from one folder.

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

from modeling.tables.export import table_out, write_table
from modeling.errors import DataError


def _is_profile(path: str) -> bool:
    """Whether a target path is profiler output (a folder is a rocprof-compute run) rather than a simulator
    table."""
    from modeling.tables.profilers.detect import detect
    from modeling.tables.profilers.values import profiler_text

    p = Path(path)
    if p.is_dir():
        return True
    raw = p.read_bytes()
    return not raw.startswith(b"PAR1") and detect(profiler_text(raw)) is not None


def _existing(paths: list) -> list:
    missing = [str(p) for p in paths if not Path(p).exists()]
    if missing:
        raise DataError(f"No file or folder {missing[0]!r}.")
    return paths


def run_import(tool: str, files: list, target_files: list, key: str, out: str | None, k: float,
               tag_column: str | None = None) -> dict:
    from modeling.tables.profilers.join import host_only, with_profile, with_simulator
    from modeling.tables.profilers.rocprof_compute import input_units, read_unit
    from modeling.tables.profilers.workloads import differing_parts, target_tag_column, to_workloads
    from modeling.tables.reading import read_table

    def profiles(paths, tool):
        read = [read_unit(u, tool) for u in input_units(_existing(paths))]
        return [(p, tag) for (p, _), tag in zip(read, differing_parts([name for _, name in read]))]

    host = to_workloads(profiles(files, tool), key, k, tag_column)
    if not target_files:
        joined = host_only(host)
    else:
        if _is_profile(_existing(target_files)[0]):
            target = profiles(target_files, None)
            joined = with_profile(host, to_workloads(target, key, k, target_tag_column(target, tag_column)))
        elif len(target_files) == 1:
            joined = with_simulator(host, read_table(target_files[0]).frame)
        else:
            raise DataError("Give one simulator table, or profiles only, as --target-file.")
    if out:
        write_table(joined.frame, out)
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
    p.add_argument("files", nargs="+", help="the host's profiler CSV files, or rocprof-compute run folders")
    p.add_argument("--target-file", action="append",
                   help="the target's profile(s) or run folder(s), or a simulator results table")
    p.add_argument("--workload", choices=KEYS, default="kernel")
    p.add_argument("--tag-column", default=None, metavar="NAME",
                   help="read each launch's input tag from this column of the file (kernel+tag, app), "
                        "e.g. 'Process Name'; default: the file name")
    p.add_argument("--out", default=None, type=table_out, help="TABLE.parquet or .csv")
    p.add_argument("--mad-k", type=float, default=DEFAULT_K, help="repeat filter window in scaled MADs")
    p.set_defaults(func=_import)
