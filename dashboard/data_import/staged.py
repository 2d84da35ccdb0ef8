"""Profiler files between their upload and the Save: staged on the server, turned into one workload table.

A profile is staged as its launches (Parquet) and what the reader found (JSON: format, units, kinds,
duration, notes, tag), through ``dashboard.state.staging`` like every upload (same expiry, never pickled);
a simulator table as its parsed table. :func:`joined_table` rebuilds the host's workloads (and the
target's) from the tokens with the workload key the user chose, and joins them
(``modeling.tables.profilers``); :func:`dataset_parts` turns that into the table, mapping and notes a
dataset is saved with. Every value from the browser is checked here: tokens by ``staging``, the key
against ``KEYS``.
"""

from __future__ import annotations

from pathlib import PurePath

from dashboard.state import files, staging, uploads
from modeling.errors import DataError
from modeling.tables.profilers.detect import FORMATS, detect, read_profile
from modeling.tables.profilers.join import host_only, with_profile, with_simulator
from modeling.tables.profilers.profile import Profile
from modeling.tables.profilers.rocprof_compute import is_run_upload, read_run, run_tag
from modeling.tables.profilers.values import profiler_text
from modeling.tables.profilers.workloads import KEYS, differing_parts, target_tag_column, to_workloads

#: At most this many files per side (one per input size is the usual case).
MAX_FILES = 20
KEY_LABELS = {"kernel": "kernel (all launches of a kernel)",
              "kernel+tag": "kernel × input (the input tag: the file name, or a column below)",
              "app": "application run (a whole file)"}
#: the same, as the summary line says it ("8 workloads (one per kernel × input)")
KEY_EACH = {"kernel": "one per kernel", "kernel+tag": "one per kernel × input", "app": "one per application run"}


def profiler_format(raw: bytes) -> str | None:
    """The profiler format of an uploaded file, or None (Parquet, another table, unreadable text)."""
    if raw.startswith(b"PAR1"):
        return None
    try:
        return detect(profiler_text(raw))
    except DataError:
        return None


def stage_profile(raw: bytes, filename) -> tuple[str, dict]:
    """Read and stage one profiler file; returns ``(token, what was found)``."""
    with uploads.one_large_read(uploads.read_cost(raw)):
        profile = read_profile(raw)
    name = files.clean_name(filename, "profile")
    info = {"kind": "profile", "filename": name, "tag": PurePath(name).stem or name, "format": profile.format,
            "description": FORMATS[profile.format][1], "units": profile.units, "kinds": profile.kinds,
            "duration": profile.duration, "config": profile.config, "notes": profile.notes,
            "per_launch": profile.per_launch, "text": profile.text}
    return staging.stage_upload(profile.launches, info), info


def stage_run(contents: list, filenames: list, decode) -> tuple[str, dict]:
    """Stage the files of one rocprof-compute run (a browser uploads a folder's files, never the folder:
    ``pmc_perf.csv`` with ``SQ_LEVEL_WAVES.csv``, ``sysinfo.csv``, ... in one upload) as one profile, merged
    by dispatch and normalised by the XCD count (``modeling.tables.profilers.rocprof_compute``). Its input
    tag is the run's name in ``sysinfo.csv`` (``workload_name``), else ``pmc_perf``."""
    names = [files.clean_name(n, "profile") for n in filenames]
    raws = [decode(c) for c in contents]
    with uploads.one_large_read(sum(uploads.read_cost(r) for r in raws)):
        run = read_run(list(zip(names, raws)))
    profile = run.profile
    shown = ", ".join(run.files[:4]) + (f" and {len(run.files) - 4} more" if len(run.files) > 4 else "")
    info = {"kind": "profile", "filename": shown, "tag": run_tag(run, "pmc_perf"), "run": True,
            "format": profile.format,
            "description": f"one rocprof-compute run ({len(run.files)} counter file(s) merged by dispatch"
                           f"{', sysinfo.csv read' if run.sysinfo else ''})",
            "units": profile.units, "kinds": profile.kinds, "duration": profile.duration, "config": profile.config,
            "notes": profile.notes, "per_launch": profile.per_launch, "text": profile.text}
    return staging.stage_upload(profile.launches, info), info


def stage_target(raw: bytes, filename) -> tuple[str, dict]:
    """Stage the target: a profile (recognised from its header) or a simulator's results table."""
    if profiler_format(raw):
        return stage_profile(raw, filename)
    table = uploads.parse_upload(raw, filename)
    info = {"kind": "simulator", "filename": files.clean_name(filename, "simulator"),
            "description": "simulator results table", "rows": int(len(table.frame))}
    return staging.stage_upload(table.frame, info), info


