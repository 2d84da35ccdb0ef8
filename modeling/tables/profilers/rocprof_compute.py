"""rocprof-compute (omniperf) output read as it is written: one profiling run's folder is one profile.

``rocprof-compute profile`` writes one folder per run (by default ``workloads/<name>/<gpu_model>/``): the
counter passes merged into ``pmc_perf.csv`` (or left as ``pmc_perf_0.csv``, ``pmc_perf_1.csv``, ...), one
CSV per counter that must be collected alone (``SQ_LEVEL_WAVES.csv``, ``SQ_IFETCH_LEVEL.csv``,
``SQ_INST_LEVEL_LDS.csv``, ...), ``timestamps.csv``, ``pmc_dispatch_info.csv``, ``sysinfo.csv`` (the GPU:
``gpu_model``, ``compute_partition``, ``num_xcd``, ...), ``roofline.csv``, ``log.txt`` and ``perfmon/``.
Every counter file holds the same dispatches, each one replayed once per file, so :func:`read_run`

* merges the counter files by ``Dispatch_ID``: ``pmc_perf.csv`` first (then ``pmc_perf_N.csv`` in pass
  order, then the others by name); every further file adds only the counters the run does not have yet, so
  a dispatch is counted once (3 dispatches in ``pmc_perf.csv`` and ``SQ_LEVEL_WAVES.csv`` are 3 launches,
  not 6). A counter collected in several passes (``GRBM_GUI_ACTIVE``, ``SQ_WAVES``) keeps the first file's
  value; ``SQ_ACCUM_PREV_HIRES`` accumulates the level counter of its own file, so it is kept per file as
  ``SQ_ACCUM_PREV_HIRES (SQ_LEVEL_WAVES)``. The same dispatch with another kernel in two files is refused:
  they are not one run. Files that add nothing (``timestamps.csv``, ``pmc_dispatch_info.csv``) and files that
  hold no counters (``roofline.csv``, ``log.txt``) are named in a note; sub-folders are not read.
* divides the counters the GPU sums over its XCDs (accelerator complex dies: 8 on an MI300X in SPX mode, 6
  on an MI300A) by the XCD count, as rocprof-compute itself does: its metric evaluator
  (``src/utils/parser.py``, ``build_in_vars``, since its commit "Fix Mi300 clk timings using
  GRBM_GUI_ACTIVE", February 2024) defines ``GRBM_GUI_ACTIVE_PER_XCD = GRBM_GUI_ACTIVE / $num_xcd`` and
  likewise ``GRBM_COUNT`` and ``GRBM_SPI_BUSY``, and every per-cycle metric of its analysis divides by
  ``GRBM_GUI_ACTIVE_PER_XCD``; ``num_xcd`` is the column of ``sysinfo.csv`` (1 on MI100 / MI200). Other
  counters (``SQ_WAVES``, ``SQ_BUSY_CYCLES``, ``TCC_*``) are totals over the device on every generation and
  are left as they are. A note names the divisor and where it came from. Without ``sysinfo.csv`` nothing is
  divided; a file of the MI300 layout says so (``rocprof.XCD_HINT``).

:func:`input_units` groups the command line's paths: a folder is one run; files that rocprof-compute names
(``pmc_perf.csv``, ``SQ_*.csv``, ``sysinfo.csv``, ...) in one folder are one run too; every other file is its
own input. A run's input tag is its folder's name, or the folder above when the folder is named after the
GPU (``sysinfo.csv``'s ``gpu_model``: rocprof-compute's default ``workloads/<name>/<gpu_model>/``).
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from modeling.errors import DataError
from modeling.tables.profilers.detect import FORMATS, detect, read_profile
from modeling.tables.profilers.profile import Profile
from modeling.tables.profilers.rocprof import PER_XCD, XCD_HINT
from modeling.tables.profilers.values import profiler_text

#: the files rocprof-compute writes into a run's folder (besides its per-counter ``<COUNTER>.csv`` files)
_RUN_NAMES = re.compile(r"^(pmc_perf(_\d+)?\.csv|sysinfo\.csv|timestamps\.csv|pmc_dispatch_info\.csv"
                        r"|pmc_kernel_top\.csv|roofline\.csv|log\.txt)$", re.IGNORECASE)
#: a per-counter file: the name of a hardware block's counter (SQ_LEVEL_WAVES.csv, SQ_INST_LEVEL_LDS.csv)
_COUNTER_FILE = re.compile(r"^(SQ|SQC|TA|TD|TCP|TCC|SPI|CPC|CPF|GRBM|GDS|TCA|UTCL\d?)_[A-Z0-9_]+\.csv$")
#: rocprof-compute's files that hold no counters (dispatch lists, timestamps, the roofline benchmark, its log)
_NO_COUNTERS = {"timestamps.csv", "pmc_dispatch_info.csv", "pmc_kernel_top.csv", "roofline.csv", "log.txt"}
_PASSES = re.compile(r"^pmc_perf(_(\d+))?\.csv$", re.IGNORECASE)
_DISPATCH = ("Dispatch_ID", "Dispatch_Id", "Index")
ACCUM = "SQ_ACCUM_PREV_HIRES"


def is_run_file(name: str) -> bool:
    """Whether a file name is one rocprof-compute writes into a run's folder."""
    base = Path(str(name)).name
    return bool(_RUN_NAMES.match(base) or _COUNTER_FILE.match(base))


