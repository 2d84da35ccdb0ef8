"""Simulated records joined to measured runs on the workload key: :func:`join`, a :class:`JoinReport`.

The measured side is a profiler's launches (Nsight Compute, nvprof, rocprof: one run per file, its
application the file's name without extension, its arguments ``NO_ARGS``) or another simulator's records
(:func:`read_measured`). Both sides are keyed as :class:`~modeling.tables.simulators.records.WorkloadKey`:
application, arguments, normalised kernel name and the occurrence of that name in the run.

A *run* is one application with one argument set. Runs pair up, per simulated configuration, when their
application and arguments are the same; a measured run without arguments (a profile named after its
application) pairs with the one simulated run of that application, or of an application whose name starts
with it followed by ``-`` or ``_`` (``backprop`` and ``backprop-rodinia-2.0-ft``), when there is exactly one,
and the report says so. Within a pair of runs:

* ``by="key"`` (the default): kernel name and occurrence must agree. Launches a tracer left out shift no
  other kernel's key, so a traced window joins as well as a full run.
* ``by="order"`` (only when asked, as Accel-Sim's correlator does): the i-th simulated launch joins the
  (i + ``offset``)-th measured launch whatever their names; a warning says so, and every pair whose names
  differ is listed.

The report names everything left over: simulated records with no measured run, measured launches no
simulated record joined (per configuration), and, within paired runs, the kernels whose names differ at
the same launch position (a renamed or demangled-differently kernel, or a window that starts elsewhere).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from modeling.errors import DataError
from modeling.tables.simulators.records import SimImport, WorkloadKey, demangle, normalise_kernel

BY_CHOICES = ("key", "order")
#: most names each list of a report shows in text (the JSON holds them all)
SHOWN = 20


@dataclass
class Run:
    """One launch (or dump) of either side, keyed: where it came from and its numeric values."""
    key: WorkloadKey
    configuration: str
    position: int
    printed: str
    source: str
    dump: int
    values: dict

    @property
    def run(self) -> tuple:
        return (self.key.application, self.key.arguments)


@dataclass
class Pair:
    """A simulated record and the measured launch it joined."""
    simulated: Run
    measured: Run

    def to_dict(self) -> dict:
        s, m = self.simulated, self.measured
        return {"workload": s.key.text, "configuration": s.configuration, "measured": m.key.text,
                "simulated_source": s.source, "simulated_dump": s.dump, "measured_source": m.source,
                "measured_launch": m.dump, "same_name": s.key.kernel == m.key.kernel}


@dataclass
class Renamed:
    """Two kernels at the same launch position of a paired run whose names differ."""
    configuration: str
    run: str
    position: int
    simulated: str
    measured: str

    def to_dict(self) -> dict:
        return {"configuration": self.configuration, "run": self.run, "position": self.position,
                "simulated": self.simulated, "measured": self.measured}


@dataclass
class JoinReport:
    """What a join matched and what it left over (see the module's text)."""
    by: str
    offset: int
    matched: list = field(default_factory=list)
    simulated_only: list = field(default_factory=list)   # "configuration: key"
    measured_only: list = field(default_factory=list)    # "configuration: key"
    renamed: list = field(default_factory=list)
    runs_paired: list = field(default_factory=list)      # (simulated run, measured run)
    warnings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    #: measured launches no simulated record joined, as (configuration, launch, the key the simulator would
    #: give it: the paired simulated run's application and arguments, else the measured run's own)
    unsimulated: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"by": self.by, "offset": self.offset, "matched": [p.to_dict() for p in self.matched],
                "n_matched": len(self.matched), "simulated_only": list(self.simulated_only),
                "measured_only": list(self.measured_only), "renamed": [r.to_dict() for r in self.renamed],
                "runs_paired": [{"simulated": s, "measured": m} for s, m in self.runs_paired],
                "warnings": list(self.warnings), "notes": list(self.notes)}

    def text(self) -> str:
        """The report as lines a person reads (each list cut at :data:`SHOWN` names)."""
        how = f"launch order (offset {self.offset})" if self.by == "order" else "workload key"
        out = [f"joined by {how}: "
               f"{len(self.matched)} matched, {len(self.simulated_only)} simulated only, "
               f"{len(self.measured_only)} measured only, {len(self.renamed)} named differently at the same "
               "position"]
        out += [f"warning: {w}" for w in self.warnings]
        for title, items in (("simulated only", self.simulated_only), ("measured only", self.measured_only)):
            out += [f"{title}: {x}" for x in items[:SHOWN]]
            if len(items) > SHOWN:
                out.append(f"{title}: ... and {len(items) - SHOWN} more (--json lists them all)")
        for r in self.renamed[:SHOWN]:
            out.append(f"names differ at {r.configuration}: {r.run} launch {r.position}: simulated {r.simulated!r}, "
                       f"measured {r.measured!r}")
        if len(self.renamed) > SHOWN:
            out.append(f"names differ: ... and {len(self.renamed) - SHOWN} more (--json lists them all)")
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)


