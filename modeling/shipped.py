"""The shipped GPU dataset (``data/``): devices, counters and scenarios.

A *scenario* is the HALWPE setting on real data: features are the nvprof
counters measured on a host GPU, the target is the duration (or elapsed SM
cycles) of the same workload on a target GPU.
"""

from __future__ import annotations

from functools import lru_cache

import pandas as pd

from modeling import DATA_DIR
from modeling.errors import ConfigError
from modeling.tables.workload import unmeasured_rows


METRICS = {"duration": "duration", "cycles": "elapsed_cycles_sm"}
#: the unit of each metric's values
UNITS = {"duration": "s", "cycles": "cycles"}
#: each metric in words, as the pages and the command line say it ("value": an uploaded table's target column)
METRIC_LABELS = {"duration": "duration (s)", "cycles": "elapsed SM cycles", "value": "the target column's values"}
#: the shipped data's name, as the pages and the command line say it
NAME = "Rodinia on 9 NVIDIA GPUs (shipped)"
ID_COLUMNS = ["workload", "application", "kernel", "input_size_1", "input_size_2"]


@lru_cache(maxsize=1)
def workloads() -> pd.DataFrame:
    """Wide workload table: one row per (kernel, input size), ``counter@GPU`` columns."""
    return pd.read_parquet(DATA_DIR / "gpu_workloads.parquet")


@lru_cache(maxsize=1)
def counters() -> pd.DataFrame:
    """Counter metadata: counter, category, unit, aggregation, role."""
    return pd.read_csv(DATA_DIR / "gpu_counters.csv")


@lru_cache(maxsize=1)
def devices() -> pd.DataFrame:
    """Device table (public specification figures)."""
    return pd.read_csv(DATA_DIR / "gpu_devices.csv", dtype={"compute_capability": str})


def gpu_names() -> list[str]:
    return devices()["device"].tolist()


def raw_launches() -> pd.DataFrame:
    """Raw launches of hotspot's calculate_temp on GTX-680 (before MAD filtering),
    with the ``workload`` id of the workload table in front."""
    from modeling.build.rodinia import workload_ids

    raw = pd.read_parquet(DATA_DIR / "hotspot_gtx680_launches.parquet")
    raw.insert(0, "workload", workload_ids(["calculate_temp"] * len(raw), raw["input_size_1"], raw["input_size_2"]))
    return raw


def _check_gpu(name: str, role: str) -> None:
    if name not in gpu_names():
        raise ConfigError(f"Unknown {role} GPU {name!r}; choose one of {', '.join(gpu_names())}.")


def scenario(host: str, target: str, metric: str = "duration") -> dict:
    """Build (X, y) for predicting ``metric`` on ``target`` from ``host`` counters.

    Returns a dict with X (n, p), y (n,), feature_names, categories, workload_ids,
    groups (application), kernels, host_index (the host's own measure of the
    metric, a column of X), host_metric and a scenario description. Workloads
    not measured on both GPUs are left out and counted in ``missing_rows``; those
    of them whose host counters are complete but whose target was not measured
    are kept as ``unmeasured`` (the workloads a prediction is for).
    """
    _check_gpu(host, "host")
    _check_gpu(target, "target")
    if metric not in METRICS:
        raise ConfigError(f"Unknown metric {metric!r}; use one of {', '.join(METRICS)}.")
    w = workloads()
    meta = counters()
    feats = meta["counter"].tolist()
    cols = [f"{c}@{host}" for c in feats]
    tcol = f"{METRICS[metric]}@{target}"
    sub = w[ID_COLUMNS + cols + [tcol]]
    ok = sub[cols + [tcol]].notna().all(axis=1)
    todo = sub[sub[cols].notna().all(axis=1) & sub[tcol].isna()]
    sub = sub[ok]
    return {
        "X": sub[cols].to_numpy(dtype=float),
        "y": sub[tcol].to_numpy(dtype=float),
        "feature_names": feats,
        "categories": meta["category"].tolist(),
        "units": meta["unit"].tolist(),
        "workload_ids": sub["workload"].tolist(),
        "groups": sub["application"].to_numpy(),
        "kernels": sub["kernel"].to_numpy(),
        "host_index": feats.index(METRICS[metric]),
        "host_metric": sub[f"{METRICS[metric]}@{host}"].to_numpy(dtype=float),
        "missing_rows": int((~ok).sum()),
        "missing_reason": "not measured on both GPUs",
        "unmeasured": unmeasured_rows(todo[cols].to_numpy(dtype=float), todo["workload"], todo["application"]),
        "scenario": {"dataset": "rodinia", "host": host, "target": target, "metric": metric},
    }
