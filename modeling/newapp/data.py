"""The table an unseen-application estimate works on, from the shipped data or any workload table.

One row per workload: its application (the unit held out), its kernel, the
host's own time (or cycles), the measured target value when known, the host's
counters (for the HALWPE models and the "unlike the training kernels" check),
and the counters the spec roofline needs, found by *role*:

==============  ==========================================  ===============================
role            meaning                                     shipped counter (default name)
==============  ==========================================  ===============================
dram_read       DRAM read throughput on the host, GB/s      device_memory_read_throughput
dram_write      DRAM write throughput on the host, GB/s     device_memory_write_throughput
issue_util      issue-slot utilization on the host, %       issue_slot_utilization
grid_x, grid_y  thread blocks per launch (x, y)             grid_x, grid_y
launches        kernel launches in the workload             launches
instructions    warp instructions executed (for rates)      inst_executed
kernel          kernel name (a column; LOKO and one-run)    kernel
==============  ==========================================  ===============================

A table without some role gets estimates that do not need it; the roofline
then says what is missing instead of failing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from modeling import shipped
from modeling.errors import ConfigError, DataError
from modeling.metrics import percent_safe

ROLES = {
    "dram_read": "device_memory_read_throughput",
    "dram_write": "device_memory_write_throughput",
    "issue_util": "issue_slot_utilization",
    "grid_x": "grid_x",
    "grid_y": "grid_y",
    "launches": "launches",
    "instructions": "inst_executed",
    "kernel": "kernel",
}
SPEC_FIELDS = ("architecture", "sms", "cuda_cores", "boost_clock_mhz", "memory_bandwidth_gbs")


@dataclass
class AppTable:
    """Workloads of one (host, target) pair; ``target`` is NaN where not measured."""

    ids: list
    groups: np.ndarray
    kernels: np.ndarray
    host: np.ndarray
    target: np.ndarray
    X: np.ndarray
    feature_names: list
    host_index: int
    roles: dict  # role -> feature column index (kernel: not a feature)
    host_spec: dict | None
    target_spec: dict | None
    metric: str = "duration"
    scenario: dict = field(default_factory=dict)
    excluded: int = 0

    def column(self, role: str) -> np.ndarray | None:
        j = self.roles.get(role)
        return None if j is None else self.X[:, j]

    def subset(self, rows) -> AppTable:
        rows = np.asarray(rows)
        rows = np.flatnonzero(rows) if rows.dtype == bool else rows
        return AppTable([self.ids[i] for i in rows], self.groups[rows], self.kernels[rows],
                        self.host[rows], self.target[rows], self.X[rows], self.feature_names, self.host_index,
                        self.roles, self.host_spec, self.target_spec, self.metric, self.scenario, self.excluded)

    @property
    def applications(self) -> list:
        return sorted(np.unique(self.groups).tolist())


def device_table(df: pd.DataFrame) -> pd.DataFrame:
    """A user's device table, validated: the columns the roofline needs (``device`` and :data:`SPEC_FIELDS`),
    unique non-empty names, positive numbers. Returns just those columns; raises ``DataError`` naming the
    first problem."""
    missing = [c for c in ("device", *SPEC_FIELDS) if c not in df.columns]
    if missing:
        raise DataError(f"The device table lacks column(s) {', '.join(missing)}; it needs device, "
                        f"{', '.join(SPEC_FIELDS)} (as in data/gpu_devices.csv).")
    if df.empty:
        raise DataError("The device table has no rows.")
    out = df[["device", *SPEC_FIELDS]].copy()
    out["device"] = out["device"].astype(str).str.strip()
    out["architecture"] = out["architecture"].astype(str).str.strip()
    if (out["device"] == "").any() or out["device"].duplicated().any():
        raise DataError("Device names must be non-empty and unique.")
    for c in SPEC_FIELDS[1:]:
        v = pd.to_numeric(out[c], errors="coerce")
        bad = out["device"][~(np.isfinite(v) & (v > 0))].tolist()
        if bad:
            raise DataError(f"{c} must be a positive number for every device; not for {', '.join(bad[:5])}.")
        out[c] = v.astype(float)
    return out.reset_index(drop=True)


def device_spec(name: str | None, devices: pd.DataFrame | None = None) -> dict | None:
    """A device's row of the device table (shipped, or ``devices`` brought with a dataset), or None."""
    if not name:
        return None
    table = shipped.devices() if devices is None else devices
    missing = [c for c in ("device", *SPEC_FIELDS) if c not in table.columns]
    if missing:
        raise DataError(f"The device table lacks column(s) {', '.join(missing)}.")
    rows = table[table["device"].astype(str) == str(name)]
    if rows.empty:
        raise ConfigError(f"Unknown device {name!r}; the device table has {', '.join(map(str, table['device']))}.")
    r = rows.iloc[0]
    spec = {"device": str(r["device"]), "architecture": str(r["architecture"])}
    for c in SPEC_FIELDS[1:]:
        v = pd.to_numeric(r[c], errors="coerce")
        if not np.isfinite(v) or v <= 0:
            raise DataError(f"Device {name!r}: {c} must be a positive number, not {r[c]!r}.")
        spec[c] = float(v)
    return spec


