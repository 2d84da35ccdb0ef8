"""A finished round of simulations back into the plan table: :func:`read_round` and :func:`round_changes`.

The farm's output (files, folders or zips of simulator output, or a long table:
:func:`modeling.tables.simulators.detect.read_paths`) is keyed as every simulator record is (application,
arguments, kernel, occurrence: :mod:`modeling.tables.simulators.records`), and the plan table's id column
names each workload by that key's text (``app/args--kernel--N``, as ``import-sim --join ... --out`` writes
it). The records join the table's rows on the key (:func:`modeling.tables.simulators.join.join`, so the
join report is the one ``import-sim --join`` prints: matched, unmatched on each side, names that differ at
the same position); the chosen statistic of each matched record becomes the row's target.

What did not come back is listed: each workload of the last batch (``batch_ids``) with no record, with the
reason the import gives where it names the run (a file refused, a kernel left out because the run was cut),
else "no output for it". Those can head the next batch (``plan(..., first_ids=...)``).

A value the table already holds is kept (a workload simulated twice is named, not overwritten); a record
whose key is no row of the table is named in the report; results of several simulated configurations are
refused unless one is chosen.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from modeling.errors import DataError
from modeling.plan.inputs import PlanInputError
from modeling.results import Result


@dataclass
class RoundMissing(Result):
    """A workload of the last batch that came back without a value, and why as far as the output says."""
    id: str
    reason: str


@dataclass
class RoundResults(Result):
    """What a round's simulator output gave the plan table: the statistic read, the configuration, the ids
    given a value (``merged``) with the value and where it came from (``sources``: file and dump), the ids
    that already had one (kept), the batch's workloads that did not come back (``missing``), the files the
    import refused and its notes, and the join report (``join``: :class:`JoinReport.to_dict`)."""
    statistic: str
    configuration: str
    merged: list
    values: dict
    sources: dict
    already: list
    missing: list
    refused: list
    notes: list
    join: dict

    def text(self) -> list[str]:
        j = self.join
        out = [f"results: {len(self.merged)} workload(s) given {self.statistic} from configuration "
               f"{self.configuration}; {len(self.already)} already simulated (kept); {len(self.missing)} of the "
               "batch missing",
               f"join: {j['n_matched']} matched, {len(j['simulated_only'])} simulated records not in the table, "
               f"{len(j['renamed'])} named differently at the same position"]
        out += [f"  {line}" for line in self.details()]
        out += [f"  note: {n}" for n in self.notes]
        return out

    def details(self) -> list[str]:
        """The join's details, one line each (the command line indents them, /plan lists them): simulated
        records not in the table, names that differ at the same launch position (20 of each at most), the
        batch's workloads that did not come back and why, the files refused."""
        j = self.join
        out = [f"not in the table: {x.split(': ', 1)[-1]}" for x in j["simulated_only"][:20]]
        out += [f"names differ: {r['run']} launch {r['position']}: simulated {r['simulated']}, table "
                f"{r['measured']}" for r in j["renamed"][:20]]
        out += [f"missing from the batch: {m.id}: {m.reason}" for m in self.missing]
        out += [f"refused: {r['source']}: {r['reason']}" for r in self.refused]
        return out


@dataclass
class RoundMove(Result):
    """One workload simulated this round: what the plan before predicted (and its interval) and the value."""
    id: str
    predicted: float
    lower: float | None
    upper: float | None
    simulated: float
    moved: float  # log(simulated / predicted)
    inside: bool | None


@dataclass
class RoundChange(Result):
    """What the round's simulations changed: the plan before (error and median interval width, from its
    JSON; None from a batch CSV) against the plan now, and per simulated workload of the batch the value
    predicted against the one simulated, largest moves first.

    The command line (``plan --previous``) and /plan (a batch merged into a new dataset version) say it
    alike; /plan also knows which round the dataset version is (``round``, 2 for the first merge), the
    version it was merged into (``parent``) and how many values were merged (``merged``): None on the
    command line."""
    error_before: float | None
    error_now: float | None
    width_before: float | None
    width_now: float | None
    measured_before: int | None
    measured_now: int
    moves: list = field(default_factory=list)
    round: int | None = None
    parent: str | None = None
    merged: int | None = None

    @property
    def inside(self) -> list[bool]:
        """Per simulated workload with an interval: was the simulated value inside it?"""
        return [m.inside for m in self.moves if m.inside is not None]


def looks_like_simulator_output(head: bytes, name: str) -> bool:
    """Whether a file (its first bytes and its name) is simulator output rather than a results table of ids and
    values: a zip, or a file a simulator reader recognises (a long table included)."""
    from modeling.tables.simulators.detect import HEAD_BYTES, detect

    return head[:4] == b"PK\x03\x04" or name.lower().endswith(".zip") or detect(head[:HEAD_BYTES], name) is not None


