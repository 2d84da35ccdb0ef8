"""Accelerators the LogCA pages can draw: presets, measured fits, uploads and typed parameters.

Names in links: a preset name (``ultrasparc-t2:aes``, ``openssl-x86:aes-128-ctr``),
``upload:<kernel>`` for a kernel of the timing table given by ``timing=tt-…``,
``upload:<tt-…>:<kernel>`` for a kernel of any other timing table of the project (so an accelerator fitted
on /logca is offered on /accelerometer too), or ``custom`` for the typed parameters.  Fits are cached per
process.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dashboard.state import timings
from dashboard.ui.url_state import InvalidParameter, Param
from modeling.errors import ModelingError
from modeling.accelerators.logca import LogCAParams
from modeling.accelerators.presets import MEASURED, OBSERVED, measured_fit, observed_for, preset, preset_names

CUSTOM = "custom"
DEFAULT_CUSTOM = {"L": 1500.0, "o": 29000.0, "C": 90.0, "A": 19.0, "beta": 1.01, "latency": "independent"}


@dataclass
class Accel:
    name: str
    label: str
    params: LogCAParams
    observed: tuple[np.ndarray, np.ndarray] | None = None  # granularities, speedups (n = 1)
    fit: dict | None = None


def _label(name: str) -> str:
    if name in MEASURED:
        return f"{name} (this machine, fitted)"
    return name


def upload_fit(tt_id: str, kernel: str):
    """The fit of ``kernel`` in the current project's timing table ``tt_id`` (kept per project: the same id
    in another project is another table, or none)."""
    from dashboard.access.projects import current_id

    return _upload_fit(current_id(), tt_id, kernel)


@lru_cache(maxsize=16)
def _upload_fit(project_id, tt_id: str, kernel: str):  # project_id: part of the cache key only
    from modeling.accelerators.calibrate import fit_table

    return fit_table(timings.timing_table(tt_id), kernel)


def save_timing_upload(frame, name) -> dict:
    """Validate and fit every kernel of an uploaded timing table, then save it; a table
    that fails is reported and never kept."""
    from modeling.accelerators.calibrate import fit_table
    from modeling.tables.timing import validate_timing

    frame = validate_timing(frame)
    for kernel in sorted(map(str, frame["kernel"].unique())):
        fit_table(frame, kernel)
    return timings.save_timing(frame, name)


def upload_kernels(tt_id: str | None) -> list[str]:
    return timings.timing_meta(tt_id)["kernels"] if tt_id else []


def options(tt_id: str | None = None) -> list[dict]:
    """Presets, the kernels of the link's timing table (``tt_id``), then those of every other timing table of
    the project, then the typed parameters."""
    opts = [{"label": _label(n), "value": n} for n in preset_names()]
    opts += [{"label": f"uploaded: {k} (fitted)", "value": f"upload:{k}"} for k in upload_kernels(tt_id)]
    opts += [{"label": f"uploaded {meta['name']}: {k} (fitted)", "value": f"upload:{meta['id']}:{k}"}
             for meta in timings.list_timings() if meta["id"] != tt_id for k in meta["kernels"]]
    return opts + [{"label": "custom (typed parameters)", "value": CUSTOM}]


def upload_ref(name: str, v: dict) -> tuple[str, str]:
    """``(timing table id, kernel)`` of an ``upload:`` accelerator name: its own table, or the link's."""
    rest = name.split(":", 1)[1]
    head, _, kernel = rest.partition(":")
    if kernel and timings.TIMING_ID.match(head):
        return head, kernel
    return v["timing"], rest


def names(values: dict) -> list[str]:
    return [o["value"] for o in options(values.get("timing"))]


class TimingParam(Param):
    """An uploaded timing table id, or empty; a deleted one is 'not found'."""

    def parse(self, raw, values):
        if raw in (None, ""):
            return None
        if not isinstance(raw, str) or not timings.TIMING_ID.match(raw):
            raise InvalidParameter(self.name, f"{str(raw)[:40]!r} is not a timing table id")
        timings.timing_meta(raw)  # NotFound when deleted
        return raw


def custom_params() -> list[Param]:
    return [Param("L", "float", DEFAULT_CUSTOM["L"], None, 0, 1e12),
            Param("o", "float", DEFAULT_CUSTOM["o"], None, 0, 1e15),
            Param("C", "float", DEFAULT_CUSTOM["C"], None, 1e-9, 1e12),
            Param("A", "float", DEFAULT_CUSTOM["A"], None, 1e-3, 1e6),
            Param("beta", "float", DEFAULT_CUSTOM["beta"], None, 0.01, 4),
            Param("latency", "choice", "independent", ["independent", "dependent"])]


def resolve(name: str, v: dict) -> Accel:
    """The accelerator called ``name``, with ``v`` holding the typed parameters and timing id."""
    if name == CUSTOM:
        try:
            p = LogCAParams(L=v["L"], o=v["o"], C=v["C"], A=v["A"], beta=v["beta"], latency=v["latency"])
        except ModelingError as exc:
            raise InvalidParameter("custom", str(exc)) from None
        return Accel(CUSTOM, "custom", p)
    if name.startswith("upload:"):
        tt_id, kernel = upload_ref(name, v)
        res = upload_fit(tt_id, kernel)
        return Accel(name, f"uploaded {kernel}", res.params, (res.measured.g, res.measured.speedup), res.to_dict())
    if name in MEASURED:
        res = measured_fit(MEASURED[name])
        return Accel(name, name, res.params, (res.measured.g, res.measured.speedup), res.to_dict())
    observed = None
    for key in observed_for(name):
        t = OBSERVED[key]
        observed = (np.array(t["granularity"], float), np.array(t["speedup"][1], float))
    return Accel(name, name, preset(name), observed)
