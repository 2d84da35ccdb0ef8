"""The work behind /operators: validated params -> :class:`modeling.operators.model.OperatorsOnGpu` (no Dash).

The same function as ``python -m modeling operators`` (:func:`modeling.operators.model.operators_on_gpu`), so the
page and the command line agree to the digit: the page's quick fit is ``--sample 200``.
"""

from __future__ import annotations

from functools import lru_cache

from dashboard.jobs.progress import silent
from modeling.operators.model import DEFAULT_TRAIN, OperatorsOnGpu, check_layer, operators_on_gpu
from modeling.operators.specs import DeviceSpec, LIMITS, load_devices, validate_spec

#: the page's spec fields -> the spec sheet's (modeling/operators/specs.py)
SPEC_PARAMS = {"sms": "sms", "clock": "clock_mhz", "bw": "memory_bandwidth_gbs", "l2": "l2_mb",
               "fp32": "fp32_gflops", "matrix": "fp32_matrix_gflops"}
QUICK = 40  # operators per training GPU and kind of the quick fit


@lru_cache(maxsize=1)
def _devices() -> dict[str, DeviceSpec]:
    return load_devices()


def gpu_names() -> list[str]:
    return list(_devices())


def listed_spec(name: str) -> DeviceSpec:
    return _devices()[name]


def edits_label(base: DeviceSpec, values: dict) -> str:
    """The GPU's name: the listed one's, with each changed field as a factor ("H100, memory_bandwidth_gbs
    x1.50")."""
    old = base.values()
    changed = [f"{k} x{values[k] / old[k]:.3g}" for k in LIMITS if abs(values[k] - old[k]) > 1e-9 * max(old[k], 1)]
    return f"{base.name}, edited: {', '.join(changed)}" if changed else base.name


def spec_of(params: dict) -> DeviceSpec:
    """The GPU of ``params``: the listed GPU with the page's spec fields; validated (``SpecError``)."""
    values = {k: params[p] for p, k in SPEC_PARAMS.items()}
    base = listed_spec(params["gpu"])
    spec = validate_spec(params["gpu"], **values)  # names the bad field before any label is made
    return validate_spec(edits_label(base, spec.values()), **spec.values())


def operators_result(params: dict, report=silent) -> OperatorsOnGpu:
    """Every operator and model of the table, and the page's transformer layer, on the GPU of ``params``."""
    layer = check_layer(params["batch"], params["seq"], params["hidden"], params["heads"])
    return operators_on_gpu(spec_of(params), DEFAULT_TRAIN, QUICK if params["fit"] == "quick" else None, 0.9,
                            layer, devices=_devices(), progress=report)