def _profiles(tokens) -> list[tuple[Profile, str]]:
    """The staged profiles, each with its input tag (``file_tags`` of the side's file names; a rocprof-compute
    run's name for a run)."""
    out, names = [], []
    for token in tokens:
        frame, info = staging.staged_upload(token)
        if info.get("kind") != "profile":
            raise DataError("That upload is not a profile: upload the host's profiler files again.")
        out.append(Profile(info["format"], frame, info["units"], info["kinds"], info["duration"], info["config"],
                           info["notes"], info["per_launch"], info.get("text", [])))
        names.append(info["tag"] if info.get("run") else str(info["filename"]).rsplit("/", 1)[-1].rsplit(".", 1)[0])
    return list(zip(out, differing_parts(names)))


def checked_tokens(tokens) -> list[str]:
    if not isinstance(tokens, list) or not tokens or len(tokens) > MAX_FILES or not all(isinstance(t, str)
                                                                                         for t in tokens):
        raise DataError("Upload the host's profiler files first.")
    return tokens


def checked_key(key) -> str:
    if key not in KEYS:
        raise DataError(f"Choose what a workload is: one of {', '.join(KEYS)}.")
    return key


def checked_tag_column(tag_column, key) -> str | None:
    """The tag column chosen in the browser: None (the file names) or a column name; whether the files have
    it is checked when the workloads are made (``workloads.launch_tags`` refuses any other)."""
    if tag_column in (None, "") or key == "kernel":
        return None
    if not isinstance(tag_column, str) or len(tag_column) > 200:
        raise DataError("Choose the tag column from the list.")
    return tag_column


def tag_columns(infos) -> list[str]:
    """The columns every host file has that an input tag can be read from (the dropdown's choices)."""
    sets = [[c for c in (*i.get("config", []), *i.get("text", [])) if isinstance(c, str) and c.strip()]
            for i in infos if i.get("kind") == "profile"]
    return list(dict.fromkeys(c for c in sets[0] if all(c in s for s in sets[1:]))) if sets else []


def joined_table(host_tokens, target_tokens, key, tag_column=None):
    """``(Joined, host Workloads)`` from the staged files, the chosen workload key and tag column;
    ``target_tokens`` is None (no target yet), one simulator table's token, or the target's profiles (one
    per input, using the host's tag column when they all have it)."""
    key = checked_key(key)
    tag_column = checked_tag_column(tag_column, key)
    host = to_workloads(_profiles(checked_tokens(host_tokens)), key, tag_column=tag_column)
    if not target_tokens:
        return host_only(host), host
    target_tokens = checked_tokens(target_tokens)
    frame, info = staging.staged_upload(target_tokens[0])
    if info.get("kind") == "simulator":
        if len(target_tokens) > 1:
            raise DataError("Give one simulator table, or the target's profiles only.")
        return with_simulator(host, frame), host
    target = _profiles(target_tokens)
    return with_profile(host, to_workloads(target, key, tag_column=target_tag_column(target, tag_column))), host


def stage_targets(contents: list, filenames: list, decode) -> tuple[list, list]:
    """Stage the target's files: one simulator table, or one or more profiles, or one rocprof-compute run's
    files."""
    if is_run_upload(filenames):
        try:
            token, info = stage_run(contents, filenames, decode)
        except DataError as exc:
            raise DataError(f"rocprof-compute run: {exc}") from None
        return [token], [info]
    tokens, infos = [], []
    for c, name in zip(contents, filenames):
        try:
            token, info = stage_target(decode(c), name)
        except DataError as exc:
            raise DataError(f"{name if isinstance(name, str) else 'A file'}: {exc}") from None
        tokens.append(token)
        infos.append(info)
    if len(infos) > 1 and any(i["kind"] == "simulator" for i in infos):
        raise DataError("Give one simulator table, or the target's profiles only.")
    return tokens, infos


def dataset_parts(joined) -> tuple:
    """``(table, raw, mapping, notes)`` of the dataset to save, checked as every upload's mapping is; one
    workload is enough (a single run: ``notes["few"]`` says a model needs more)."""
    if not joined.targets:
        raise DataError("No target yet: add the target's profile or a simulator's results table, then save.")
    return uploads.build_dataset(joined.frame, {
        "id_col": "workload", "group_col": "application", "targets": joined.targets,
        "host_col": joined.host_col, "features": joined.features, "missing": "columns"}, min_rows=1)


def target_units(joined) -> dict:
    """Each target's unit as the profiler gave it (``gpu__time_duration.sum@target``: s, a cycle count:
    cycle), where it reads as a unit; a target without one is left out."""
    out = {}
    for t in joined.targets:
        try:
            unit = uploads.checked_unit(joined.units.get(t) or "")
        except DataError:
            continue
        if unit:
            out[t] = unit
    return out


def target_unit(joined) -> str:
    """The unit the profiler gave the targets when they share one that reads as a unit (e.g. nsecond,
    cycle), else "" (none given: the pages say so)."""
    units = target_units(joined)
    shared = set(units.values())
    return shared.pop() if len(units) == len(joined.targets) and len(shared) == 1 else ""
