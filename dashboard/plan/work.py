"""The work behind /plan (no Dash): a dataset as a plan table, the plan as plain JSON with its provenance, and
a finished batch's results merged into a new version of the dataset.

A plan table (:func:`modeling.plan.inputs.read_plan_table`) is the dataset's workload table with the chosen
target: rows with a value are simulated, rows with an empty target are the candidates. The id, application
and host columns are those the dataset recorded at upload (for the shipped data: the workload, its
application and the host GPU's own measure of the metric). The cost of a simulation is a numeric column of
the table (hours), or the host column times a simulator slowdown.
"""

from __future__ import annotations


import numpy as np
import pandas as pd

from dashboard import settings
from dashboard.jobs.progress import silent
from dashboard.plan.results import PlanPage
from dashboard.state import datasets, files
from modeling.plan import loop
from modeling.plan.inputs import Budget, merge_results, read_plan_table
from modeling.plan.planner import plan
from modeling.plan.summary import LEVEL  # the nominal level of the plan's intervals

SLOWDOWN = "slowdown"
#: how many batch workloads the comparison after a round lists (the ones whose simulation moved most)
MOVED_MAX = 200


def plan_frame(ds, host: str, target: str, metric: str) -> tuple[pd.DataFrame, dict]:
    """(frame, roles) of ``ds`` for ``target``: roles are ``id_col``, ``group_col``, ``host_col`` (or None),
    ``features`` (counter columns) and ``target_col`` (the target's column in the frame)."""
    if ds.kind == "shipped":
        scen = ds.scenario(host, target, metric)
        feats = list(scen["feature_names"])
        tcol = f"{metric}@{target}"
        new = scen.get("unmeasured") or {}
        measured = pd.DataFrame(np.asarray(scen["X"], float), columns=feats)
        measured.insert(0, "workload", [str(i) for i in scen["workload_ids"]])
        measured.insert(1, "application", [str(g) for g in scen["groups"]])
        measured[tcol] = np.asarray(scen["y"], float)
        parts = [measured]
        if len(new.get("workload_ids") or []):
            todo = pd.DataFrame(np.asarray(new["X"], float), columns=feats)
            todo.insert(0, "workload", [str(i) for i in new["workload_ids"]])
            todo.insert(1, "application", [str(g) for g in new["groups"]] if new.get("groups") is not None
                        else "")
            todo[tcol] = np.nan
            parts.append(todo)
        frame = pd.concat(parts, ignore_index=True)
        return frame, {"id_col": "workload", "group_col": "application", "host_col": feats[scen["host_index"]],
                       "features": feats, "target_col": tcol}
    m = ds.mapping
    frame = datasets.dataset_table(ds.id)
    feats = [f for f in (m.get("features") or []) if f != target]
    return frame, {"id_col": m["id_col"], "group_col": m.get("group_col"), "host_col": m.get("host_col"),
                   "features": feats, "target_col": target}


def cost_choices(ds, host: str, target: str, metric: str) -> list[str]:
    """``slowdown`` (when the dataset has a host column) and the numeric columns that could hold hours."""
    frame, roles = plan_frame(ds, host, target, metric)
    skip = {roles["id_col"], roles["group_col"], roles["target_col"]}
    cols = [str(c) for c in frame.columns if c not in skip and pd.api.types.is_numeric_dtype(frame[c])]
    return ([SLOWDOWN] if roles["host_col"] else []) + (cols if ds.kind != "shipped" else [])


def budget_of(params: dict) -> Budget:
    from modeling.plan.inputs import parse_budget

    amount = params["budget"]
    return parse_budget(f"{amount:g}h" if params["budget_kind"] == "hours" else f"{amount:g}")


def table_of(params: dict):
    """The validated plan table of ``params`` (raises :class:`~modeling.errors.ModelingError` saying what is
    wrong: no candidates, a cost column with zeros or gaps, ...)."""
    ds = datasets.get(params["dataset"])
    frame, roles = plan_frame(ds, params["host"], params["target"], params["metric"])
    cost_col = None if params["cost"] == SLOWDOWN else params["cost"]
    feats = [f for f in roles["features"] if f != cost_col]
    return read_plan_table(frame, roles["target_col"], roles["id_col"], host_col=roles["host_col"],
                           group_col=roles["group_col"], cost_col=cost_col,
                           slowdown=params["slowdown"] if cost_col is None else None, features=feats)


