"""Build the shipped GPU workload tables in ``data/`` from the public source.

Source: gpuperfpredict (Amaris et al., CC BY 4.0), folder ``rodinia-2018``:
one CSV per (kernel, GPU), one row per kernel launch. The build is
deterministic: same source, same bytes out (sorted rows, fixed column order).

How launches become workloads
-----------------------------
A *workload* is one Rodinia kernel at one input size (``input.size.1`` x
``input.size.2``), the analogue of a rendered frame in HALWPE.

1. Launches of one input size with the same launch configuration (grid, block,
   registers, shared memory) *and* the same deterministic work counters
   (``inst_executed``, ``warps_launched``, ``gld_request``) are repeated runs
   of the same work. Their durations are filtered with the +/- 7 scaled-MAD
   test of HALWPE VI.A (``modeling.tables.repeats``) and every counter is averaged
   over the kept runs.
2. Launches of one input size whose configuration or work differs (LU's
   perimeter kernel shrinks its grid at every step; heartwall processes a
   different frame each launch) are distinct parts of the same workload. Their
   de-duplicated values are combined per counter: counts and times are summed,
   rates are averaged weighted by duration, geometry is averaged
   (``modeling.build.counters``).

Each GPU is aggregated on its own; the GPUs are then joined on
(kernel, input sizes). ``lud_perimeter`` was not measured on GTX-970 and
TitanX: its workloads have empty columns for those two GPUs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path

import pandas as pd

from modeling.build.counters import TARGETS, clean_name, describe
from modeling.errors import DataError
from modeling.tables.launches import average_repeats, combine_parts
from modeling.tables.repeats import DEFAULT_K
from modeling import DATA_DIR

KERNEL_APPLICATION = {
    "bpnn_layerforward_CUDA": "backprop",
    "bpnn_adjust_weights_cuda": "backprop",
    "calculate_temp": "hotspot",
    "kernel": "heartwall",
    "lud_diagonal": "lud",
    "lud_perimeter": "lud",
}
KERNEL_LABEL = {"kernel": "heartwall_kernel"}
GPUS = ["GTX-680", "Tesla-K20", "Tesla-K40", "Titan", "Quadro", "GTX-970", "GTX-980", "TitanX", "Tesla-P100"]
SIZE_COLS = ["input_size_1", "input_size_2"]
CONFIG_COLS = ["grid_x", "grid_y", "block_x", "block_y", "registers_per_thread", "static_smem"]
WORK_COLS = ["inst_executed", "warps_launched", "gld_request"]
DROP_COLS = {"unnamed_0", "device", "name", "kernel", "gpu_name"}
RAW_EXAMPLE = ("calculate_temp", "GTX-680")

# Public specification figures (NVIDIA product pages and whitepapers).
DEVICES = [
    # name, architecture, chip, compute capability, SMs, CUDA cores, boost clock MHz, memory GB/s, L2 KiB
    ("GTX-680", "Kepler", "GK104", "3.0", 8, 1536, 1058, 192.3, 512),
    ("Tesla-K20", "Kepler", "GK110", "3.5", 13, 2496, 706, 208.0, 1280),
    ("Tesla-K40", "Kepler", "GK110B", "3.5", 15, 2880, 875, 288.0, 1536),
    ("Titan", "Kepler", "GK110", "3.5", 14, 2688, 876, 288.4, 1536),
    ("Quadro", "Kepler", "GK110 (Quadro K5200)", "3.5", 12, 2304, 771, 192.0, 1024),
    ("GTX-970", "Maxwell", "GM204", "5.2", 13, 1664, 1178, 224.0, 1792),
    ("GTX-980", "Maxwell", "GM204", "5.2", 16, 2048, 1216, 224.0, 2048),
    ("TitanX", "Maxwell", "GM200", "5.2", 24, 3072, 1075, 336.5, 3072),
    ("Tesla-P100", "Pascal", "GP100", "6.0", 56, 3584, 1329, 732.0, 4096),
]
DEVICE_COLUMNS = ["device", "architecture", "chip", "compute_capability", "sms", "cuda_cores",
                  "boost_clock_mhz", "memory_bandwidth_gbs", "l2_kib"]


def workload_ids(kernel, size1, size2) -> pd.Series:
    """Workload id ``kernel:size1xsize2`` (sizes as integers), e.g. ``calculate_temp:64x256``."""
    return (pd.Series(kernel).astype(str) + ":" + pd.Series(size1).astype("int64").astype(str) + "x"
            + pd.Series(size2).astype("int64").astype(str))


def _read_launches(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path)
    df.columns = [clean_name(c) for c in df.columns]
    return df


def _aggregate_gpu(df: pd.DataFrame, k: float) -> pd.DataFrame:
    """Aggregate one (kernel, GPU) launch table to one row per input size.

    The launch-to-workload rules of ``modeling.tables.launches`` (also used by profiler imports):
    repeated runs filtered at +/- k scaled MADs and averaged, distinct parts combined by kind.
    """
    counters = [c for c in df.columns if c not in DROP_COLS and c not in SIZE_COLS]
    runs = average_repeats(df, SIZE_COLS + CONFIG_COLS + WORK_COLS, "duration", counters, k, SIZE_COLS)
    return combine_parts(runs, SIZE_COLS, {c: describe(c)[2] for c in counters}, "duration")


def build(source: Path, out: Path, k: float = DEFAULT_K) -> dict:
    """Build every shipped GPU table from ``source`` (the gpuperfpredict folder).

    Returns a summary dict (row counts and SHA-256 of each written file).
    """
    src = Path(source) / "rodinia-2018"
    if not src.is_dir():
        raise DataError(f"{src} not found: pass the gpuperfpredict folder (it holds rodinia-2018/).")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    per_gpu: dict[str, list[pd.DataFrame]] = {g: [] for g in GPUS}
    raw_example = None
    counter_names: list[str] | None = None
    for kernel in KERNEL_APPLICATION:
        for gpu in GPUS:
            path = src / f"{kernel}-{gpu}.csv.gz"
            if not path.exists():
                continue
            launches = _read_launches(path)
            if (kernel, gpu) == RAW_EXAMPLE:
                raw_example = launches.drop(columns=[c for c in DROP_COLS if c in launches.columns])
            agg = _aggregate_gpu(launches, k)
            agg.insert(0, "kernel", KERNEL_LABEL.get(kernel, kernel))
            per_gpu[gpu].append(agg)
            if counter_names is None:
                counter_names = [c for c in agg.columns
                                 if c not in ("kernel", "repeats_total", "repeats_outliers", *SIZE_COLS)]
    if counter_names is None:
        raise DataError(f"No kernel CSV files found in {src}.")
    keys = ["kernel", *SIZE_COLS]
    parts = []
    for gpu in GPUS:
        g = pd.concat(per_gpu[gpu], ignore_index=True).set_index(keys)
        g.columns = [f"{c}@{gpu}" for c in g.columns]
        parts.append(g)
    wide = pd.concat(parts, axis=1, join="outer").copy().reset_index()
    wide = wide.sort_values(keys, kind="stable").reset_index(drop=True)
    for c in SIZE_COLS:
        wide[c] = wide[c].astype("int64")
    ids = pd.DataFrame({
        "workload": workload_ids(wide["kernel"], wide["input_size_1"], wide["input_size_2"]),
        "application": wide["kernel"].map({KERNEL_LABEL.get(k, k): a for k, a in KERNEL_APPLICATION.items()}),
    })
    wide = pd.concat([ids, wide], axis=1)
    if wide["workload"].duplicated().any():
        raise DataError("Workload ids are not unique after aggregation.")

    feats = []
    for c in counter_names:
        category, unit, agg = describe(c)
        feats.append({"counter": c, "category": category, "unit": unit, "aggregation": agg,
                      "role": "target" if c in TARGETS else "feature"})
    features = pd.DataFrame(feats)
    devices = pd.DataFrame(DEVICES, columns=DEVICE_COLUMNS)

    files = {
        "gpu_workloads.parquet": lambda p: wide.to_parquet(p, index=False, compression="zstd"),
        "gpu_counters.csv": lambda p: features.to_csv(p, index=False, lineterminator="\n"),
        "gpu_devices.csv": lambda p: devices.to_csv(p, index=False, lineterminator="\n"),
        "hotspot_gtx680_launches.parquet": lambda p: raw_example.to_parquet(p, index=False, compression="zstd"),
    }
    summary = {"workloads": int(len(wide)), "counters": len(counter_names), "gpus": len(GPUS),
               "mad_k": k, "files": {}}
    for name, write in files.items():
        tmp = out / f".{name}.tmp"
        write(tmp)
        os.replace(tmp, out / name)
        summary["files"][name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    return summary


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m modeling.build.rodinia",
                                description="Build data/ from the gpuperfpredict source folder.")
    p.add_argument("source", type=Path, help="path to the gpuperfpredict folder (holds rodinia-2018/)")
    p.add_argument("--out", type=Path, default=DATA_DIR)
    p.add_argument("--mad-k", type=float, default=DEFAULT_K)
    args = p.parse_args(argv)
    print(json.dumps(build(args.source, args.out, args.mad_k), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