def is_run_upload(names: list) -> bool:
    """Whether uploaded files are one rocprof-compute run's: names rocprof-compute gives, with its
    ``pmc_perf.csv`` (or a pass of it) or ``sysinfo.csv`` among them, each name once (a browser uploads a
    folder's files without their folder, so the files of one upload are taken as one folder)."""
    bases = [Path(str(n)).name.lower() for n in names]
    anchor = any(_PASSES.match(b) or b == "sysinfo.csv" for b in bases)
    return anchor and len(bases) > 1 and all(is_run_file(Path(str(n)).name) for n in names)


@dataclass
class Run:
    """One rocprof-compute run read as a profile, with what its ``sysinfo.csv`` said (empty without it)."""
    profile: Profile
    sysinfo: dict = field(default_factory=dict)
    files: list = field(default_factory=list)    # the counter files merged, in order


def _sysinfo(raw: bytes) -> dict:
    rows = list(csv.DictReader(io.StringIO(profiler_text(raw))))
    if not rows:
        raise DataError("sysinfo.csv has no row: it does not describe the GPU.")
    return {str(k).strip(): str(v).strip() for k, v in rows[0].items() if k is not None and v is not None}


def _order(name: str) -> tuple:
    m = _PASSES.match(name)
    if m:
        return (0, -1 if m.group(2) is None else int(m.group(2)), name)
    return (1, 0, name)


def _dispatch_column(profile: Profile, name: str) -> str:
    col = next((c for c in _DISPATCH if c in profile.text), None)
    if col is None:
        raise DataError(f"{name} has no Dispatch_ID column: its dispatches cannot be matched with the run's "
                        "other files. Give it alone.")
    ids = profile.launches[col]
    if ids.duplicated().any():
        raise DataError(f"{name}: dispatch {ids[ids.duplicated()].iloc[0]} appears twice, so the file's rows "
                        "cannot be matched with the run's other files by dispatch.")
    return col


def _merged(parts: list[tuple[str, Profile]]) -> tuple[Profile, list]:
    """The counter files' profiles merged by dispatch: the first one's rows, the others' new counters."""
    (first_name, first), rest = parts[0], parts[1:]
    key = _dispatch_column(first, first_name)
    frame = first.launches.copy()
    units, kinds = dict(first.units), dict(first.kinds)
    notes = [f"{first_name}: {n}" for n in first.notes]
    kept_first, added_nothing = set(), []
    for name, p in rest:
        other_key = _dispatch_column(p, name)
        other = p.launches.set_index(p.launches[other_key].astype(str).str.strip())
        ids = frame[key].astype(str).str.strip()
        both = ids[ids.isin(other.index)]
        clash = both[frame.loc[both.index, "kernel"].to_numpy() != other.loc[both.to_numpy(), "kernel"].to_numpy()]
        if len(clash):
            d = clash.iloc[0]
            raise DataError(f"Dispatch {d} is {frame.loc[clash.index[0], 'kernel'][:60]!r} in {first_name} and "
                            f"{other.loc[d, 'kernel'][:60]!r} in {name}: the files are not of one run. Give each "
                            "run's folder (or files) as its own input.")
        new = [m for m in p.metrics if m not in units]
        kept_first.update(m for m in p.metrics if m in units and m != p.duration)
        if not new:
            added_nothing.append(name)
            continue
        notes += [f"{name}: {n}" for n in p.notes if n != XCD_HINT]
        added = {m: ids.map(other[m]).to_numpy(dtype=float) for m in new}
        frame = pd.concat([frame, pd.DataFrame(added, index=frame.index)], axis=1)
        units.update({m: p.units[m] for m in new})
        kinds.update({m: p.kinds[m] for m in new})
        missing, extra = int((~ids.isin(other.index)).sum()), int((~other.index.isin(ids)).sum())
        if missing:
            notes.append(f"{missing} dispatch(es) of {first_name} not in {name}: its counters left empty there")
        if extra:
            notes.append(f"{extra} dispatch(es) of {name} not in {first_name}: left out")
    if kept_first:
        notes.append(f"{len(kept_first)} metric(s) in several files ({', '.join(sorted(kept_first)[:4])}"
                     f"{', ...' if len(kept_first) > 4 else ''}): the value of the first file that has them kept")
    if added_nothing:
        notes.append(f"no metric the run lacked in {', '.join(added_nothing)}: not merged")
    merged = Profile("rocprof-compute" if rest else first.format, frame, units, kinds, first.duration,
                     first.config, notes, True, first.text)
    return merged, [first_name, *(n for n, _ in rest if n not in added_nothing)]