def runs_of_import(result: SimImport) -> list[Run]:
    """Every record of a simulator import as a :class:`Run`; its position is its place among the records of
    its application, arguments and configuration in the order read."""
    seen: dict = defaultdict(int)
    out = []
    for r in result.records:
        group = (r.key.application, r.key.arguments, r.configuration)
        out.append(Run(r.key, r.configuration, seen[group], r.kernel, r.file.source, r.dump, r.values))
        seen[group] += 1
    return out


def runs_of_profile(profile, source: str, application: str | None = None) -> list[Run]:
    """A profiler's launches as :class:`Run` s: the application ``application`` (default: the file's name
    without extension), arguments ``NO_ARGS``, each launch's kernel normalised and counted."""
    app = application or PurePosixPath(str(source)).name.rsplit(".", 1)[0]
    launches = profile.launches
    names = [str(k) for k in launches["kernel"]]
    demangled = demangle(names)
    metrics = [m for m in profile.metrics if m in launches.columns]
    count: dict = defaultdict(int)
    out = []
    for pos, (name, row) in enumerate(zip(names, launches[metrics].itertuples(index=False))):
        kernel = normalise_kernel(name, demangled)
        key = WorkloadKey(app, "NO_ARGS", kernel, count[kernel])
        count[kernel] += 1
        out.append(Run(key, "measured", pos, name, str(source), pos, dict(zip(metrics, map(float, row)))))
    return out


def read_measured(paths: list) -> tuple[list[Run], list[str]]:
    """The measured side from files or folders: simulator output (any format :mod:`.detect` reads) or
    profiler CSVs. Returns the runs and notes (files refused, with reasons). Raises :class:`DataError` when
    nothing could be read."""
    from modeling.tables.profilers.detect import read_profile
    from modeling.tables.simulators.detect import read_paths

    sim = read_paths(paths)
    runs, notes = runs_of_import(sim), []
    refused = {s: m for s, m in sim.refused}
    profiles = []
    for p in paths:
        path = Path(p)
        files = sorted(f for f in path.rglob("*") if f.is_file()) if path.is_dir() else [path]
        for f in files:
            if str(f) in refused and f.suffix.lower() in (".csv", ".txt"):
                profiles.append(f)
    for f in profiles:
        try:
            prof = read_profile(f.read_bytes())
        except (DataError, OSError) as e:
            notes.append(f"{f}: {refused.get(str(f), e)}")
            continue
        refused.pop(str(f), None)
        runs += runs_of_profile(prof, str(f))
    notes += [f"{s}: {m}" for s, m in refused.items()]
    if not runs:
        raise DataError("The measured side holds nothing to join: no simulator record and no profiler launch "
                        "was read" + (f" ({'; '.join(notes[:3])})" if notes else "") + ".")
    return runs, notes


def _pair_runs(sim_runs: set, meas_runs: set, notes: list) -> dict:
    """Simulated run -> measured run (see the module's text)."""
    pairs = {r: r for r in sim_runs if r in meas_runs}
    taken = set(pairs.values())
    for m in sorted(meas_runs - taken):
        app, args = m
        if args != "NO_ARGS":
            continue
        cands = sorted(s for s in sim_runs - set(pairs)
                       if s[0] == app or s[0].startswith(app + "-") or s[0].startswith(app + "_"))
        if len(cands) == 1:
            pairs[cands[0]] = m
            notes.append(f"measured run {app} (no arguments) paired with simulated run {'/'.join(cands[0])}")
        elif len(cands) > 1:
            notes.append(f"measured run {app} (no arguments) fits {len(cands)} simulated runs "
                         f"({', '.join('/'.join(c) for c in cands[:4])}): not paired; name the profile after "
                         "one of them")
    return pairs


