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
from modeling.tables.simulators.records import KEY_COLUMNS

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
    if is_sim_output(raw, filename):
        return stage_sim_output(raw, filename)
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
    if len(infos) > 1 and any(i["kind"] in ("simulator", "simrecords") for i in infos):
        raise DataError("Give one simulator table, one simulator output (a file or a zip), or the target's "
                        "profiles only.")
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


#: what the simulator's statistics are in the dataset (``import-sim --features``): the target, the features
#: being the host profile's counters joined on the workload key (``measured``), or the target and the
#: features both, the target one statistic and the features the records' other statistics (``simulated``: a
#: fast functional simulator's or a gem5 atomic-CPU run's statistics beside the detailed run's cycles)
SIM_ROLES = {"measured": "the target; the features are the host profile's counters (joined on the workload key)",
             "simulated": "the target and the features: one statistic is the target, the records' other "
                          "statistics the features"}
#: the target statistics offered by name before any is read (``import-sim --target`` takes these too)
SIM_TARGET_ALIASES = ("cycles", "seconds", "instructions", "power")


def is_sim_output(raw: bytes, filename) -> bool:
    """Whether a target upload is a simulator's own output (a zip, a GPGPU-Sim / Accel-Sim log, get_stats.py
    output, a gem5 stats.txt, a long table) rather than a profile or a results table: the command line's test."""
    from modeling.plan.loop import looks_like_simulator_output

    return looks_like_simulator_output(raw, str(filename or ""))


def stage_sim_output(raw: bytes, filename) -> tuple[str, dict]:
    """Read and stage a simulator's output (one file or a zip of them, read as ``import-sim`` reads it) as its
    records, one row per record (``SimImport.frame``); the info lists its statistics, the files read and
    refused, and their notes, without the server's temporary folder."""
    from modeling.tables.simulators.detect import read_paths

    name = files.clean_name(filename, "simulator")
    with files.upload_as_file(raw, filename, "simulator") as (path, prefix):
        try:
            with uploads.one_large_read(uploads.read_cost(raw)):
                imp = read_paths([path])
        except DataError as exc:
            raise DataError(str(exc).replace(prefix, "")) from None
    frame = imp.frame()
    refused = [f"{s.replace(prefix, '')}: refused: {m.replace(prefix, '')}" for s, m in imp.refused]
    if frame.empty:
        raise DataError("No simulator record was read" + (f" ({'; '.join(refused[:3])})" if refused else "") + ".")
    frame["source"] = frame["source"].astype(str).str.replace(prefix, "", regex=False)
    stats = [str(c) for c in frame.columns if c not in KEY_COLUMNS]
    notes = [f"{f.source.replace(prefix, '')}: {n.replace(prefix, '')}" for f in imp.files for n in f.notes]
    notes += refused + [n.replace(prefix, "") for n in imp.notes]
    formats = sorted({f.format for f in imp.files})
    info = {"kind": "simrecords", "filename": name, "statistics": stats,
            "description": f"simulator output ({', '.join(formats)}): {len(frame)} record(s) from "
                           f"{len(imp.files)} file(s), {len(stats)} statistic(s)", "notes": notes}
    return staging.stage_upload(frame, info), info


def _sim_runs(frame) -> list:
    """The staged records as the join's runs (:func:`modeling.tables.simulators.join.runs_of_import`'s order
    and positions)."""
    import math
    from collections import defaultdict

    from modeling.tables.simulators.join import Run
    from modeling.tables.simulators.records import WorkloadKey

    stats = [c for c in frame.columns if c not in KEY_COLUMNS]
    seen, out = defaultdict(int), []
    for r in frame.to_dict("records"):
        key = WorkloadKey(str(r["application"]), str(r["arguments"]), str(r["kernel"] or ""), int(r["occurrence"]))
        group = (key.application, key.arguments, str(r["configuration"]))
        values = {s: float(r[s]) if isinstance(r[s], (int, float)) else math.nan for s in stats}
        out.append(Run(key, str(r["configuration"]), seen[group], str(r["kernel_printed"]), str(r["source"]),
                       int(r["dump"]), values))
        seen[group] += 1
    return out


def checked_sim_role(role) -> str:
    if not isinstance(role, str) or role not in SIM_ROLES:
        raise DataError(f"Choose what the simulator's statistics are: one of {', '.join(SIM_ROLES)}.")
    return role


