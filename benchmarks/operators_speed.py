"""Speed of the operator model: the fit on NeuSight's training GPUs, and every operator of the table (and every
model, the sums of its operators) on an edited GPU once the model is fitted.

Run: ``nice .venv/bin/python benchmarks/operators_speed.py``

Targets: fitting on the shipped table (the five training GPUs' operators, both models and their five
leave-one-GPU-out refits each) in at most 60 s on 2 cores; every operator of the table on an edited GPU in at
most 1 s. Printed as measured seconds and their ratio to the target (below 1 is reached), with the machine's
load average at the start and the end: the machine is shared, so a figure holds for that load only. The
prediction is timed three times and the median reported; the fit once (full) and once quick (the page's quick
fit, 40 operators per GPU and kind).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modeling.operators.model import (DEFAULT_TRAIN, OperatorModel, load_operators, model_latencies,  # noqa: E402
                                      sample_training, table_operators)
from modeling.operators.specs import edit_spec, load_devices  # noqa: E402

FIT_TARGET_S, PREDICT_TARGET_S = 60.0, 1.0


def main() -> int:
    load0 = os.getloadavg()
    table, devices = load_operators(), load_devices()
    model = OperatorModel.fit(table, DEFAULT_TRAIN, devices)
    quick = OperatorModel.fit(sample_training(table, DEFAULT_TRAIN, 40), DEFAULT_TRAIN, devices)
    edited = edit_spec(devices["H100"], ["bandwidth=1.5x"])
    ops = table_operators(table)
    rows = table[table["op"] != "other"]
    times, times_all = [], []
    for _ in range(3):
        t0 = time.perf_counter()
        model.predict(ops, edited)
        times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        model_latencies(model.predict(rows, edited), rows["source"].to_numpy())
        times_all.append(time.perf_counter() - t0)
    load1 = os.getloadavg()
    pred_s, all_s = float(np.median(times)), float(np.median(times_all))
    print(f"load average at start {load0[0]:.1f}, at end {load1[0]:.1f} (2 cores, shared)")
    print(f"fit, full (2 models + 5 leave-one-GPU-out refits each, {int(table['gpu'].isin(DEFAULT_TRAIN).sum()):,} "
          f"rows): {model.fit_seconds:.1f} s = {model.fit_seconds / FIT_TARGET_S:.2f} x the {FIT_TARGET_S:g} s target")
    print(f"fit, quick (40 operators per GPU and kind): {quick.fit_seconds:.1f} s")
    print(f"every distinct operator of the table ({len(ops):,}) on {edited.name}: {pred_s:.2f} s = "
          f"{pred_s / PREDICT_TARGET_S:.2f} x the {PREDICT_TARGET_S:g} s target")
    print(f"every measured operator row ({len(rows):,}) and the sums of its {rows['source'].nunique()} sources: "
          f"{all_s:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