def per_xcd(profile: Profile, sysinfo: dict) -> Profile:
    """``GRBM_GUI_ACTIVE``, ``GRBM_COUNT`` and ``GRBM_SPI_BUSY`` divided by ``sysinfo.csv``'s ``num_xcd``, as
    rocprof-compute's ``GRBM_*_PER_XCD`` (see the module's docstring), with a note naming the divisor."""
    raw = sysinfo.get("num_xcd", "")
    present = [m for m in PER_XCD if m in profile.units]
    if not present or not raw:
        if present and sysinfo:
            profile.notes.append(f"sysinfo.csv gives no num_xcd: {', '.join(present)} left as printed (on a "
                                 "GPU with several XCDs they are summed over them)")
        return profile
    try:
        n = float(raw)
    except ValueError:
        n = float("nan")
    if not (n >= 1 and n == int(n)):
        raise DataError(f"sysinfo.csv gives num_xcd = {raw[:20]!r}: an XCD count is a whole number from 1.")
    profile.notes = [x for x in profile.notes if not x.endswith(XCD_HINT)]
    if n > 1:
        launches = profile.launches.copy()
        for m in present:
            launches[m] = launches[m] / n
        profile.launches = launches
        gpu = sysinfo.get("gpu_model", "") or "the GPU"
        part = sysinfo.get("compute_partition", "")
        profile.notes.append(
            f"{', '.join(present)} divided by {int(n)}, the XCD count of {gpu}{f' ({part})' if part else ''} "
            "(num_xcd in sysinfo.csv): the GPU sums these counters over its XCDs, and rocprof-compute divides "
            "them by num_xcd the same way (its GRBM_GUI_ACTIVE_PER_XCD), so they count cycles of one XCD")
    return profile


def read_run(files: list[tuple[str, bytes]], tool: str | None = None) -> Run:
    """One rocprof-compute run from its files (``(name, bytes)``: a folder's files, or one upload's)."""
    if tool not in (None, "rocprof"):
        raise DataError(f"A rocprof-compute run is rocprof output, not {tool}.")
    names = [Path(str(n)).name for n, _ in files]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DataError(f"Two files named {twice[0]!r}: one run's folder holds each file once. Give each run's "
                        "folder (or files) as its own input.")
    sysinfo: dict = {}
    counters, other = [], []
    for name, raw in sorted(zip(names, (r for _, r in files)), key=lambda f: _order(f[0])):
        if name.lower() == "sysinfo.csv":
            sysinfo = _sysinfo(raw)
            continue
        fmt = None
        if name.lower().endswith(".csv") and name.lower() not in _NO_COUNTERS and not raw.startswith(b"PAR1"):
            try:
                fmt = detect(profiler_text(raw))
            except DataError:
                fmt = None
        if fmt is None:
            other.append(name)
        elif FORMATS[fmt][0] != "rocprof":
            raise DataError(f"{name} is {FORMATS[fmt][1]}: a rocprof-compute run's folder holds rocprof output "
                            "only. Give other profilers' files one by one.")
        else:
            counters.append(name)
    if not counters:
        raise DataError("No rocprof counter table (pmc_perf.csv, SQ_LEVEL_WAVES.csv, ...) among "
                        f"{', '.join(names[:6]) or 'no files'}: nothing to read as a rocprof-compute run.")
    raws = dict(zip(names, (r for _, r in files)))
    parts = []
    for name in counters:
        try:
            p = read_profile(raws[name], "rocprof")
        except DataError as exc:
            raise DataError(f"{name}: {exc}") from None
        if not _PASSES.match(name) and ACCUM in p.units:  # this file's level counter, accumulated
            p = _renamed(p, ACCUM, f"{ACCUM} ({Path(name).stem})")
        parts.append((name, p))
    profile, merged = _merged(parts) if len(parts) > 1 else (parts[0][1], [counters[0]])
    if other:
        profile.notes.append(f"no counters, not read: {', '.join(other[:8])}{' ...' if len(other) > 8 else ''}")
    return Run(per_xcd(profile, sysinfo) if sysinfo else profile, sysinfo, merged)