def checked_sim_targets(targets, statistics: list) -> list[str]:
    """The target statistics chosen in the browser: a list of names the staged records have, or aliases."""
    if isinstance(targets, str):
        targets = [targets]
    if not isinstance(targets, list) or not targets or len(targets) > 8:
        raise DataError("Choose the simulator statistic(s) that are the target (e.g. cycles).")
    allowed = set(SIM_TARGET_ALIASES) | set(statistics)
    bad = [t for t in targets if not isinstance(t, str) or t not in allowed]
    if bad:
        raise DataError(f"{str(bad[0])[:60]!r} is not a statistic of the simulator output; choose one from the "
                        "list.")
    return list(dict.fromkeys(targets))


def sim_dataset(host_tokens, target_tokens, role, targets):
    """``(SimDataset, JoinReport or None)`` from the staged host profiles and simulator output, as
    ``import-sim SIM --join HOST --target TARGETS --features ROLE`` builds it
    (:func:`modeling.tables.simulators.join.build_dataset`): each row keeps the file and dump its target and
    features came from (``target_from``, ``features_from``)."""
    from modeling.tables.simulators import join as sj

    role = checked_sim_role(role)
    tokens = checked_tokens(target_tokens)
    if len(tokens) != 1:
        raise DataError("Give the simulator's output as one file or one zip.")
    frame, info = staging.staged_upload(tokens[0])
    if info.get("kind") != "simrecords":
        raise DataError("That upload is not a simulator's output: upload it again.")
    targets = checked_sim_targets(targets, info.get("statistics") or [])
    simulated = _sim_runs(frame)
    report = None
    if role == "measured":
        measured = []
        for token in checked_tokens(host_tokens):
            hframe, hinfo = staging.staged_upload(token)
            if hinfo.get("kind") != "profile":
                raise DataError("That upload is not a profile: upload the host's profiler files again.")
            prof = Profile(hinfo["format"], hframe, hinfo["units"], hinfo["kinds"], hinfo["duration"],
                           hinfo["config"], hinfo["notes"], hinfo["per_launch"], hinfo.get("text", []))
            measured += sj.runs_of_profile(prof, str(hinfo["filename"]))
        report = sj.join(simulated, measured)
    return sj.build_dataset(simulated, targets, role, report), report


def sim_dataset_parts(ds) -> tuple:
    """``(table, raw, mapping, notes)`` of a simulator dataset, checked as every upload's mapping is; the
    table keeps ``target_from`` and ``features_from`` (file#dump) beside each row, as ``import-sim --out``
    writes them."""
    if ds.frame["configuration"].nunique() > 1:
        raise DataError(f"The simulator output holds {ds.frame['configuration'].nunique()} configurations: upload "
                        "one configuration's output (its workloads would otherwise appear once per configuration).")
    from modeling.tables.profilers.join import TARGET_METRICS
    from modeling.tables.simulators.join import PROVENANCE

    # the host's own measure of the target (its time or cycles), when the features are the host's counters:
    # the baseline, the ratio transforms and /plan's host time x slowdown use it
    host_col = next((c for c in TARGET_METRICS if c in ds.features), None) if ds.features_from == "measured" else None
    table, raw, mapping, notes = uploads.build_dataset(
        ds.frame, {"id_col": "workload", "group_col": "application", "targets": ds.targets, "host_col": host_col,
                   "features": ds.features, "missing": "columns"}, min_rows=1)
    prov = ds.frame.drop_duplicates("workload").set_index("workload")[["configuration", *PROVENANCE]]
    table = table.drop(columns=[c for c in prov.columns if c in table.columns]).join(prov, on="workload")
    return table, raw, mapping, notes


def target_kind(target_tokens) -> str | None:
    """``simrecords`` when the staged target is a simulator's own output (its statistics' role is then
    chosen), else None (a profile, a results table, nothing yet, or a token that is not staged)."""
    if not isinstance(target_tokens, list) or len(target_tokens) != 1 or not isinstance(target_tokens[0], str):
        return None
    try:
        _, info = staging.staged_upload(target_tokens[0])
    except LookupError:
        return None
    return "simrecords" if info.get("kind") == "simrecords" else None


def sim_target_options(target_tokens) -> list[str]:
    """The target statistics the role fields offer: the aliases, then the staged output's statistics."""
    if target_kind(target_tokens) is None:
        return []
    _, info = staging.staged_upload(target_tokens[0])
    return list(SIM_TARGET_ALIASES) + [s for s in info.get("statistics") or [] if s not in SIM_TARGET_ALIASES]