def plan_result(params: dict, report=silent) -> PlanPage:
    """The plan of ``params`` (validated by :data:`dashboard.plan.kinds.PLAN`): the typed
    :class:`~modeling.plan.results.Plan`, the parameters, the dataset's name and unit and the round this dataset
    version is (what the batch merged into it had been predicted to be); the job runner stamps the provenance."""
    ds = datasets.get(params["dataset"])
    report(0.05, "reading the table")
    table = table_of(params)
    report(0.15, "fitting the model and replaying the strategies on the simulated workloads")
    prior = (ds.notes or {}).get("plan_round")
    first = loop.retry_first(prior.get("missing")) if params.get("retry") and isinstance(prior, dict) else None
    res = plan(table, budget_of(params), strategy=params["strategy"], situation=params["situation"],
               level=LEVEL, seed=params["seed"], first_ids=first, n_jobs=settings.JOB_WORKERS)
    report(0.95, "done")
    return PlanPage(res, dict(params), ds.name, ds.unit(params["metric"], params["target"]), table.target,
                    round_changes(prior, res, table) if isinstance(prior, dict) else None)


def dataset_of(params: dict) -> tuple[str, str]:
    """(id, name) of the dataset ``params`` name: the provenance's data."""
    ds = datasets.get(params["dataset"])
    return ds.id, ds.name


def round_changes(prior: dict, res, table) -> loop.RoundChange:
    """What the simulations merged into this dataset version changed: the plan before (its cross-validated
    error and median interval width, recorded at the merge) against the plan now, and per simulated workload
    the value the plan before predicted (with its interval) against the simulated one, largest moves first."""
    values = dict(zip(map(str, table.ids), table.y))
    predicted = [(wid, p.get("predicted"), p.get("lower"), p.get("upper"))
                 for wid, p in (prior.get("predicted") or {}).items() if isinstance(p, dict)]
    rows = loop.moves(predicted, values)
    return loop.RoundChange(prior.get("error"), res.expected.error_now, prior.get("width"), res.expected.width_now,
                            prior.get("n_measured"), res.n_measured, rows[:MOVED_MAX], int(prior.get("round") or 2),
                            prior.get("parent"), int(prior.get("merged") or len(rows)))


def merge_upload(params: dict, results: pd.DataFrame, shown, missing=None) -> dict:
    """Merge a finished batch's results (``results``: the id column and the target's values) into a new
    version of ``params``' dataset, recording the plan shown before (``shown``: a
    :class:`~modeling.plan.results.Plan` of the same dataset and target, or None) to compare the next plan
    with, and the batch's workloads that did not come back (``missing``: :class:`~modeling.plan.loop.
    RoundMissing` from the simulator's output; default: the batch's workloads the results left without a value,
    :func:`~modeling.plan.loop.missing_of_batch`), which the next plan puts first when asked (``retry``, as
    ``plan --retry-missing``). Returns the new dataset's metadata (``missing``: that list). Raises
    :class:`~modeling.plan.inputs.PlanInputError` for ids not in the dataset (nothing is saved)."""
    ds = datasets.get(params["dataset"])
    frame, roles = plan_frame(ds, params["host"], params["target"], params["metric"])
    id_col, tcol = roles["id_col"], roles["target_col"]
    results = results.rename(columns={c: tcol for c in results.columns
                                      if c != id_col and c in (params["target"], tcol, "value", "target")})
    if tcol not in results.columns and len(results.columns) == 2 and id_col in results.columns:
        results = results.rename(columns={next(c for c in results.columns if c != id_col): tcol})
    merged = merge_results(frame, results, id_col, tcol)
    before = pd.to_numeric(frame[tcol], errors="coerce")
    new_ids = merged.loc[before.isna().to_numpy() & merged[tcol].notna().to_numpy(), id_col].astype(str).tolist()
    prior = (ds.notes or {}).get("plan_round") or {}
    note = {"parent": ds.id, "round": int(prior.get("round") or 1) + 1, "merged": len(new_ids),
            "n_measured": int(before.notna().sum())}
    if shown is not None:
        if missing is None:
            missing = loop.missing_of_batch(merged, id_col, tcol, [b.id for b in shown.batch])
        note.update(error=shown.expected.error_now, width=shown.expected.width_now,
                    predicted={b.id: {"predicted": b.predicted, "lower": b.lower, "upper": b.upper}
                               for b in shown.batch if b.id in set(new_ids)},
                    missing=[{"id": m.id, "reason": m.reason} for m in missing or []])
    if ds.kind == "shipped":
        mapping = {"id_col": id_col, "group_col": roles["group_col"], "targets": [tcol],
                   "features": roles["features"], "host_col": roles["host_col"], "repeat_col": None,
                   "host_time_col": None, "sim_time_cols": {}}
        unit = ds.unit(params["metric"], params["target"])
        name = f"{params['host']} → {params['target']} ({params['metric']}), round {note['round']}"
        units = None
    else:
        mapping, unit, units = dict(ds.mapping), ds.target_unit, ds.target_units
        base = ds.name.rsplit(", round ", 1)[0]
        name = f"{base}, round {note['round']}"
    notes = {**{k: v for k, v in (ds.notes or {}).items() if k != "plan_round"}, "plan_round": note}
    meta = datasets.save_dataset(merged, name, mapping, notes=notes, unit=unit, target_units=units)
    return {**meta, "merged_ids": new_ids, "already": len(results) - len(new_ids), "missing": list(missing or [])}




