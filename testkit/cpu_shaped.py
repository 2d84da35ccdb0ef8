"""A deterministic CPU-table-shaped prediction problem: 6,000 runs x 15 counters, host run time mapped.

The public CPU table the speed issue was measured on (6,134 runs of some two dozen applications, 15 counters,
run times over six orders of magnitude, the host's run time mapped) is not kept by the project; this
generator plants a table of its shape for timing ``predict --model recommended``:

* ``groups`` applications, each with its own memory-bound share and instruction mix, and runs at inputs whose
  host time spans about six orders of magnitude in all (1e-4 s ... 1e2 s);
* 15 counters per run: the host time itself (column ``host_time``, the host's own metric), cycles,
  instructions, loads, stores, branches, mispredictions, L1/L2/LLC misses, TLB misses, page faults,
  context switches, FP operations, vector operations: each the run's work times an application-specific rate,
  with run-to-run noise;
* the target time = host time x a speedup that depends on the memory-bound share and the vector share, with
  lognormal noise (sigma 0.1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

COUNTERS = ["host_time", "cycles", "instructions", "loads", "stores", "branches", "branch_misses",
            "l1_misses", "l2_misses", "llc_misses", "tlb_misses", "page_faults", "context_switches",
            "fp_ops", "vector_ops"]


def make(n: int = 6000, groups: int = 22, seed: int = 2024, p: int = 15) -> dict:
    """A scenario dict (``modeling.tables.workload.table_scenario``'s keys) of the planted table; ``p`` counters
    (the first ``p`` of :data:`COUNTERS`, repeated with other rates beyond 15)."""
    rng = np.random.default_rng(seed)
    app = np.sort(rng.integers(0, groups, n))
    mem = rng.uniform(0.05, 0.9, groups)  # memory-bound share per application
    vec = rng.uniform(0.0, 0.6, groups)   # vector share
    ipc = rng.uniform(0.5, 3.0, groups)
    scale = rng.uniform(-4, 0, groups)    # log10 of the application's smallest run
    host = 10 ** (scale[app] + rng.uniform(0, 2.5, n))
    host *= np.exp(rng.normal(scale=0.05, size=n))
    cycles = host * 3e9 * np.exp(rng.normal(scale=0.02, size=n))
    instr = cycles * ipc[app] * (1 - 0.5 * mem[app]) * np.exp(rng.normal(scale=0.05, size=n))
    rates = rng.uniform(0.001, 0.4, (groups, max(p, 15)))
    cols = [host, cycles, instr]
    for j in range(3, p):
        r = rates[app, j] * (mem[app] if j in (7, 8, 9, 10) else 1.0) * (vec[app] if j == 14 else 1.0)
        cols.append(instr * r * np.exp(rng.normal(scale=0.1, size=n)))
    X = np.column_stack(cols[:p])
    speedup = 2.0 * (1 - 0.6 * mem[app]) * (1 + vec[app])
    y = host / speedup * np.exp(rng.normal(scale=0.1, size=n))
    names = [COUNTERS[j] if j < 15 else f"{COUNTERS[j % 15]}_{j // 15}" for j in range(p)]
    return {"X": X, "y": y, "feature_names": names, "workload_ids": [f"run{i}" for i in range(n)],
            "groups": np.array([f"app{g:02d}" for g in app]), "host_index": 0,
            "scenario": {"source": "testkit/cpu_shaped.make", "n": n, "p": p, "groups": groups},
            "unmeasured": None}


def frame(n: int = 6000, groups: int = 22, seed: int = 2024) -> pd.DataFrame:
    """The planted table as a frame (for the command line: ``--csv``, ``--group app``, ``--host-col host_time``,
    ``--target target_time``)."""
    s = make(n, groups, seed)
    df = pd.DataFrame(s["X"], columns=s["feature_names"])
    df.insert(0, "app", s["groups"])
    df.insert(0, "run", s["workload_ids"])
    df["target_time"] = s["y"]
    return df
