"""Build ``gpus.csv`` (this folder) from the public gpuperfpredict ``apps-2016`` folder: every application on
the eight GPUs of the shipped device table, with the counters the spec roofline reads.

``python benchmarks/data/apps2016/build_gpus.py /path/to/gpuperfpredict/apps-2016``

One CSV per (application, GPU) in the source, one row per kernel launch. Here: one row per (GPU, application,
input size), each column the median over that size's launches on that GPU: ``duration`` (seconds), DRAM read
and write throughput (GB/s), issue-slot utilization (%) and the grid (blocks in x and y). GTX-750 and
TitanBlack, which the source also has, are left out: the shipped device table (``data/gpu_devices.csv``) has no
spec sheet for them. Deterministic: sorted rows, fixed columns.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

GPUS = ["GTX-680", "Tesla-K20", "Tesla-K40", "Titan", "Quadro", "GTX-970", "GTX-980", "TitanX"]
APPS = ["dotProd", "matMul_gpu", "matMul_gpu_sharedmem", "matMul_gpu_sharedmem_uncoalesced", "matMul_gpu_uncoalesced",
        "matrix_sum_coalesced", "matrix_sum_normal", "subSeqMax", "vectorAdd"]
COLUMNS = {"Duration": "duration", "Device.Memory.Read.Throughput": "device_memory_read_throughput",
           "Device.Memory.Write.Throughput": "device_memory_write_throughput",
           "Issue.Slot.Utilization": "issue_slot_utilization", "Grid.X": "grid_x", "Grid.Y": "grid_y"}
OUT = Path(__file__).resolve().parent / "gpus.csv"


def build(src: Path, out: Path = OUT) -> pd.DataFrame:
    rows = []
    for gpu in GPUS:
        for app in APPS:
            df = pd.read_csv(src / f"{app}-{gpu}.csv.gz")
            for c in COLUMNS:
                df[c] = pd.to_numeric(df[c], errors="coerce")
            per = df.groupby("Input.Size", sort=True)[list(COLUMNS)].median().rename(columns=COLUMNS).reset_index()
            per.insert(0, "application", app)
            per.insert(0, "gpu", gpu)
            rows.append(per)
    t = pd.concat(rows, ignore_index=True).rename(columns={"Input.Size": "input_size"}).dropna()
    t["input_size"] = t["input_size"].astype("int64")
    t = t.sort_values(["gpu", "application", "input_size"], kind="stable").reset_index(drop=True)
    t.to_csv(out, index=False, lineterminator="\n", float_format="%.6g")
    return t


if __name__ == "__main__":
    t = build(Path(sys.argv[1]))
    print(f"{len(t)} rows, {t['gpu'].nunique()} GPUs, {t['application'].nunique()} applications -> {OUT}")