def is_simulator_output(path: str) -> bool:
    """Whether ``path`` is simulator output (a folder, or a file :func:`looks_like_simulator_output`)."""
    from pathlib import Path

    from modeling.tables.simulators.detect import HEAD_BYTES

    p = Path(path)
    if p.is_dir():
        return True
    if not p.is_file():
        raise DataError(f"No such file or folder: {path}")
    with p.open("rb") as fh:
        return looks_like_simulator_output(fh.read(HEAD_BYTES), p.name)


def _id_runs(ids) -> list:
    from modeling.tables.simulators.join import Run
    from modeling.tables.simulators.longtable import parse_workload

    runs, pos = [], {}
    for i in ids:
        key = parse_workload(str(i))
        run = (key.application, key.arguments)
        runs.append(Run(key, "table", pos.get(run, 0), str(i), "table", pos.get(run, 0), {}))
        pos[run] = pos.get(run, 0) + 1
    return runs


def _reason(source: str, message: str) -> str:
    """A reader's refusal without the file's name in front (the report names the file once)."""
    return message[len(source) + 2:] if message.startswith(f"{source}: ") else message


def read_round(paths: list, frame: pd.DataFrame, id_col: str, target: str, statistic: str | None = None,
               configuration: str | None = None, batch_ids=None) -> tuple[pd.DataFrame, RoundResults]:
    """The table ``frame`` with the round's simulated values filled in, and what happened (see the module's
    text). ``statistic``: the simulator's statistic (a name, or cycles, seconds, instructions, power;
    default: ``target`` itself, then as an alias, then the alias its name suggests: ``sim_cycles`` as
    cycles)."""
    from modeling.tables.simulators import join as sj
    from modeling.tables.simulators.detect import read_paths

    if id_col not in frame.columns or target not in frame.columns:
        raise PlanInputError(f"The table has no column {id_col if id_col not in frame.columns else target!r}.")
    imp = read_paths(paths)
    refused = [{"source": s, "reason": _reason(s, m)} for s, m in imp.refused]
    sim = sj.runs_of_import(imp)
    if not sim:
        raise PlanInputError("The results hold no simulator record: "
                             + ("; ".join(f"{r['source']}: {r['reason'].rstrip('.')}" for r in refused[:3])
                                or "nothing read") + ". Nothing was merged.")
    configs = sorted({r.configuration for r in sim})
    if configuration is None and len(configs) > 1:
        raise PlanInputError(f"The results hold {len(configs)} simulated configurations ({', '.join(configs[:6])}): "
                             "choose the one the target is of (--configuration). Nothing was merged.")
    cfg = configuration or configs[0]
    if cfg not in configs:
        raise PlanInputError(f"No results of configuration {cfg!r} (there are: {', '.join(configs[:6])}).")
    sim = [r for r in sim if r.configuration == cfg]
    notes = list(imp.notes)
    try:
        stat = sj.resolve_statistic(statistic or target, sim)
    except DataError:
        guess = None if statistic else next((a for a, words in _GUESS.items()
                                             if any(w in target.lower() for w in words)), None)
        if guess is None:
            raise
        stat = sj.resolve_statistic(guess, sim)
        notes.append(f"the target {target!r} read as the simulator's {stat} ({guess}, from its name)")
    ids = frame[id_col].astype(str).tolist()
    report = sj.join(sim, _id_runs(ids))
    current = pd.to_numeric(frame[target], errors="coerce")
    have = dict(zip(ids, current.to_numpy(dtype=float)))
    values, sources, already = {}, {}, []
    for p in report.matched:
        wid = p.measured.printed
        v = p.simulated.values.get(stat, float("nan"))
        if not (np.isfinite(v) and v > 0):
            notes.append(f"{wid}: {stat} is {v!r} in {p.simulated.source} (dump {p.simulated.dump}): not merged")
            continue
        if np.isfinite(have.get(wid, np.nan)):
            already.append(wid)
            continue
        if wid in values:
            notes.append(f"{wid}: a second record in {p.simulated.source}: the first kept ({sources[wid]})")
            continue
        values[wid], sources[wid] = float(v), f"{p.simulated.source}#{p.simulated.dump}"
    missing = []
    file_notes = [(f.source, n) for f in imp.files for n in f.notes if "Left out" in n or "left out" in n]
    for wid in [str(i) for i in (batch_ids or [])]:
        if wid in values or np.isfinite(have.get(wid, np.nan)):
            continue
        key = _id_runs([wid])[0].key
        why = [f"{r['source']}: {r['reason']}" for r in refused if key.application in r["source"]]
        why += [f"{s}: {n}" for s, n in file_notes if key.application in s and (not key.kernel or key.kernel in n
                                                                                  or _printed_in(key.kernel, n))]
        missing.append(RoundMissing(wid, "; ".join(why) if why else "no simulator output for it"))
    out = frame.copy()
    out[target] = current.astype(float)
    hit = out[id_col].astype(str).isin(values.keys()).to_numpy()
    out.loc[hit, target] = out.loc[hit, id_col].astype(str).map(values).to_numpy(dtype=float)
    return out, RoundResults(stat, cfg, sorted(values), values, sources, sorted(already), missing, refused, notes,
                             report.to_dict())