def _finish(ids, groups, kernels, host, target, X, names, host_index, roles, host_spec, target_spec, metric,
            scen) -> AppTable:
    host = np.asarray(host, float)
    target = np.asarray(target, float)
    ok = np.isfinite(host) & (host > 0) & np.all(np.isfinite(X), axis=1)
    ok &= ~np.isfinite(target) | percent_safe(np.where(np.isfinite(target), target, np.nan))
    excluded = int((~ok).sum())
    if ok.sum() < 2:
        raise DataError(f"Only {int(ok.sum())} workloads have a positive host value and finite counters.")
    groups = np.asarray([str(g) for g in groups])[ok]
    if len(np.unique(groups)) < 2:
        raise DataError("An application cannot be held out when the table has only one; "
                        "it needs a group column with at least two applications.")
    return AppTable([i for i, k in zip(ids, ok) if k], groups, np.asarray([str(k) for k in kernels])[ok],
                    host[ok], target[ok], np.asarray(X, float)[ok], list(names), host_index, roles, host_spec,
                    target_spec, metric, scen, excluded)


def shipped_table(host: str, target: str, metric: str = "duration") -> AppTable:
    """The shipped Rodinia data for one pair of GPUs."""
    scen = shipped.scenario(host, target, metric)
    names = scen["feature_names"]
    roles = {r: names.index(c) for r, c in ROLES.items() if c in names}
    return _finish(scen["workload_ids"], scen["groups"], scen["kernels"], scen["host_metric"], scen["y"], scen["X"],
                   names, scen["host_index"], roles, device_spec(host), device_spec(target), metric,
                   dict(scen["scenario"]))


def frame_table(df: pd.DataFrame, *, target: str | None, group: str, host_col: str, id_col: str | None = None,
                features: list | None = None, host_device: str | None = None, target_device: str | None = None,
                mapping: dict | None = None, devices: pd.DataFrame | None = None, metric: str = "duration"
                ) -> AppTable:
    """Any workload table: ``group`` is the application column, ``host_col`` the host's own time.

    ``mapping`` maps roles (see the module docstring) to column names; unmapped roles default to the
    shipped counter names when the table has such a column. ``target`` may be None or have gaps: those
    workloads are estimated but not scored.
    """
    mapping = dict(mapping or {})
    bad = [r for r in mapping if r not in ROLES]
    if bad:
        raise ConfigError(f"Unknown role(s) {', '.join(bad)}; roles are {', '.join(ROLES)}.")
    named = [c for c in (target, group, host_col, id_col, *mapping.values()) if c]
    miss = [c for c in named if c not in df.columns]
    if miss:
        raise DataError(f"Column(s) not in the table: {', '.join(miss)}.")
    for c in [host_col] + ([target] if target else []):
        if not pd.api.types.is_numeric_dtype(df[c]):
            raise DataError(f"Column {c!r} is not numeric.")
    cols = {r: mapping.get(r, default) for r, default in ROLES.items()}
    cols = {r: c for r, c in cols.items() if c in df.columns}
    skip = {target, group, id_col, cols.get("kernel")}
    feats = list(features) if features else [c for c in df.columns
                                             if c not in skip and pd.api.types.is_numeric_dtype(df[c])]
    for c in [host_col, *[c for r, c in cols.items() if r != "kernel"]]:
        if c not in feats and pd.api.types.is_numeric_dtype(df[c]):
            feats.append(c)
    nonnum = [c for c in feats if not pd.api.types.is_numeric_dtype(df[c])]
    if nonnum:
        raise DataError(f"Feature column(s) are not numeric: {', '.join(nonnum)}.")
    roles = {r: feats.index(c) for r, c in cols.items() if r != "kernel" and c in feats}
    ids = df[id_col].astype(str).tolist() if id_col else [str(i) for i in range(len(df))]
    if id_col and pd.Series(ids).duplicated().any():
        raise DataError(f"Workload ids in {id_col!r} are not unique.")
    kernels = df[cols["kernel"]].astype(str) if "kernel" in cols else df[group].astype(str)
    y = df[target].to_numpy(float) if target else np.full(len(df), np.nan)
    scen = {"dataset": "table", "host": host_device or host_col, "target": target_device or target,
            "metric": metric, "kernel_column": cols.get("kernel"), "target_column": target}
    return _finish(ids, df[group].tolist(), kernels.tolist(), df[host_col].to_numpy(float), y,
                   df[feats].to_numpy(float), feats, feats.index(host_col), roles,
                   device_spec(host_device, devices), device_spec(target_device, devices), metric, scen)


def shipped_host_table(host: str, metric: str = "duration", target_spec: dict | None = None) -> AppTable:
    """Every shipped workload measured on ``host``, with no target measurement: the table a GPU that was
    never built or measured is estimated on (``target_spec`` its specs, see :mod:`modeling.newapp.hypothetical`).

    Unlike :func:`shipped_table`, no workload is dropped for lacking a target value: there is no target.
    """
    if host not in shipped.gpu_names():
        raise ConfigError(f"Unknown host GPU {host!r}; choose one of {', '.join(shipped.gpu_names())}.")
    if metric not in shipped.METRICS:
        raise ConfigError(f"Unknown metric {metric!r}; use one of {', '.join(shipped.METRICS)}.")
    w = shipped.workloads()
    names = shipped.counters()["counter"].tolist()
    cols = [f"{c}@{host}" for c in names]
    sub = w[w[cols].notna().all(axis=1)]
    roles = {r: names.index(c) for r, c in ROLES.items() if c in names}
    host_index = names.index(shipped.METRICS[metric])
    X = sub[cols].to_numpy(dtype=float)
    scen = {"dataset": "rodinia", "host": host, "target": (target_spec or {}).get("device"), "metric": metric}
    return _finish(sub["workload"].tolist(), sub["application"].tolist(), sub["kernel"].tolist(), X[:, host_index],
                   np.full(len(sub), np.nan), X, names, host_index, roles, device_spec(host), target_spec, metric,
                   scen)
