"""The work behind /predict: validated params -> the typed prediction (:mod:`dashboard.predict.results`; no Dash)."""

from __future__ import annotations

from dashboard import jobs
from dashboard import settings
from dashboard.jobs.progress import silent
from dashboard.predict.results import PredictRun, typed
from dashboard.state import datasets, predict_inputs
from dashboard.state import predictions as saved
from modeling.crossgen.predict import predict_scenario


def scenario_of(params: dict) -> dict:
    return datasets.get(params["dataset"]).scenario(params["host"], params["target"], params["metric"])


def workloads_of(params: dict, scen: dict) -> dict:
    """The workloads to predict: the dataset's own without a target, or an uploaded table's rows (its
    counters matched to the scenario's features by name; a target column in it is never read)."""
    if params["source"] == predict_inputs.UNMEASURED:
        return scen.get("unmeasured") or {"X": [], "workload_ids": [], "groups": None}
    return predict_inputs.workloads_for(params["source"], scen["feature_names"])


def targets_with_unmeasured(params: dict) -> list[str]:
    """The targets of the dataset that have workloads without a measurement for this host and metric."""
    ds = datasets.get(params["dataset"])
    out = []
    for t in ds.targets:
        if t == params["host"]:
            continue
        try:
            scen = ds.scenario(params["host"], t, params["metric"])
        except (ValueError, LookupError):
            continue
        if len((scen.get("unmeasured") or {}).get("workload_ids", [])):
            out.append(t)
    return out


def source_name(params: dict) -> str:
    if params["source"] == predict_inputs.UNMEASURED:
        return "the dataset's workloads without a measured target"
    return f"uploaded table {predict_inputs.inputs_meta(params['source'])['name']!r}"


def dataset_of(params: dict) -> tuple[str, str]:
    """(id, name) of the dataset ``params`` name: the provenance's data."""
    ds = datasets.get(params["dataset"])
    return ds.id, ds.name


def predict_result(params: dict, report=silent) -> PredictRun:
    """The prediction of ``params`` (validated by :data:`dashboard.predict.kinds.PREDICT`) with the parameters,
    the unit of its values and the fingerprints of the dataset and of the workloads' table (the provenance: kind,
    parameters, data, code version and date, is stamped by the job runner)."""
    ds = datasets.get(params["dataset"])
    scen = ds.scenario(params["host"], params["target"], params["metric"])
    new = workloads_of(params, scen)
    pred = predict_scenario(scen, new, model=params["model"], transform=params["transform"], level=params["level"],
                            situation=params["situation"], seed=params["seed"], n_jobs=settings.JOB_WORKERS,
                            progress=report)
    source = params["source"]
    return PredictRun(dict(params), pred, ds.name, ds.host_label(params["host"]),
                      ds.unit(params["metric"], params["target"]), source_name(params), ds.fingerprint,
                      ds.fingerprint if source == predict_inputs.UNMEASURED else source[3:])


def restore_saved(key: str) -> None:
    """A saved prediction's link opens with its stored numbers even after the result cache let them go
    (30 days): the result saved under this key (made by the server from the same validated inputs) goes back."""
    if not jobs.has_result(key):
        pr_id = saved.find_by_key(key)
        if pr_id:
            run = typed(saved.load_result(pr_id))  # one saved as a plain dict reads as the type too
            if run is not None:
                jobs.put_result(key, run)