#: a target column's name -> the alias of :data:`modeling.tables.simulators.join.TARGET_ALIASES` it is read as
#: when no statistic has its name (``sim_cycles`` -> cycles)
_GUESS = {"cycles": ("cycle", "cyc"), "seconds": ("second", "time", "_s"), "instructions": ("inst",),
          "power": ("power", "watt")}


def missing_of_batch(frame: pd.DataFrame, id_col: str, target: str, batch_ids,
                     reason: str = "no value for it in the results") -> list[RoundMissing]:
    """The last batch's workloads (``batch_ids``) that still have no value of ``target`` in ``frame`` (a table
    with the round's results merged, or one that got none), each with ``reason``: what ``--retry-missing``
    puts first when the results were a table of ids and values rather than the simulator's output."""
    if id_col not in frame.columns or target not in frame.columns:
        raise PlanInputError(f"The table has no column {id_col if id_col not in frame.columns else target!r}.")
    have = dict(zip(frame[id_col].astype(str), pd.to_numeric(frame[target], errors="coerce").to_numpy(float)))
    out, seen = [], set()
    for wid in (str(i) for i in (batch_ids or [])):
        if wid not in seen and wid in have and not np.isfinite(have[wid]):
            out.append(RoundMissing(wid, reason))
        seen.add(wid)
    return out


def retry_first(missing) -> list[str]:
    """The ids that head the next batch when the missing runs are retried (``plan(..., first_ids=...)``): the
    missing workloads (:class:`RoundMissing` or their ``to_dict``), in the order the round listed them."""
    out = []
    for m in missing or []:
        wid = str(m["id"] if isinstance(m, dict) else m.id)
        if wid not in out:
            out.append(wid)
    return out


def _printed_in(kernel: str, note: str) -> bool:
    """Whether a note names ``kernel`` in a mangled form (``_Z14dynproc_kernel...``)."""
    return f"{len(kernel)}{kernel}" in note


def read_previous(path: str) -> dict:
    """The last round's plan: its ``plan --json`` output (batch and expected effect) or its batch CSV
    (``plan --out``: ids, predictions and intervals only). Returns {"batch": [{id, predicted, lower,
    upper}], "error": ..., "width": ..., "n_measured": ...}."""
    import json

    if str(path).lower().endswith(".json"):
        try:
            with open(path, encoding="utf-8") as fh:
                d = json.load(fh)
            batch = [{k: b.get(k) for k in ("id", "predicted", "lower", "upper")} for b in d["batch"]]
            e = d.get("expected") or {}
            return {"batch": batch, "error": e.get("error_now"), "width": e.get("width_now"),
                    "n_measured": d.get("n_measured")}
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise PlanInputError(f"{path}: not the JSON `plan --json` prints ({exc}).") from exc
    from modeling.tables.reading import read_table

    t = read_table(path).frame
    if "id" not in t.columns:
        raise PlanInputError(f"{path}: a batch CSV has an id column (the one `plan --out` writes).")
    cols = [c for c in ("id", "predicted", "lower", "upper") if c in t.columns]
    batch = [{k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
             for r in t[cols].to_dict("records")]
    for b in batch:
        b["id"] = str(b["id"])
    return {"batch": batch, "error": None, "width": None, "n_measured": None}


def moves(predicted, values: dict) -> list[RoundMove]:
    """Per workload simulated: the value the plan before predicted (``predicted``: (id, predicted, lower,
    upper) tuples) against the simulated one (``values``: id -> value), largest moves first."""
    out = []
    for wid, p, lo, hi in predicted:
        v = values.get(str(wid))
        if v is None or p is None or not (p > 0) or not np.isfinite(v):
            continue
        out.append(RoundMove(str(wid), float(p), lo, hi, float(v), float(np.log(v / p)),
                             None if lo is None or hi is None else bool(lo <= v <= hi)))
    out.sort(key=lambda m: -abs(m.moved))
    return out


def round_changes(previous: dict, values: dict, plan_now) -> RoundChange:
    """What the round changed (see :class:`RoundChange`): ``previous`` from :func:`read_previous`, ``values``
    the ids simulated this round and their values, ``plan_now`` the next round's plan."""
    batch = [(b["id"], b.get("predicted"), b.get("lower"), b.get("upper")) for b in previous["batch"]]
    return RoundChange(previous.get("error"), plan_now.expected.error_now, previous.get("width"),
                       plan_now.expected.width_now, previous.get("n_measured"), plan_now.n_measured,
                       moves(batch, values))


__all__ = ["RoundChange", "RoundMissing", "RoundMove", "RoundResults", "is_simulator_output",
           "looks_like_simulator_output", "missing_of_batch", "moves", "read_previous", "read_round", "retry_first",
           "round_changes"]