def _renamed(p: Profile, old: str, new: str) -> Profile:
    def ren(d):
        return {(new if k == old else k): v for k, v in d.items()}
    return Profile(p.format, p.launches.rename(columns={old: new}), ren(p.units), ren(p.kinds), p.duration,
                   p.config, p.notes, p.per_launch, p.text)


def read_folder(path, tool: str | None = None) -> Run:
    """A run's folder (its files; sub-folders such as ``perfmon/`` are not read)."""
    folder = Path(path)
    files = sorted(f for f in folder.iterdir() if f.is_file())
    if not files:
        raise DataError(f"{folder.name}: an empty folder.")
    # only CSVs can be counter tables or sysinfo.csv: other files (log.txt, PDFs) are named, never read
    return read_run([(f.name, f.read_bytes() if f.suffix.lower() == ".csv" else b"") for f in files], tool)


def folder_tag(folder: Path, sysinfo: dict) -> str:
    """A run's input tag: its folder's name, or the folder above when the folder is named after the GPU."""
    model = sysinfo.get("gpu_model", "")
    if model and folder.name.lower() == model.lower() and folder.resolve().parent.name:
        return folder.resolve().parent.name
    return folder.name


@dataclass
class Unit:
    """One input of the command line: a file, or a rocprof-compute run (a folder, or its files)."""
    name: str           # the tag's source: a file's stem, a run's folder tag
    paths: list
    folder: Path | None = None


def input_units(paths: list) -> list[Unit]:
    """The command line's paths as inputs: each folder a run; files rocprof-compute names in one folder, one
    run; every other file itself. Order: as given (a run where its first file was)."""
    units: list[Unit] = []
    runs: dict[Path, Unit] = {}
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            units.append(Unit(p.name, [p], p))
        elif is_run_file(p.name):
            parent = p.resolve().parent
            if parent not in runs:
                runs[parent] = Unit(parent.name, [], parent)
                units.append(runs[parent])
            runs[parent].paths.append(p)
        else:
            units.append(Unit(p.name.rsplit(".", 1)[0], [p]))
    # a pmc_perf.csv alone is still a run (its folder names it); another lone file is just a file
    for i, u in enumerate(units):
        if u.folder is not None and len(u.paths) == 1 and u.paths[0].is_file() and not _PASSES.match(u.paths[0].name):
            units[i] = Unit(u.paths[0].name.rsplit(".", 1)[0], u.paths)
    return units


def read_unit(unit: Unit, tool: str | None) -> tuple[Profile, str]:
    """A unit's profile and the name its tag comes from."""
    if unit.folder is None:
        return read_profile(unit.paths[0].read_bytes(), tool), unit.name
    if len(unit.paths) == 1 and unit.paths[0].is_dir():
        run = read_folder(unit.paths[0], tool)
    else:
        run = read_run([(p.name, p.read_bytes()) for p in unit.paths], tool)
    return run.profile, folder_tag(unit.folder, run.sysinfo)


def run_tag(run: Run, fallback: str) -> str:
    """An uploaded run's input tag (no folder name reaches the server): ``sysinfo.csv``'s ``workload_name``
    (the name the run was profiled under, its folder above the GPU's in rocprof-compute's default layout),
    else ``fallback``."""
    return run.sysinfo.get("workload_name", "").strip() or fallback