def join(simulated: list[Run], measured: list[Run], by: str = "key", offset: int = 0) -> JoinReport:
    """Join simulated runs to measured ones (see the module's text). ``offset`` (``by="order"`` only): the
    measured launch the first simulated one joins (a traced window that starts later: positive)."""
    if by not in BY_CHOICES:
        raise DataError(f"Join by {by!r} is not understood: use one of {', '.join(BY_CHOICES)}.")
    if by == "key" and offset:
        raise DataError("An offset only applies to a join by launch order (--by order).")
    report = JoinReport(by, int(offset))
    if by == "order":
        report.warnings.append("joined by launch order, not by kernel name: a launch the tracer or the simulator "
                               f"left out shifts every later pair (offset {offset}); check the names that differ "
                               "below")
    meas_by_run: dict = defaultdict(list)
    for m in measured:
        meas_by_run[m.run].append(m)
    sim_by_cfg: dict = defaultdict(lambda: defaultdict(list))
    for s in simulated:
        sim_by_cfg[s.configuration][s.run].append(s)
    for cfg in sorted(sim_by_cfg):
        runs = sim_by_cfg[cfg]
        pairs = _pair_runs(set(runs), set(meas_by_run), report.notes)
        for srun in sorted(runs):
            sims = sorted(runs[srun], key=lambda r: r.position)
            mrun = pairs.get(srun)
            if mrun is None:
                report.simulated_only += [f"{cfg}: {s.key.text}" for s in sims]
                continue
            report.runs_paired.append(("/".join(srun) + f" @ {cfg}", "/".join(mrun)))
            meas = sorted(meas_by_run[mrun], key=lambda r: r.position)
            used = set()
            if by == "key":
                index = {(m.key.kernel, m.key.occurrence): m for m in meas}
                done = set()
                for s in sims:
                    m = index.get((s.key.kernel, s.key.occurrence))
                    if m is None:
                        report.simulated_only.append(f"{cfg}: {s.key.text}")
                    else:
                        report.matched.append(Pair(s, m))
                        used.add(m.position)
                        done.add(s.position)
                # names that differ at the same launch position, among the launches left unmatched
                left_m = {m.position: m for m in meas if m.position not in used}
                for s in sims:
                    m = left_m.get(s.position)
                    if m is not None and s.position not in done:
                        report.renamed.append(Renamed(cfg, "/".join(srun), s.position, s.key.kernel, m.key.kernel))
            else:
                by_pos = {m.position: m for m in meas}
                for s in sims:
                    m = by_pos.get(s.position + offset)
                    if m is None:
                        report.simulated_only.append(f"{cfg}: {s.key.text}")
                        continue
                    report.matched.append(Pair(s, m))
                    used.add(m.position)
                    if s.key.kernel != m.key.kernel:
                        report.renamed.append(Renamed(cfg, "/".join(srun), s.position, s.key.kernel, m.key.kernel))
            for m in meas:
                if m.position not in used:
                    report.measured_only.append(f"{cfg}: {m.key.text}")
                    report.unsimulated.append((cfg, m, WorkloadKey(srun[0], srun[1], m.key.kernel,
                                                                   m.key.occurrence)))
        for mrun in sorted(set(meas_by_run) - set(pairs.values())):
            report.measured_only += [f"{cfg}: {m.key.text}" for m in meas_by_run[mrun]]
            report.unsimulated += [(cfg, m, m.key) for m in meas_by_run[mrun]]
    if not sim_by_cfg:
        report.measured_only = [m.key.text for m in measured]
        report.unsimulated = [("", m, m.key) for m in measured]
    return report


#: what a target can be asked for by, and the statistics each stands for, first found first
TARGET_ALIASES = {
    "cycles": ("gpu_sim_cycle", "system.cpu.numCycles", "numCycles", "cycles", "sm__cycles_elapsed.max",
               "gpc__cycles_elapsed.max", "sm__cycles_elapsed.sum"),
    "seconds": ("simSeconds", "sim_seconds", "seconds", "time", "gpu__time_duration.sum", "duration"),
    "instructions": ("gpu_sim_insn", "simInsts", "sim_insts", "instructions", "smsp__inst_executed.sum",
                     "inst_executed"),
    "power": ("gpu_tot_avg_power", "kernel_avg_power", "power", "total_power", "runtime_dynamic_power"),
}
ROLE_SIDES = ("measured", "simulated")


def resolve_statistic(name: str, runs: list[Run]) -> str:
    """A statistic of ``runs`` by its name or an alias of :data:`TARGET_ALIASES` (the first the runs have);
    DataError naming what is there when neither is."""
    have = set()
    for r in runs:
        have.update(r.values)
    if name in have:
        return name
    for cand in TARGET_ALIASES.get(name.lower(), ()):
        if cand in have:
            return cand
    for cand in TARGET_ALIASES.get(name.lower(), ()):  # gem5's per-CPU names: board.processor.cores.core.numCycles
        ends = sorted(h for h in have if h.endswith("." + cand))
        if ends:
            return ends[0]
    close = sorted(h for h in have if name.lower() in h.lower())[:8]
    raise DataError(f"No statistic {name!r} in the simulated records" + (f" (similar: {', '.join(close)})" if close
                    else "") + f"; give a statistic's name or one of {', '.join(TARGET_ALIASES)}.")


