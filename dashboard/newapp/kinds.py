"""The /new-app job: the parameters that make its key and the work that computes it."""

from __future__ import annotations

from dashboard import jobs
from dashboard.crossgen.params import DatasetParam, TargetParam, target_choices
from dashboard.newapp import work
from dashboard.state import datasets, devices
from dashboard.ui.url_state import InvalidParameter, Param, StoredParam

DEFAULT_APP = "heartwall"


def _ds(v):
    return datasets.get(v["dataset"])


def _host_default(v):
    hosts = _ds(v).hosts
    return "GTX-680" if "GTX-680" in hosts else hosts[0]


def _target_default(v):
    ts = target_choices(v)
    return "GTX-980" if "GTX-980" in ts else ts[0]


def _apps(v):
    return _ds(v).applications()


def _app_default(v):
    apps = _apps(v)
    if not apps:
        raise InvalidParameter("dataset", work.missing_roles(_ds(v)) or "it has no applications")
    return DEFAULT_APP if DEFAULT_APP in apps else apps[0]


def _devices(v):
    return [work.NO_DEVICE, *devices.device_names(v["devices"])]


def _device_default(which):
    """The shipped data's own GPU; an upload names none until the user picks one (roofline needs it)."""
    return lambda v: v[which] if _ds(v).kind == "shipped" else work.NO_DEVICE


def _check(params):
    why = work.missing_roles(_ds(params))
    if why:
        raise InvalidParameter("dataset", why)
    if _ds(params).kind == "shipped":
        if params["devices"] != devices.SHIPPED:
            raise InvalidParameter("devices", "the shipped data uses the shipped device table")
        for which in ("host", "target"):
            if params[f"{which}_device"] != params[which]:
                raise InvalidParameter(f"{which}_device", "the shipped data's devices are its host and target GPUs")


NEWAPP = jobs.JobKind("newapp", (
    DatasetParam("dataset", "dataset", datasets.SHIPPED_ID),
    Param("host", "choice", _host_default, lambda v: _ds(v).hosts),
    TargetParam("target", "choice", _target_default, target_choices),
    Param("metric", "choice", lambda v: _ds(v).metrics[0], lambda v: _ds(v).metrics),
    Param("application", "choice", _app_default, _apps),
    Param("models", "choice", "forest", list(work.MODEL_SETS)),
    StoredParam("devices", "choice", devices.SHIPPED, lookup=devices.devices_meta, what="device table id"),
    Param("host_device", "choice", _device_default("host"), _devices),
    Param("target_device", "choice", _device_default("target"), _devices),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
), work.newapp_result, lambda p: datasets.get(p["dataset"]).fingerprint, _check)
