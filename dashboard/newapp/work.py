"""The work behind /new-app: validated params -> typed results (:mod:`dashboard.newapp.results`; no Dash)."""

from __future__ import annotations

import numpy as np

from dashboard import settings
from dashboard.jobs.progress import silent
from dashboard.newapp import devices
from dashboard.newapp.results import HeldOutRun, UnbuiltGpuRun
from dashboard.state import datasets
from modeling.newapp.application import estimate_application
from modeling.newapp.data import ROLES, device_spec, frame_table, shipped_table
from modeling.newapp.evaluate import DEFAULT_MODELS, evaluate, group_folds, model_predictions
from modeling.newapp.hypothetical import shipped_hypothetical, table_hypothetical, typed_device
from modeling.newapp.splits import shipped_validation
from modeling.newapp.results import ApplicationEstimate

#: the model sets a user chooses between
MODEL_SETS = {
    "forest": ["RandomForest", "GradientBoosting"],
    "halwpe": DEFAULT_MODELS,
    "none": [],
}
MODEL_SET_LABELS = {"forest": "Random Forest + gradient boosting (fast)",
                    "halwpe": "HALWPE's 13 models + gradient boosting", "none": "none: estimates only"}
NO_DEVICE = "none"
#: a counter role left to its default column name (see modeling.newapp.data.ROLES)
AUTO = "auto"
ROLE_PARAMS = {f"role_{r}": r for r in ROLES}


def mapping_of(params: dict) -> dict:
    """The counter roles the user mapped: {role: column} (``auto`` left out)."""
    return {r: params[p] for p, r in ROLE_PARAMS.items() if params.get(p, AUTO) != AUTO}


def missing_roles(ds) -> str | None:
    """Why an uploaded dataset cannot hold an application out, or None."""
    if ds.kind == "shipped":
        return None
    m = ds.mapping
    need = [what for what, col in (("an application (group) column", m.get("group_col")),
                                   ("the host's own time column", m.get("host_col"))) if not col]
    return f"this dataset has no {' and no '.join(need)}: map them when uploading" if need else None


def app_table(params: dict):
    """The AppTable of ``params`` (dataset, host, target, metric, devices, host_device, target_device)."""
    ds = datasets.get(params["dataset"])
    if ds.kind == "shipped":
        return shipped_table(params["host"], params["target"], params["metric"])
    m = ds.mapping
    dev = {k: (None if params[k] == NO_DEVICE else params[k]) for k in ("host_device", "target_device")}
    t = frame_table(datasets.dataset_table(ds.id), target=params["target"], group=m["group_col"],
                    host_col=m["host_col"], id_col=m.get("id_col"), features=m.get("features") or None,
                    mapping=mapping_of(params),
                    host_device=dev["host_device"], target_device=dev["target_device"],
                    devices=None if params["devices"] == devices.SHIPPED else devices.devices_table(params["devices"]))
    t.scenario.update(dataset=ds.id, host=ds.host_label(params["host"]), target=params["target"])
    return t


def held_out_workloads(params: dict) -> list[dict]:
    """The held-out application's workloads: [{id, kernel, host}] (for the calibration choices, before any run)."""
    t = app_table(params)
    return [{"id": t.ids[i], "kernel": str(t.kernels[i]), "host": float(t.host[i])}
            for i in range(len(t.ids)) if t.groups[i] == params["application"]]


def typed_spec(params: dict) -> dict:
    """The typed device of ``params`` (gpu_name … gpu_bw), validated; raises ``SpecError``."""
    return typed_device(params["gpu_name"], params["gpu_arch"], params["gpu_sms"], params["gpu_cores"],
                        params["gpu_clock"], params["gpu_bw"])


def hypothetical_device(params: dict) -> dict:
    """The never-measured GPU of ``params``: the typed specs (mode typed) or a device-table row (mode table)."""
    if params["mode"] == "typed":
        return typed_spec(params)
    table = None if params["devices"] == devices.SHIPPED else devices.devices_table(params["devices"])
    return device_spec(params["gpu"], table)


def dataset_of(params: dict) -> tuple[str, str]:
    """(id, name) of the dataset ``params`` name: the provenance's data."""
    ds = datasets.get(params["dataset"])
    return ds.id, ds.name


def hypothetical_result(params: dict, report=silent) -> UnbuiltGpuRun:
    """The spec roofline of every workload on the never-measured GPU, labelled with the same rule's error on
    the measured pairs (shipped data: the host with every measured target; an upload: its target column on
    the target device chosen, if any)."""
    device = hypothetical_device(params)
    source = "typed" if params["mode"] == "typed" else "device table"
    ds = datasets.get(params["dataset"])
    report(0.2, "the spec roofline on every measured pair")
    splits = None
    if ds.kind == "shipped":
        res = shipped_hypothetical(params["host"], device, params["metric"], source)
        report(0.6, "every measured GPU held out under the four splits")
        splits = shipped_validation(params["host"], params["metric"])
    else:
        res = table_hypothetical(app_table(params), device, source)
        res.scenario.update(dataset=ds.id)
    return UnbuiltGpuRun(dict(params), ds.name, res, splits=splits)


def newapp_result(params: dict, report=silent) -> HeldOutRun | UnbuiltGpuRun:
    """The held-out application's estimates, ranges and warnings, and every application held out in turn;
    for a GPU never built or measured (mode typed / table), :func:`hypothetical_result`."""
    if params.get("mode", "measured") != "measured":
        return hypothetical_result(params, report)
    table = app_table(params)
    models = MODEL_SETS[params["models"]]
    report(0.05, "holding out every application in turn")
    # the models are fitted once per held-out application; the chosen application's estimates and the
    # every-application table both read those predictions
    _, folds = group_folds(table, "logo", np.isfinite(table.target))
    mp = model_predictions(table, folds, models, params["seed"], settings.JOB_WORKERS,
                           progress=lambda d, t, label: report(0.05 + 0.9 * d / t, label)) if models else {}
    one = estimate_application(table, params["application"], [], models, params["seed"], model_preds=mp)
    allapps = evaluate(table, "logo", 1, models, params["seed"], model_preds=mp)
    ds = datasets.get(params["dataset"])
    return HeldOutRun(dict(params), ds.name, one, allapps.without_rows(), table.host_spec, table.target_spec)


def calibrated(params: dict, picks: list[dict]) -> ApplicationEstimate:
    """The held-out application's estimates with the user's calibrating input(s); no models (fast)."""
    return estimate_application(app_table(params), params["application"], picks, [], params["seed"])
