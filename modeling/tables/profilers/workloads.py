"""A profile's launches as workloads: one row per kernel, kernel x input tag, or application run.

The rules are ``modeling.tables.launches`` (the shipped build's): within a workload, launches with the same
launch configuration and the same instruction count are repeats, filtered at +/- k scaled MADs of their
duration and averaged; the distinct parts are combined per metric by its kind (sums for counts and times,
duration-weighted means for rates and percentages, means for geometry). nvprof summaries come averaged
per kernel already (its launches taken as repeats of one work, as above): the average is kept, nothing can
be filtered.

Workload keys (``key``):

* ``kernel``: the kernel's name without its parameter list and return type (``void foo<128>(float*, int)``
  -> ``foo<128>``), so nvprof's signature and ncu's short name meet;
* ``kernel+tag``: ``kernel@tag``, the tag given per file (by default the file name without extension: one
  file per input size) or read per launch from a column of the profile (``tag_column``: ncu's ``Process
  Name``, a launch configuration, rocprof's ``GPU_ID``...: :attr:`Profile.tag_columns`) -- the application
  column is then the kernel, so cross-validation can hold out a kernel's every input;
* ``app``: every launch with the same tag (a file, or a value of ``tag_column``) is one workload (a whole
  application run), named by the tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from modeling.errors import DataError
from modeling.tables.launches import average_repeats, combine_parts
from modeling.tables.profilers.names import NCU_UNITS, NVPROF_TO_NCU, ncu_names
from modeling.tables.profilers.profile import Profile
from modeling.tables.repeats import DEFAULT_K

KEYS = ("kernel", "kernel+tag", "app")
#: instruction counters that tell repeated launches of the same work from launches doing other work
_WORK = ("smsp__inst_executed.sum", "inst_executed", "SQ_INSTS", "SQ_WAVES")


def kernel_base(name: str) -> str:
    """A kernel's name without return type and parameter list; templates kept."""
    s = re.sub(r"\s*(\(\.kd\)|\[clone \.kd\])\s*$", "", str(name).strip())
    depth, cut = 0, len(s)
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            cut = i
            break
    s = s[:cut].strip()
    s = re.sub(r"^(void|__global__ void)\s+", "", s)
    return s or str(name).strip()


@dataclass
class Workloads:
    frame: pd.DataFrame            # workload, application, metrics..., launches
    units: dict
    kinds: dict
    duration: str | None
    formats: list
    notes: list = field(default_factory=list)
    repeats: dict = field(default_factory=dict)   # total launches and outliers dropped

    @property
    def metrics(self) -> list[str]:
        return list(self.units)


def renamed_to_ncu(profile: Profile) -> Profile:
    """An nvprof profile with its metrics renamed (and scaled) to their Nsight Compute equivalents
    (``modeling.tables.profilers.names``); other profiles unchanged."""
    if not profile.format.startswith("nvprof"):
        return profile
    mapping, taken = {}, set(profile.metrics)
    found = ncu_names(profile.metrics)
    for old in [m for m in NVPROF_TO_NCU if m in found]:
        new, scale = found[old]
        # two nvprof names for one ncu metric (gld_request and inst_executed_global_loads): the one listed
        # first in the name table is renamed (the same one in every file), the other keeps its nvprof name
        # rather than making two columns of one name
        if new not in taken:
            mapping[old] = (new, scale)
            taken.add(new)
    if not mapping:
        return profile
    launches = profile.launches.copy()
    for old, (_new, scale) in mapping.items():
        launches[old] = launches[old] * scale
    rename = {old: new for old, (new, _) in mapping.items()}
    units = {}
    for m, u in profile.units.items():
        new = rename.get(m, "")
        if new in NCU_UNITS:  # scaled to the ncu metric: its unit, not nvprof's (threads per instruction, not %)
            u = NCU_UNITS[new]
        elif new.endswith(".pct") or "pct_of_peak" in new:
            u = "%"
        units[rename.get(m, m)] = u
    kinds = {rename.get(m, m): k for m, k in profile.kinds.items()}
    notes = profile.notes + [f"{len(mapping)} nvprof names mapped to their Nsight Compute equivalents"]
    return Profile(profile.format, launches.rename(columns=rename), units, kinds,
                   rename.get(profile.duration, profile.duration), profile.config, notes, profile.per_launch,
                   profile.text)


