"""Tables several test modules build: constructed ODROID-style traces, and the shipped GPU data as an upload."""

import numpy as np
import pandas as pd

TRACE_META = ["#Timestamp", "Benchmark", "Run(#)", "CPU(4) Frequency(MHz)", "CPU(4) Temperature(C)",
              "A15 Voltage(V)", "A15 Current(A)", "A15 Power(W)"]


def armpm_trace(runs: dict, events=("CPU_CYCLES", "INST_RETIRED", "BRANCH_PRED")) -> bytes:
    """A trace in the armpm layout: runs = {(program, run, MHz): [(power W, {event: count}), ...]}, one sample
    every 0.5 s."""
    rows = []
    for (prog, run, freq), smp in runs.items():
        t = 1_000_000_000
        for power, counts in smp:
            t += 500_000_000
            rows.append([t, prog, run, freq, 50, 1.2, 1.0, power, *[counts.get(e, 0) for e in events]])
    return pd.DataFrame(rows, columns=[*TRACE_META, *events]).to_csv(sep="\t", index=False).encode()


def constructed_trace(programs=4, seed=0, short_run: int | None = None) -> bytes:
    """Programs at 800 and 1600 MHz, 2 runs each; cycles and power follow the counters. ``short_run``: that
    program's second run at 800 MHz stops half-way (quality control excludes it: -53 % from the median)."""
    rng = np.random.default_rng(seed)
    runs = {}
    for p in range(programs):
        mem = rng.uniform(1e-3, 1e-2)
        for freq in (800, 1600):
            for run in (1, 2):
                smp = []
                n_samples = 14 if freq == 800 else 8
                if short_run == p and freq == 800 and run == 2:
                    n_samples = 7
                for _ in range(n_samples):
                    instr = int(1e9 * freq / 800 * rng.uniform(0.97, 1.03))
                    refill = int(instr * mem)
                    smp.append((0.3 + freq / 2000 + 20 * mem, {"CPU_CYCLES": int(0.8 * instr + 60 * refill),
                                                              "INST_RETIRED": instr, "L1D_CACHE_REFILL": refill,
                                                              "BRANCH_PRED": instr // 8}))
                runs[(f"prog{p}", run, freq)] = smp
    return armpm_trace(runs, ("CPU_CYCLES", "INST_RETIRED", "L1D_CACHE_REFILL", "BRANCH_PRED"))


ROOFLINE_COUNTERS = ["device_memory_read_throughput", "device_memory_write_throughput", "issue_slot_utilization",
                     "grid_x", "grid_y", "launches", "inst_executed"]


def shipped_as_upload(host="GTX-680", target="GTX-980") -> tuple[pd.DataFrame, dict]:
    """The shipped workloads as a user's table (the roofline's counters on ``host``, its time, ``target``'s
    time) and the upload mapping that saves it as a dataset."""
    from modeling import shipped

    w = shipped.workloads()
    up = pd.DataFrame({"w": w["workload"], "app": w["application"], "kernel": w["kernel"],
                       **{c: w[f"{c}@{host}"] for c in ROOFLINE_COUNTERS}, "host_t": w[f"duration@{host}"],
                       "t": w[f"duration@{target}"]})
    mapping = {"id_col": "w", "group_col": "app", "targets": ["t"], "features": [*ROOFLINE_COUNTERS, "host_t"],
               "host_col": "host_t", "repeat_col": None}
    return up, mapping


PARSEC_HEADER = ["#Timestamp", "Benchmark", "Run(#)", "Cores(#)", "CPU(4) Frequency(MHz)", "CPU(4) Temperature(C)",
          "A15 Voltage(V)", "A15 Current(A)", "A15 Power(W)", "CPU_CYCLES", "L1D_CACHE_ACCESS", "INST_RETIRED",
          "BRANCH_PRED"]
PARSEC_GAP_NS = 552_394 * 10**9


def parsec_like(programs=("parsec.alpha", "splash2x.beta", "parsec.gamma"), seed=1) -> bytes:
    """Every program at 1000 and 1800 MHz, runs 1 and 2, once on 1 core and once on 2 (the 2-core block
    recorded six days after the 1-core one, as in the public PARSEC traces); 0.5 s samples."""
    rng = np.random.default_rng(seed)
    rows = []
    for cores in (1, 2):
        t = 1_495_000_000 * 10**9 + (cores - 1) * PARSEC_GAP_NS
        for prog in programs:
            mem = rng.uniform(0.1, 0.4)
            for run in (1, 2):
                for freq in (1000, 1800):
                    n = (24 if freq == 1000 else 14) // cores
                    for _ in range(n):
                        t += 500_000_000
                        instr = int(6e8 * freq / 1000 * rng.uniform(0.97, 1.03))
                        acc = int(instr * mem)
                        rows.append([t, prog, run, cores, freq, 40, 1.1, 1.0, 0.4 + freq / 2500 * cores,
                                     int(0.7 * instr + 2 * acc), acc, instr, instr // 9])
    return pd.DataFrame(rows, columns=PARSEC_HEADER).to_csv(sep="\t", index=False).encode()
