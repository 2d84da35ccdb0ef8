"""Build ``gtx680_gtx980.csv`` (this folder) from the public gpuperfpredict ``apps-2016`` folder.

``python benchmarks/data/apps2016/build.py /path/to/gpuperfpredict/apps-2016``

One CSV per (application, GPU) in the source, one row per kernel launch. Here: the launches of one
application at one input size are one workload; each counter is the median over its launches on that GPU;
the GPUs are joined on (application, input size), keeping the workloads measured on both with every kept
counter (``inst_executed`` is missing for 8 sizes of the matrix-multiply applications; ``active_cycles`` and
``elapsed_cycles_sm``, missing for 42, are not kept). Columns:
``workload``, ``application``, ``input_size``, a few host (GTX-680) counters, ``duration_gtx680`` (the host's
own time) and ``duration_gtx980`` (the target). Deterministic: sorted rows, fixed columns.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

HOST, TARGET = "GTX-680", "GTX-980"
APPS = ["dotProd", "matMul_gpu", "matMul_gpu_sharedmem", "matMul_gpu_sharedmem_uncoalesced", "matMul_gpu_uncoalesced",
        "matrix_sum_coalesced", "matrix_sum_normal", "subSeqMax", "vectorAdd"]
COUNTERS = ["inst_executed", "warps_launched", "gld_request", "gst_request", "shared_load", "shared_store",
            "branch", "divergent_branch", "l1_global_load_miss", "global_store_transaction"]
OUT = Path(__file__).resolve().parent / "gtx680_gtx980.csv"


def _per_size(path: Path, cols: list[str]) -> pd.DataFrame:
    df = pd.read_csv(path)
    return df.groupby("Input.Size", sort=True)[cols].median()


def build(src: Path, out: Path = OUT) -> pd.DataFrame:
    rows = []
    for app in APPS:
        host = _per_size(src / f"{app}-{HOST}.csv.gz", COUNTERS + ["Duration"])
        tgt = _per_size(src / f"{app}-{TARGET}.csv.gz", ["Duration"])
        both = host.join(tgt.rename(columns={"Duration": "duration_gtx980"}), how="inner")
        both = both.rename(columns={"Duration": "duration_gtx680"}).reset_index()
        both.insert(0, "application", app)
        rows.append(both)
    t = pd.concat(rows, ignore_index=True).rename(columns={"Input.Size": "input_size"})
    t = t.dropna().reset_index(drop=True)  # a size whose launches lack a counter (inst_executed) is left out
    t["input_size"] = t["input_size"].astype("int64")
    t.insert(0, "workload", t["application"] + ":" + t["input_size"].astype(str))
    t = t.sort_values(["application", "input_size"], kind="stable").reset_index(drop=True)
    t.to_csv(out, index=False, lineterminator="\n", float_format="%.9g")
    return t


if __name__ == "__main__":
    t = build(Path(sys.argv[1]))
    print(f"{len(t)} workloads of {t['application'].nunique()} applications -> {OUT}")
    print(t.groupby("application").size().to_string())