def launch_tags(profile: Profile, tag: str, tag_column: str | None) -> pd.Series:
    """Each launch's input tag: the file's ``tag``, or the launch's value in ``tag_column`` (a column of the
    file that is not a metric: :attr:`Profile.tag_columns`; any other name is refused, naming those)."""
    launches = profile.launches
    if tag_column is None:
        return pd.Series(str(tag), index=launches.index)
    if tag_column not in profile.tag_columns or tag_column not in launches:
        cols = ", ".join(profile.tag_columns[:12]) or "none"
        raise DataError(f"{tag}: no column {str(tag_column)[:80]!r} to read the input tag from (columns that can "
                        f"give it: {cols}).")
    column = launches[tag_column]
    values = column.astype(str).str.strip()
    if column.isna().any() or (values == "").any():
        raise DataError(f"{tag}: column {tag_column!r} is empty for some launches; choose another tag column.")
    return values


def to_workloads(profiles: list[tuple[Profile, str]], key: str = "kernel", k: float = DEFAULT_K,
                 tag_column: str | None = None) -> Workloads:
    """One workload table from one or several profiles of one device, each with its tag (the file's name
    or the input it ran); with ``tag_column`` the tag is read per launch from that column instead (for the
    ``kernel+tag`` and ``app`` keys)."""
    if key not in KEYS:
        raise DataError(f"Unknown workload key {key!r}: use one of {', '.join(KEYS)}.")
    if not profiles:
        raise DataError("No profile to read.")
    if tag_column is not None and key == "kernel":
        raise DataError("A tag column is for the kernel × input and application keys, not for kernel alone.")
    profiles = [(renamed_to_ncu(p), t) for p, t in profiles]
    units, kinds = {}, {}
    for p, _ in profiles:
        for m in p.metrics:
            if m in units and units[m] != p.units[m]:
                raise DataError(f"Metric {m!r} is in {units[m] or 'no unit'} in one file and in "
                                f"{p.units[m] or 'no unit'} in another.")
            units.setdefault(m, p.units[m])
            kinds.setdefault(m, p.kinds[m])
    durations = {p.duration for p, _ in profiles}
    duration = durations.pop() if len(durations) == 1 else None
    metrics = list(units)
    frames, notes = [], []
    total = outliers = 0
    tag_file: dict[str, str] = {}  # a tag column's value -> the file it came from
    if tag_column is None and key != "kernel":
        seen = [t for _, t in profiles]
        twice = sorted({t for t in seen if seen.count(t) > 1})
        if twice:
            raise DataError(f"Two files give the input tag {twice[0][:60]!r}: their launches would merge into one "
                            "input. Give each input's file its own name, or read the tag from a column.")
    for p, tag in profiles:
        df = p.launches.copy()
        base = df["kernel"].map(kernel_base)
        tags = launch_tags(p, tag, tag_column) if key != "kernel" else None
        if tag_column is not None:
            # two files (two inputs) with one value in the column would merge into one workload
            for value in tags.unique():
                other = tag_file.setdefault(value, tag)
                if other != tag:
                    raise DataError(f"Column {tag_column!r} has the same value {value[:60]!r} in {other} and in "
                                    f"{tag}: their launches would merge into one workload. Choose a column whose "
                                    "value differs between the files, or take the input tag from the file names.")
        if key == "kernel":
            df["workload"], df["application"] = base, base
        elif key == "kernel+tag":
            df["workload"], df["application"] = base + "@" + tags, base
        else:
            df["workload"], df["application"] = tags, tags
        for m in metrics:
            if m not in df:
                df[m] = np.nan
        if not p.per_launch:  # nvprof summary: one row per kernel, already the average of its launches
            df["repeats_total"], df["repeats_outliers"] = df["invocations"], 0
            frames.append(df)
            total += int(df["invocations"].sum())
            continue
        config = [c for c in p.config if c in df]
        work = [c for c in _WORK if c in df and df[c].notna().all()]
        measure = p.duration if p.duration and df[p.duration].notna().all() else None
        if measure is None:
            df["_measure"] = 0.0  # nothing to test: every launch is kept
            measure = "_measure"
            notes.append(f"{tag}: no duration for every launch, repeated launches averaged unfiltered")
        # repeats are launches of one kernel (an application run holds several kernels of one configuration:
        # they are parts of the run, added up below, not repeats of one another)
        runs = average_repeats(df, ["workload", "kernel", *config, *work], measure, metrics, k,
                               ["workload", "application"])
        total += int(runs["repeats_total"].sum())
        outliers += int(runs["repeats_outliers"].sum())
        frames.append(runs)
    runs = pd.concat(frames, ignore_index=True)
    weight = "_weight"
    runs[weight] = runs[duration] if duration and runs[duration].notna().all() else runs["repeats_total"]
    out = combine_parts(runs, ["workload"], kinds, weight)
    apps = runs.groupby("workload", sort=True)["application"].first()
    out.insert(1, "application", out["workload"].map(apps))
    out["launches"] = out["repeats_total"].astype(float)
    out = out.drop(columns=["repeats_total", "repeats_outliers"])
    formats = sorted({p.format for p, _ in profiles})
    for p, tag in profiles:
        notes += [f"{tag}: {n}" for n in p.notes]
    return Workloads(out, units, kinds, duration, formats, notes, {"launches": total, "outliers": outliers})


