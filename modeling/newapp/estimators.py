"""Estimates for an application never run on the target, each a point and a range.

All estimates scale the host's own time: prediction = host value x ratio. They
differ in where the ratio comes from.

* **naive-pooled**: the median target/host ratio over all training workloads
  (the leaderboards' baseline). An application with many input sizes weighs in
  with all of them.
* **naive-balanced**: the median of the training *kernels'* median ratios, each
  kernel counted once.
  Range of both: the lowest and highest training kernel's median ratio, the
  spread of what the training set has seen.
* **roofline**: no fitting and no target measurements; the host's counters put
  a workload in one of three classes, each scaled by a ratio of public device
  specs (see :func:`roofline`). Range: the lowest and highest of the three
  class ratios, since the class is a judgement.
* **one-run**: the application's own kernel measured on the target at one input
  (or a few): that kernel's measured ratio applied to its other inputs; with
  several, a line of log ratio against log host value. Range: the calibrating
  ratios' span, widened by how much the ratio varies inside a training kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Roofline thresholds (parameters; the defaults of the issue's study).
MEMORY_FRACTION = 0.5  # memory-bound when host DRAM throughput >= this x host peak bandwidth
COMPUTE_UTIL = 50.0  # compute-bound when host issue-slot utilization >= this (percent)
CLASSES = ("memory", "compute", "latency")


@dataclass
class Estimate:
    """Per workload: ``point``, range ``lo``..``hi`` (target units), and a ``note`` per workload or None."""

    method: str
    point: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    detail: dict | None = None


def _kernel_medians(ratio, kernels) -> dict:
    return {k: float(np.median(ratio[kernels == k])) for k in np.unique(kernels)}


def naive(train_ratio, train_kernels, host, balanced=False) -> Estimate:
    """Host x median training ratio, pooled over workloads or balanced over kernels (see module doc)."""
    train_ratio = np.asarray(train_ratio, float)
    meds = _kernel_medians(train_ratio, np.asarray(train_kernels))
    r = float(np.median(list(meds.values()))) if balanced else float(np.median(train_ratio))
    lo, hi = min(meds.values()), max(meds.values())
    host = np.asarray(host, float)
    return Estimate("naive-balanced" if balanced else "naive-pooled", host * r, host * lo, host * hi,
                    {"ratio": r, "kernel_ratios": meds})


def waves(blocks, sms) -> np.ndarray:
    """Waves of thread blocks over the SMs: ceil(blocks / SMs), at least 1 (one resident block per SM
    assumed; the ratio of waves is what matters, not their absolute number)."""
    return np.maximum(1.0, np.ceil(np.asarray(blocks, float) / float(sms)))


def roofline(table, memory_fraction=MEMORY_FRACTION, compute_util=COMPUTE_UTIL) -> Estimate:
    """Three-class spec roofline from the host's counters (no training data).

    Class per workload, first that applies:

    1. memory-bound if (DRAM read + write throughput) >= ``memory_fraction`` x host peak bandwidth:
       ratio = host bandwidth / target bandwidth;
    2. compute-bound if issue-slot utilization >= ``compute_util`` %:
       ratio = (host cores x host clock) / (target cores x target clock);
    3. otherwise latency-bound: ratio = (host clock / target clock) x (target waves / host waves),
       waves = ceil(blocks per launch / SMs).

    A time ratio; for cycles the clock ratio is taken out (x target clock / host clock). Raises
    ``LookupError`` naming what is missing (device specs, counter roles).
    """
    hs, ts = table.host_spec, table.target_spec
    missing = [f"{w} device specs" for w, s in (("host", hs), ("target", ts)) if s is None]
    need = ("dram_read", "dram_write", "issue_util", "grid_x")
    missing += [f"the {r} counter" for r in need if table.roles.get(r) is None]
    if missing:
        raise LookupError("needs " + ", ".join(missing))
    dram = table.column("dram_read") + table.column("dram_write")
    util = table.column("issue_util")
    gy = table.column("grid_y")
    blocks = table.column("grid_x") * (1.0 if gy is None else gy)
    r_mem = hs["memory_bandwidth_gbs"] / ts["memory_bandwidth_gbs"]
    r_cmp = (hs["cuda_cores"] * hs["boost_clock_mhz"]) / (ts["cuda_cores"] * ts["boost_clock_mhz"])
    r_lat = (hs["boost_clock_mhz"] / ts["boost_clock_mhz"]) * waves(blocks, ts["sms"]) / waves(blocks, hs["sms"])
    if table.metric == "cycles":
        scale = ts["boost_clock_mhz"] / hs["boost_clock_mhz"]
        r_mem, r_cmp, r_lat = r_mem * scale, r_cmp * scale, r_lat * scale
    n = len(table.host)
    mem = dram >= memory_fraction * hs["memory_bandwidth_gbs"]
    cmp_ = ~mem & (util >= compute_util)
    cls = np.where(mem, 0, np.where(cmp_, 1, 2))
    ratios = np.vstack([np.full(n, r_mem), np.full(n, r_cmp), np.broadcast_to(r_lat, n)])
    r = ratios[cls, np.arange(n)]
    return Estimate("roofline", table.host * r, table.host * ratios.min(axis=0), table.host * ratios.max(axis=0),
                    {"class": [CLASSES[c] for c in cls], "ratio": r.tolist(),
                     "thresholds": {"memory_fraction": memory_fraction, "compute_util": compute_util}})


def within_kernel_spread(train_ratio, train_kernels) -> float:
    """Median over training kernels of max/min of the kernel's ratios: how far one input's ratio
    can be from another input's of the same kernel (>= 1)."""
    train_ratio, train_kernels = np.asarray(train_ratio, float), np.asarray(train_kernels)
    spans = [train_ratio[train_kernels == k].max() / train_ratio[train_kernels == k].min()
             for k in np.unique(train_kernels)]
    return float(np.median(spans)) if spans else 1.0


def calibration_points(host, n: int) -> np.ndarray:
    """Which of one kernel's workloads to measure: ``n`` spread over its host values (n = 1: the median)."""
    order = np.argsort(np.asarray(host, float), kind="stable")
    m = len(order)
    if n >= m:
        return order
    pos = np.unique(np.round(np.linspace(0, m - 1, n + 2)[1:-1]).astype(int))
    return order[pos]


def one_run(host, cal_host, cal_target, spread: float = 1.0) -> Estimate:
    """Scale one kernel's inputs by its measured ratio (one calibrating input) or a fitted line
    log(ratio) = a + b log(host) (several). ``spread`` (>= 1, see :func:`within_kernel_spread`) widens the
    range of a single calibration to ratio / spread .. ratio x spread."""
    host = np.asarray(host, float)
    cal_host, cal_target = np.asarray(cal_host, float), np.asarray(cal_target, float)
    ratios = cal_target / cal_host
    if len(ratios) == 1 or np.ptp(np.log(cal_host)) < 1e-9:
        r = np.full(host.shape, float(np.median(ratios)))
        lo, hi = r / spread, r * spread
        detail = {"ratio": float(np.median(ratios)), "fit": "one ratio"}
    else:
        b, a = np.polyfit(np.log(cal_host), np.log(ratios), 1)
        r = np.exp(a + b * np.log(host))
        lo = np.minimum(r, ratios.min()) / np.sqrt(spread)
        hi = np.maximum(r, ratios.max()) * np.sqrt(spread)
        detail = {"ratio": float(np.median(ratios)), "fit": "log ratio vs log host", "slope": float(b)}
    return Estimate("one-run", host * r, host * lo, host * hi, detail)
