"""The four splits of a GPU never built on the apps-2016 kernels (``benchmarks/data/apps2016/gpus.csv``: nine
simple CUDA applications on the eight GPUs of the shipped device table, with the counters the roofline reads):
the protocol ``benchmarks/apps2016_splits.py`` measures with and the tests check.

Each host -> target pair is a workload table read as a user's upload is (:func:`modeling.newapp.data.frame_table`:
the host's duration, its DRAM throughput, issue-slot utilization and grid, the target's duration) and the
splits are :func:`modeling.newapp.splits.validate` on those tables: the counters-based spec roofline, the
intervals and the coverages are the page's own code, only the kernels are ones the project was not built on.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from modeling.newapp.data import frame_table
from modeling.newapp.splits import RULE, SPLITS, SplitValidation, validate

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "apps2016" / "gpus.csv"
COUNTERS = ["device_memory_read_throughput", "device_memory_write_throughput", "issue_slot_utilization", "grid_x",
            "grid_y"]


def load(path: Path = DATA) -> pd.DataFrame:
    return pd.read_csv(path)


def tables_from(host: str, data: pd.DataFrame) -> list:
    """One table per other GPU: the workloads (application, input size) measured on both."""
    mine = data[data["gpu"] == host].set_index(["application", "input_size"])
    out = []
    for target in sorted(set(data["gpu"]) - {host}):
        theirs = data[data["gpu"] == target].set_index(["application", "input_size"])["duration"]
        df = mine[COUNTERS + ["duration"]].join(theirs.rename("target_duration"), how="inner").reset_index()
        df["workload"] = df["application"] + ":" + df["input_size"].astype(str)
        out.append(frame_table(df[["workload", "application", *COUNTERS, "duration", "target_duration"]],
                               target="target_duration", group="application", host_col="duration",
                               id_col="workload", host_device=host, target_device=target))
    return out


def validation(host: str, data: pd.DataFrame, splits=tuple(SPLITS), rule: str = RULE) -> SplitValidation:
    return validate(tables_from(host, data), host, "duration", splits=splits, rule=rule)
