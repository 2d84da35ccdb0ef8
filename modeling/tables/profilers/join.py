"""Host and target joined into one workload table.

The host's workloads (:mod:`modeling.tables.profilers.workloads`) give the features: every host metric,
under its Nsight Compute name when the host was profiled with nvprof. The target is either

* another profile (another GPU): its time and cycle metrics (:data:`TARGET_METRICS`, the first ones it
  has) become the target columns ``<metric>@target``; the host's own value of the first one is the host
  metric (the baseline's); or
* a simulator's results table (CSV or Parquet): a workload key column (``workload``, ``kernel``, ``name``
  or its first text column) and numeric columns (cycles or time), which become ``<column>@target``.

Workloads are matched on their key (for profiles: the kernel's base name, ``kernel@tag`` or the tag); the
rows only one side has are listed, never dropped silently: host-only rows stay as workloads to predict
(empty target), target-only rows are left out and named. Metrics only one profile has are listed too, and
the target profile's notes follow the host's (``target <tag>: ...``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from modeling.errors import DataError
from modeling.tables.profilers.names import align
from modeling.tables.profilers.workloads import Workloads, kernel_base

#: time and cycle metrics a target profile is predicted by, in order of preference
TARGET_METRICS = ("gpu__time_duration.sum", "duration", "sm__cycles_elapsed.sum", "sm__cycles_elapsed.max",
                  "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg", "GRBM_GUI_ACTIVE")
SUFFIX = "@target"


@dataclass
class Joined:
    frame: pd.DataFrame
    targets: list
    host_col: str | None
    features: list
    host_only_rows: list = field(default_factory=list)
    target_only_rows: list = field(default_factory=list)
    host_only_metrics: list = field(default_factory=list)
    target_only_metrics: list = field(default_factory=list)
    units: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"workloads": int(len(self.frame)), "targets": self.targets, "host_col": self.host_col,
                "features": self.features, "host_only_rows": self.host_only_rows,
                "target_only_rows": self.target_only_rows, "host_only_metrics": self.host_only_metrics,
                "target_only_metrics": self.target_only_metrics, "units": self.units, "notes": self.notes}


def _features(host: Workloads) -> list[str]:
    vals = host.frame[host.metrics].to_numpy(dtype=float)
    return [m for j, m in enumerate(host.metrics) if np.isfinite(vals[:, j]).any()]


def host_only(host: Workloads) -> Joined:
    """The host's workloads with no target yet (all to predict, or a target added later)."""
    feats = _features(host)
    return Joined(host.frame[["workload", "application", *feats, "launches"]].copy(), [], None, feats + ["launches"],
                  units=dict(host.units), notes=list(host.notes))


def _target_columns(target: Workloads) -> list[str]:
    return [m for m in TARGET_METRICS if m in target.metrics and target.frame[m].notna().any()]


def with_profile(host: Workloads, target: Workloads) -> Joined:
    """Host features + the target profile's time / cycle metrics as targets."""
    tcols = _target_columns(target)
    if not tcols:
        raise DataError("The target profile has no time or cycle metric to predict (one of "
                        f"{', '.join(TARGET_METRICS)}); profile it with gpu__time_duration.sum or "
                        "elapsed_cycles_sm, or give a simulator table instead.")
    tframe = target.frame[["workload", *tcols]].rename(columns={c: c + SUFFIX for c in tcols})
    names = align(host.metrics, target.metrics)
    joined = _merge(host, tframe, [c + SUFFIX for c in tcols])
    host_col = next((c for c in tcols if c in joined.features), None)
    joined.host_col = host_col
    joined.host_only_metrics, joined.target_only_metrics = names["host_only"], names["target_only"]
    joined.units.update({c + SUFFIX: target.units[c] for c in tcols})
    # what the target's reader converted (units, counters divided by the XCD count) is said as the host's is
    joined.notes += [f"target {n}" for n in target.notes]
    return joined


def simulator_key(frame: pd.DataFrame) -> str:
    """The workload key column of a simulator table: ``workload``, ``kernel``, ``name`` or the first text one."""
    lower = {str(c).lower(): str(c) for c in frame.columns}
    for name in ("workload", "kernel", "kernel_name", "name", "id"):
        if name in lower:
            return lower[name]
    text = [str(c) for c in frame.columns if not pd.api.types.is_numeric_dtype(frame[c])]
    if not text:
        raise DataError("The simulator table has no text column to match workloads on (workload or kernel).")
    return text[0]


def with_simulator(host: Workloads, sim: pd.DataFrame, key: str | None = None) -> Joined:
    """Host features + a simulator's numeric results (cycles or time) as targets."""
    key = key or simulator_key(sim)
    if key not in sim.columns:
        raise DataError(f"The simulator table has no column {key!r}.")
    nums = [str(c) for c in sim.columns if c != key and pd.api.types.is_numeric_dtype(sim[c])]
    if not nums:
        raise DataError("The simulator table has no numeric column (cycles or time) besides its key.")
    s = sim[[key, *nums]].copy()
    s[key] = s[key].astype(str)
    if s[key].duplicated().any():
        dup = s.loc[s[key].duplicated(), key].iloc[0]
        raise DataError(f"Workload {dup!r} appears twice in the simulator table.")
    # a simulator may name kernels by signature: match on the base name when the full one does not
    if not s[key].isin(host.frame["workload"]).any():
        full = s[key]
        s[key] = s[key].map(kernel_base)
        twice = s[key].duplicated(keep=False)
        if twice.any():
            names = full[twice].tolist()
            raise DataError(f"Simulator rows {names[0][:60]!r} and {names[1][:60]!r} both name kernel "
                            f"{s.loc[twice, key].iloc[0]!r}: the host's workloads are named by kernel, so they "
                            "cannot be told apart. Give each row the host's workload name.")
    s = s.rename(columns={key: "workload", **{c: c + SUFFIX for c in nums}})
    return _merge(host, s, [c + SUFFIX for c in nums])


def _merge(host: Workloads, tframe: pd.DataFrame, tcols: list) -> Joined:
    base = host_only(host)
    hk, tk = set(base.frame["workload"]), set(tframe["workload"])
    if not hk & tk:
        raise DataError("No workload of the host matches one of the target "
                        f"(host: {', '.join(sorted(hk)[:4])}; target: {', '.join(sorted(tk)[:4])}). Choose the "
                        "same workload key for both; with an input tag, read it from a column both files share "
                        "(e.g. the process name) when their file names differ; or name the simulator's rows as the "
                        "host's kernels.")
    frame = base.frame.merge(tframe, on="workload", how="left")
    base.frame = frame[["workload", "application", *tcols, *base.features]]
    base.targets = tcols
    base.host_only_rows = sorted(hk - tk)
    base.target_only_rows = sorted(tk - hk)
    if base.host_only_rows:
        base.notes.append(f"{len(base.host_only_rows)} host workload(s) without a target value: kept to predict")
    if base.target_only_rows:
        base.notes.append(f"{len(base.target_only_rows)} target workload(s) the host never ran: left out")
    return base