@dataclass
class SimDataset:
    """A workload table from simulator output: one row per workload key (and configuration), the target
    column(s), the feature columns and, per row, which file and dump (or launch) the target and the features
    came from (``target_from``, ``features_from``: ``file#dump``)."""
    frame: object
    targets: list
    features: list
    features_from: str
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"rows": int(len(self.frame)), "targets": list(self.targets), "features": list(self.features),
                "features_from": self.features_from, "notes": list(self.notes)}


#: where each row's values came from, as text (``file#dump``: a GPGPU-Sim record's launch number among the
#: file's records, a gem5 dump's number, a profile's launch), so that no model takes them for counters
PROVENANCE = ["target_from", "features_from"]


def build_dataset(simulated: list[Run], targets: list[str], features: str | list = "measured",
                  report: JoinReport | None = None) -> SimDataset:
    """The simulated side's statistics ``targets`` (names or aliases) as the target columns; the features
    either the measured side's numeric values (``"measured"``, needs the join ``report``: one row per matched
    pair, then one row with an empty target per measured launch no record joined, keyed as the simulator
    would key it: the candidates a plan chooses from), the simulated records' own other statistics
    (``"simulated"``: one row per record, e.g. a gem5
    atomic-CPU run's statistics beside its detailed run's cycles), or a list of statistic names of the
    simulated records."""
    import numpy as np
    import pandas as pd

    if not targets:
        raise DataError("Name at least one target statistic (e.g. cycles, seconds, instructions, power).")
    cols = [resolve_statistic(t, simulated) for t in targets]
    rows, notes = [], []
    if features == "measured":
        if report is None:
            raise DataError("Features from the measured side need a join: give the measured runs (--join).")
        pairs = [(p.simulated, p.measured) for p in report.matched]
        if not pairs and not report.unsimulated:
            raise DataError("No simulated record joined a measured run: there is nothing to build a dataset of "
                            "(see the join report).")
        fnames = sorted({k for _, m in pairs for k in m.values} | {k for _, m, _ in report.unsimulated
                                                                   for k in m.values})
        from_side = "measured"
    else:
        pairs = [(s, s) for s in simulated]
        if features == "simulated":
            fnames = sorted({k for s in simulated for k in s.values} - set(cols))
        else:
            fnames = [resolve_statistic(f, simulated) for f in features]
        from_side = "simulated"
    seen = {}
    for s, m in pairs:
        ident = (s.key.text, s.configuration)
        if ident in seen:
            notes.append(f"{s.key.text} @ {s.configuration} came twice ({seen[ident]} and {s.source}): the first kept")
            continue
        seen[ident] = s.source
        row = {"workload": s.key.text, "application": s.key.application, "configuration": s.configuration}
        row.update({c: s.values.get(c, np.nan) for c in cols})
        row.update({(f"{f}@measured" if f in cols else f): m.values.get(f, np.nan) for f in fnames})
        row.update(target_from=f"{s.source}#{s.dump}", features_from=f"{m.source}#{m.dump}")
        rows.append(row)
    if features == "measured" and report.unsimulated:
        n0 = len(rows)
        for cfg, m, key in report.unsimulated:
            ident = (key.text, cfg)
            if ident in seen:
                continue
            seen[ident] = m.source
            row = {"workload": key.text, "application": key.application, "configuration": cfg}
            row.update({c: np.nan for c in cols})
            row.update({(f"{f}@measured" if f in cols else f): m.values.get(f, np.nan) for f in fnames})
            row.update(target_from="", features_from=f"{m.source}#{m.dump}")
            rows.append(row)
        notes.append(f"{len(rows) - n0} measured launch(es) not simulated yet: rows with an empty target, the "
                     "candidates a plan chooses from")
    frame = pd.DataFrame(rows)
    feats = [(f"{f}@measured" if f in cols else f) for f in fnames]
    keep = [f for f in feats if f in frame and pd.to_numeric(frame[f], errors="coerce").notna().any()]
    if len(keep) < len(feats):
        notes.append(f"{len(feats) - len(keep)} feature(s) empty for every workload: left out")
    frame = frame[["workload", "application", "configuration", *cols, *keep, *PROVENANCE]]
    missing = frame[cols].isna().any(axis=1) & (frame["target_from"] != "")
    if missing.any():
        notes.append(f"{int(missing.sum())} workload(s) lack a target value: "
                     + ", ".join(frame.loc[missing, "workload"].head(5)))
    return SimDataset(frame, cols, keep, from_side, notes)


__all__ = ["BY_CHOICES", "PROVENANCE", "ROLE_SIDES", "SimDataset", "TARGET_ALIASES", "build_dataset",
           "resolve_statistic", "JoinReport", "Pair", "Renamed", "Run", "join", "read_measured", "runs_of_import",
           "runs_of_profile"]