def file_tags(names: list[str]) -> list[str]:
    """Input tags from one side's file names: the part that differs between them (common prefix and suffix
    removed: ``host_n1024.csv``, ``host_n2048.csv`` -> ``1024``, ``2048``, and a target's ``v100_n1024.csv``,
    ``v100_n2048.csv`` give the same tags; a number is never cut: ``s_110``, ``s_120`` -> ``110``, ``120``);
    a single file's tag is its name without extension."""
    return differing_parts([str(n).rsplit("/", 1)[-1].rsplit(".", 1)[0] for n in names])


def differing_parts(stems: list[str]) -> list[str]:
    """Input tags from one side's input names (file names without extension, a rocprof-compute run's folder
    name): the part that differs between them, as :func:`file_tags` says."""
    stems = [str(s) for s in stems]
    if len(stems) < 2 or len(set(stems)) < len(stems):
        return stems
    pre = _whole_numbers(stems, len(_common_prefix(stems)))
    rev = [s[pre:][::-1] for s in stems]
    suf = _whole_numbers(rev, len(_common_prefix(rev)))
    tags = [s[pre:len(s) - suf] for s in stems]
    return tags if all(tags) else stems


def _whole_numbers(words: list[str], cut: int) -> int:
    """``cut`` (the length of the words' common start), moved back so that it does not split a number:
    ``s_110``, ``s_120`` share ``s_1`` but their inputs are 110 and 120, not 1 and 2."""
    while cut > 0 and words[0][cut - 1].isdigit() and any(len(w) > cut and w[cut].isdigit() for w in words):
        cut -= 1
    return cut


def _common_prefix(words: list[str]) -> str:
    out = words[0]
    for w in words[1:]:
        while not w.startswith(out):
            out = out[:-1]
    return out


def target_tag_column(profiles: list[tuple[Profile, str]], tag_column: str | None) -> str | None:
    """The host's tag column, used for the target's profiles too when every one of them has it (ncu host and
    ncu target: ``Process Name`` on both); otherwise None: the target's tags come from its file names."""
    if tag_column is None or not all(tag_column in p.tag_columns for p, _ in profiles):
        return None
    return tag_column