def is_sim_upload(raw: bytes, filename: str | None) -> bool:
    """Whether an upload on /plan is the farm's own output (a zip, a GPGPU-Sim / Accel-Sim log, get_stats.py
    output, a gem5 stats.txt, a long table) rather than a table of ids and values: the command line's test."""
    return loop.looks_like_simulator_output(raw, str(filename or ""))


def merge_sim_upload(params: dict, raw: bytes, filename: str | None, shown) -> dict:
    """Merge the farm's output (``raw``: a zip of simulator output or one file of it) into a new version of
    ``params``' dataset as :func:`merge_upload` does, its records joined to the dataset's ids on the workload
    key (:func:`modeling.plan.loop.read_round`; the zip's members are checked there: paths that climb out,
    absolute paths, a declared size past 200 times the zip's). Returns the new dataset's metadata with the
    round's report (``round``: :class:`modeling.plan.loop.RoundResults`). Nothing is saved when no record
    joins a workload of the dataset."""
    from modeling.errors import DataError
    from modeling.plan.inputs import PlanInputError
    from modeling.plan.loop import read_round

    ds = datasets.get(params["dataset"])
    frame, roles = plan_frame(ds, params["host"], params["target"], params["metric"])
    id_col, tcol = roles["id_col"], roles["target_col"]
    batch = [b.id for b in shown.batch] if shown is not None else None
    with files.upload_as_file(raw, filename) as (path, prefix):
        try:
            _, res = read_round([path], frame, id_col, tcol, batch_ids=batch)
        except DataError as exc:  # its message names the file: as uploaded, not the server's folder
            raise type(exc)(str(exc).replace(prefix, "")) from None
    res.sources = {k: v.replace(prefix, "") for k, v in res.sources.items()}
    res.refused = [{**r, "source": r["source"].replace(prefix, "")} for r in res.refused]
    res.missing = [type(m)(m.id, m.reason.replace(prefix, "")) for m in res.missing]
    res.notes = [n.replace(prefix, "") for n in res.notes]
    if not res.values:
        raise PlanInputError(f"No simulated record joined a workload of the dataset that lacks a value "
                             f"({res.join['n_matched']} matched; {len(res.join['simulated_only'])} not in the "
                             "dataset, e.g. " + ", ".join(x.split(': ', 1)[-1] for x in res.join['simulated_only'][:3])
                             + "). Name the dataset's workloads by their key (app/args--kernel--N). Nothing was "
                             "merged.")
    results = pd.DataFrame({id_col: list(res.values), tcol: list(res.values.values())})
    meta = merge_upload(params, results, shown, res.missing if shown is not None else None)
    return {**meta, "round": res}
