"""The /new-app job: the parameters that make its key and the work that computes it."""

from __future__ import annotations

from dashboard import jobs
from dashboard.crossgen.params import dataset_of, pair_params
from dashboard.newapp import work
from dashboard.newapp import devices
from dashboard.state import datasets
from dashboard.ui.url_state import InvalidParameter, Param, StoredParam
from modeling.newapp.hypothetical import ARCH_MAX, NAME_MAX, SPEC_BOUNDS, SpecError, plain_text

DEFAULT_APP = "heartwall"
#: what the page predicts: a measured target with an application held out, or a GPU never built or measured
MODES = {"measured": "an application never run on a measured target",
         "typed": "a GPU never built or measured: type its specs",
         "table": "a GPU never built or measured: a row of the device table"}
#: the typed device's fields: page parameter -> the spec it is (see modeling.newapp.hypothetical.typed_device)
TYPED = {"gpu_name": "name", "gpu_arch": "architecture", "gpu_sms": "sms", "gpu_cores": "cuda_cores",
         "gpu_clock": "boost_clock_mhz", "gpu_bw": "memory_bandwidth_gbs"}
#: a GPU that was never measured here, as the form's first suggestion (NVIDIA V100's public specs)
TYPED_DEFAULTS = {"gpu_name": "my-GPU", "gpu_arch": "Volta", "gpu_sms": 80, "gpu_cores": 5120,
                  "gpu_clock": 1530.0, "gpu_bw": 900.0}
AUTO = work.AUTO
ROLE_PARAMS = work.ROLE_PARAMS
mapping_of = work.mapping_of


class SpecParam(Param):
    """A typed spec (int or float within bounds); refuses inf and NaN itself, with the reason (the generic
    ``Param`` message formats its bounds with ``int()``, which cannot take them)."""

    def parse(self, raw, values):
        if isinstance(raw, bool):
            raise InvalidParameter(self.name, "expected a number")
        if isinstance(raw, (str, float)) and not isinstance(raw, bool):
            try:
                f = float(raw)
            except (TypeError, ValueError):
                f = 0.0  # not a number at all: the generic parse names it
            if f != f or f in (float("inf"), float("-inf")):
                raise InvalidParameter(self.name, "must be a finite number")
        return super().parse(raw, values)


class TextParam(Param):
    """Plain text of at most ``hi`` characters, no control characters; only ever shown as text."""

    def parse(self, raw, values):
        if raw is None or raw == "":
            return self.default
        try:
            return plain_text(raw, TYPED.get(self.name, self.name), int(self.hi))
        except SpecError as exc:
            raise InvalidParameter(self.name, str(exc)) from None


_ds = dataset_of


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


def _gpus(v):
    """A row of the device table as the never-measured GPU: the shipped table's rows on the shipped data, the
    chosen table's on an upload."""
    return devices.device_names(v["devices"])


def _gpu_default(v):
    names = _gpus(v)
    return "Tesla-P100" if "Tesla-P100" in names else names[-1]


def _columns(v, numeric: bool) -> list:
    ds = _ds(v)
    if ds.kind == "shipped":
        return []
    df = datasets.dataset_table(ds.id)
    return [str(c) for c in df.columns if not numeric or _is_numeric(df[c])]


def _is_numeric(col) -> bool:
    import pandas as pd

    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def role_choices(v, role: str) -> list:
    """``auto`` (the shipped counter name when the table has it) or a column of the uploaded table: numeric
    columns for the counters, any column for the kernel name."""
    return [AUTO, *_columns(v, role != "kernel")]


def _check(params):
    why = work.missing_roles(_ds(params))
    if why:
        raise InvalidParameter("dataset", why)
    if params["mode"] == "typed":
        try:
            work.typed_spec(params)
        except SpecError as exc:
            key = next((p for p, k in TYPED.items() if str(exc).startswith(k)), "gpu_cores")
            raise InvalidParameter(key, str(exc)) from None
    if _ds(params).kind == "shipped":
        if mapping_of(params):
            raise InvalidParameter("role_" + next(iter(mapping_of(params))), "the shipped data's counters have "
                                   "their own names")
        if params["devices"] != devices.SHIPPED:
            raise InvalidParameter("devices", "the shipped data uses the shipped device table")
        for which in ("host", "target"):
            if params[f"{which}_device"] != params[which]:
                raise InvalidParameter(f"{which}_device", "the shipped data's devices are its host and target GPUs")


NEWAPP = jobs.JobKind("newapp", (
    *pair_params("GTX-980"),
    Param("application", "choice", _app_default, _apps),
    Param("models", "choice", "forest", list(work.MODEL_SETS)),
    StoredParam("devices", "choice", devices.SHIPPED, lookup=devices.devices_meta, what="device table id"),
    Param("host_device", "choice", _device_default("host"), _devices),
    Param("target_device", "choice", _device_default("target"), _devices),
    Param("seed", "int", 0, None, 0, 2**31 - 1),
    Param("mode", "choice", "measured", list(MODES)),
    Param("gpu", "choice", _gpu_default, _gpus),
    TextParam("gpu_name", "text", TYPED_DEFAULTS["gpu_name"], None, 1, NAME_MAX),
    TextParam("gpu_arch", "text", TYPED_DEFAULTS["gpu_arch"], None, 1, ARCH_MAX),
    SpecParam("gpu_sms", "int", TYPED_DEFAULTS["gpu_sms"], None, *SPEC_BOUNDS["sms"][:2]),
    SpecParam("gpu_cores", "int", TYPED_DEFAULTS["gpu_cores"], None, *SPEC_BOUNDS["cuda_cores"][:2]),
    SpecParam("gpu_clock", "float", TYPED_DEFAULTS["gpu_clock"], None, *SPEC_BOUNDS["boost_clock_mhz"][:2]),
    SpecParam("gpu_bw", "float", TYPED_DEFAULTS["gpu_bw"], None, *SPEC_BOUNDS["memory_bandwidth_gbs"][:2]),
    *[Param(p, "choice", AUTO, (lambda r: lambda v: role_choices(v, r))(r)) for p, r in ROLE_PARAMS.items()],
), work.newapp_result, lambda p: datasets.get(p["dataset"]).fingerprint, _check, work.dataset_of)
