"""A GPU as its spec sheet: validation, the shipped device table, and edits ("bandwidth=1.5x").

Only the figures a spec sheet gives are used: streaming multiprocessors (compute units on AMD), boost
clock, memory bandwidth, L2 size and FP32 throughput (the matrix rate where the chip has a separate one,
as AMD's CDNA has). A value that is missing, not a number, zero or negative, or far outside what any GPU has
(a bandwidth given in bytes per second rather than GB/s, 1e308) is refused with a message naming it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from pathlib import Path

import pandas as pd

from modeling import DATA_DIR
from modeling.errors import DataError

DEVICES_FILE = DATA_DIR / "neusight_devices.csv"

#: spec field -> (unit, smallest plausible, largest plausible). The bounds are an order of magnitude or more
#: beyond every GPU shipped so far, so that a value in the wrong unit (bytes/s for GB/s, kB for MB) is caught.
LIMITS = {
    "sms": ("streaming multiprocessors", 1, 2048),
    "clock_mhz": ("MHz", 100.0, 10_000.0),
    "memory_bandwidth_gbs": ("GB/s", 10.0, 100_000.0),
    "l2_mb": ("MB", 0.05, 4096.0),
    "fp32_gflops": ("GFLOP/s", 50.0, 10_000_000.0),
    "fp32_matrix_gflops": ("GFLOP/s", 50.0, 10_000_000.0),
}
#: the short names accepted by :func:`edit_spec`
ALIASES = {"bandwidth": "memory_bandwidth_gbs", "bw": "memory_bandwidth_gbs", "sm": "sms", "clock": "clock_mhz",
           "l2": "l2_mb", "fp32": "fp32_gflops", "flops": "fp32_gflops", "matrix": "fp32_matrix_gflops"}


class SpecError(DataError):
    """A spec sheet value is missing or cannot be a GPU's."""


@dataclass(frozen=True)
class DeviceSpec:
    """One GPU's spec sheet (a listed GPU, an edited one, or one that does not exist)."""

    name: str
    sms: int
    clock_mhz: float
    memory_bandwidth_gbs: float
    l2_mb: float
    fp32_gflops: float
    fp32_matrix_gflops: float

    def values(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self) if f.name != "name"}


def validate_spec(name: str, **values) -> DeviceSpec:
    """A :class:`DeviceSpec` from raw values, or :class:`SpecError` naming every bad value.

    ``fp32_matrix_gflops`` defaults to ``fp32_gflops`` (NVIDIA GPUs run FP32 matrices on the same units).
    """
    if values.get("fp32_matrix_gflops") is None and values.get("fp32_gflops") is not None:
        values["fp32_matrix_gflops"] = values["fp32_gflops"]
    problems, clean = [], {}
    for key, (unit, lo, hi) in LIMITS.items():
        raw = values.get(key)
        try:
            v = float(raw)
        except (TypeError, ValueError):
            problems.append(f"{key} is missing" if raw is None else f"{key} = {raw!r} is not a number")
            continue
        if not math.isfinite(v) or v <= 0:
            problems.append(f"{key} = {raw!r} must be a positive number ({unit})")
        elif v < lo or v > hi:
            problems.append(f"{key} = {v:g} {unit} is outside what a GPU can have ({lo:g} to {hi:g} {unit}); "
                            "check the unit")
        else:
            clean[key] = v
    unknown = sorted(set(values) - set(LIMITS))
    if unknown:
        problems.append(f"unknown spec field(s) {', '.join(unknown)}; known: {', '.join(LIMITS)}")
    if problems:
        raise SpecError(f"GPU {name!r}: " + "; ".join(problems) + ".")
    if clean["sms"] != int(clean["sms"]):
        raise SpecError(f"GPU {name!r}: sms = {clean['sms']:g} must be a whole number.")
    clean["sms"] = int(clean["sms"])
    return DeviceSpec(name=str(name), **clean)


def load_devices(path: str | Path | None = None) -> dict[str, DeviceSpec]:
    """The shipped device table (``data/neusight_devices.csv``) as specs, by GPU name."""
    df = pd.read_csv(path or DEVICES_FILE)
    return {r["gpu"]: validate_spec(r["gpu"], **{k: r[k] for k in LIMITS}) for _, r in df.iterrows()}


def device_table(path: str | Path | None = None) -> pd.DataFrame:
    """The shipped device table with its architecture, release date and sources."""
    return pd.read_csv(path or DEVICES_FILE)


def edit_spec(spec: DeviceSpec, edits: list[str] | tuple[str, ...]) -> DeviceSpec:
    """``spec`` with edits such as ``bandwidth=1.5x`` (a factor) or ``sms=144`` (a value); validated."""
    values = spec.values()
    for e in edits:
        key, sep, val = (e or "").partition("=")
        key = ALIASES.get(key.strip().lower(), key.strip().lower())
        if not sep or key not in LIMITS:
            raise SpecError(f"Cannot read the edit {e!r}: write FIELD=VALUE or FIELD=FACTORx, FIELD one of "
                            f"{', '.join(sorted(set(LIMITS) | set(ALIASES)))}.")
        val = val.strip().lower()
        try:
            values[key] = values[key] * float(val[:-1]) if val.endswith("x") else float(val)
        except ValueError:
            raise SpecError(f"Cannot read the value of the edit {e!r}: a number, or a factor such as 1.5x.") from None
        if key == "fp32_gflops" and spec.fp32_matrix_gflops == spec.fp32_gflops \
                and not any(ALIASES.get(x.partition("=")[0].strip().lower()) == "fp32_matrix_gflops" for x in edits):
            values["fp32_matrix_gflops"] = values[key]
    label = f"{spec.name} ({', '.join(edits)})" if edits else spec.name
    return validate_spec(label, **values)


def same_as(spec: DeviceSpec, others: dict[str, DeviceSpec], rel: float = 1e-6) -> str | None:
    """The name of a GPU in ``others`` with the same spec sheet as ``spec``, or None."""
    mine = spec.values()
    for name, other in others.items():
        theirs = other.values()
        if all(abs(mine[k] - theirs[k]) <= rel * max(abs(theirs[k]), 1.0) for k in mine):
            return name
    return None


__all__ = ["ALIASES", "DeviceSpec", "LIMITS", "SpecError", "device_table", "edit_spec", "load_devices",
           "same_as", "validate_spec"]
