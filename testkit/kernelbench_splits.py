"""The four splits of a GPU never built on KernelBench's timings (``benchmarks/data/kernelbench/``): the protocol
``benchmarks/kernelbench_splits.py`` measures with and the tests check.

The estimate of a target GPU from a host's time is the spec roofline's: host time x (host bandwidth / target
bandwidth) for a memory-bound program, x (host cores x clock) / (target cores x clock) for a compute-bound one
(the ratios of :func:`modeling.newapp.estimators.roofline`). The timings come with no profiler counters, so the
class is the program's kind (:func:`kind_of`), not its DRAM throughput and issue-slot use, and there is no
latency class. Every pair is scored by :func:`modeling.newapp.splits.pair_errors` and the splits, intervals and
coverages are :func:`modeling.newapp.splits.validate_pairs`, the code /new-app runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd

from modeling.newapp.data import device_spec, device_table
from modeling.newapp.splits import RULE, SPLITS, SplitValidation, pair_errors, validate_pairs

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data" / "kernelbench"
COMPUTE = re.compile(r"matmul|matrix_mult|gemm|conv|linear|bmm|einsum|attention|mlp|lstm|gru|rnn|transformer",
                     re.IGNORECASE)


def load(data: Path = DATA) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(times: one row per GPU, level, problem; devices: the validated spec table with ``released``)."""
    times = pd.read_csv(data / "times.csv")
    raw = pd.read_csv(data / "devices.csv", dtype={"released": str})
    devices = device_table(raw)
    devices["released"] = raw["released"].to_numpy()
    missing = sorted(set(times["gpu"]) - set(devices["device"]))
    if missing:
        raise ValueError(f"times.csv names GPU(s) devices.csv lacks: {', '.join(missing)}")
    return times, devices


def kind_of(level: str, problem: str) -> str:
    """``compute`` for a matrix product, convolution or whole network (every level-3 program), else ``memory``."""
    return "compute" if level == "level3" or COMPUTE.search(problem) else "memory"


def estimate(host_ms, kinds, hs: dict, ts: dict) -> np.ndarray:
    """The roofline's memory and compute ratios applied by kind (see the module docstring)."""
    r_mem = hs["memory_bandwidth_gbs"] / ts["memory_bandwidth_gbs"]
    r_cmp = (hs["cuda_cores"] * hs["boost_clock_mhz"]) / (ts["cuda_cores"] * ts["boost_clock_mhz"])
    return np.asarray(host_ms, float) * np.where(np.asarray(kinds) == "compute", r_cmp, r_mem)


def pairs_from(host: str, times: pd.DataFrame, devices: pd.DataFrame) -> list[dict]:
    """Every other GPU's pair from ``host``: the programs timed on both, scored by ``pair_errors``."""
    hs = device_spec(host, devices)
    wide = times.pivot_table(index=["level", "problem"], columns="gpu", values="mean_ms").reset_index()
    kinds = [kind_of(lv, p) for lv, p in zip(wide["level"], wide["problem"])]
    out = []
    for target in sorted(set(times["gpu"]) - {host}):
        ts = device_spec(target, devices)
        out.append(pair_errors(target, ts["architecture"], wide[target], estimate(wide[host], kinds, hs, ts),
                               wide["problem"], wide["level"]))
    return out


def validation(host: str, times: pd.DataFrame, devices: pd.DataFrame, splits=tuple(SPLITS),
               rule: str = RULE) -> SplitValidation:
    released = dict(zip(devices["device"], devices["released"]))
    return validate_pairs(pairs_from(host, times, devices), host, "duration", splits=splits, released=released,
                          rule=rule)
