"""Why the whole-model latency on H100 is worse than the roofline's: which operators dominate the sum.

Run: ``OMP_NUM_THREADS=1 nice .venv/bin/python benchmarks/neusight_whole_model.py``

Fits the learned-utilisation model on NeuSight's training GPUs (P4, P100, T4, V100, A100-40GB), predicts
the operators of every traced model on the held-out H100 and L4, and splits each model's measured time and
each predictor's error by operator kind (``linear``, ``bmm``, row-wise): the kind's share of the measured
time, and its signed contribution to the model's error, ``sum(predicted - measured) / sum(measured)`` in %.
Also the median ratio measured / roofline of the large linear layers on every GPU (the utilisation the model
must carry from the training GPUs to a new one), and the fit time.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modeling.operators.features import roofline_ms  # noqa: E402
from modeling.operators.model import OperatorModel, load_operators  # noqa: E402
from modeling.operators.specs import load_devices  # noqa: E402

TRAIN = ("P4", "P100", "T4", "V100", "A100-40GB")


def kind(op):
    return np.where(np.isin(op, ("linear", "bmm")), op, "row-wise")


def main() -> int:
    table, devices = load_operators(), load_devices()
    ops = table[table["op"] != "other"]
    model = OperatorModel.fit(table, TRAIN, devices)
    print(f"fit with calibration: {model.fit_seconds:.1f} s")
    for gpu in ("H100", "L4"):
        part = ops[(ops["gpu"] == gpu) & ops["source"].str.startswith("trace:")].reset_index(drop=True)
        meas = part["latency_ms"].to_numpy(float)
        util = model.predict(part, devices[gpu]).latency_ms
        roof = model.predict(part, devices[gpu], "roofline").latency_ms
        k = kind(part["op"].to_numpy())
        print(f"\n{gpu}: per model, share of measured time and signed error contribution (% of the model's time)")
        print(f"{'model':28s} {'meas ms':>9s} {'util %':>7s} {'roof %':>7s}   " +
              "  ".join(f"{x:>8s} share util roof" for x in ("linear", "bmm", "row-wise")))
        agg = {x: [0.0, 0.0, 0.0] for x in ("linear", "bmm", "row-wise")}
        for src, idx in part.groupby("source").indices.items():
            tot = meas[idx].sum()
            cells = []
            for x in ("linear", "bmm", "row-wise"):
                s = idx[k[idx] == x]
                share = 100 * meas[s].sum() / tot
                cu, cr = 100 * (util[s] - meas[s]).sum() / tot, 100 * (roof[s] - meas[s]).sum() / tot
                agg[x][0] += share / part["source"].nunique()
                agg[x][1] += cu / part["source"].nunique()
                agg[x][2] += cr / part["source"].nunique()
                cells.append(f"{share:8.1f} {cu:+5.1f} {cr:+5.1f}")
            eu, er = 100 * (util[idx].sum() - tot) / tot, 100 * (roof[idx].sum() - tot) / tot
            print(f"{src[6:]:28s} {tot:9.2f} {eu:+7.1f} {er:+7.1f}   " + "  ".join(cells))
        print(f"{'mean over models':28s} {'':9s} {'':7s} {'':7s}   " +
              "  ".join(f"{a[0]:8.1f} {a[1]:+5.1f} {a[2]:+5.1f}" for a in agg.values()))
    print("\nlarge linear layers (> 1 ms on the GPU): median measured / roofline, and the model's predicted ratio")
    for gpu in (*TRAIN, "A100-80GB", "H100", "L4"):
        part = ops[(ops["gpu"] == gpu) & (ops["op"] == "linear") & (ops["latency_ms"] > 1)]
        if part.empty:
            continue
        r = part["latency_ms"].to_numpy(float) / roofline_ms(part, devices[gpu])
        p = model.predict(part, devices[gpu]).latency_ms / roofline_ms(part, devices[gpu])
        print(f"  {gpu:10s} n={len(part):4d}  measured {np.median(r):.2f}x  predicted {np.median(p):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
