"""Operator and model latency on GPUs never trained on, on NeuSight's own split of its own data.

Run: ``OMP_NUM_THREADS=1 nice .venv/bin/python benchmarks/neusight_split.py`` (one thread: on a shared machine
the tree library's threads wait on each other; the fit took 1,395 s with two threads where one took 121 s)

Data: ``data/neusight_operators.parquet`` (NeuSight, MIT; ``modeling/build/neusight.py``). Splits:

* ``nvidia``: trained on P4, P100, T4, V100, A100-40GB; held out H100 (Hopper) and L4 (Ada), two
  architectures none of the training GPUs has, and A100-80GB (Ampere, as A100-40GB).
* ``amd``: NeuSight's AMD split, trained on MI100 and MI210, held out MI250 (CDNA2, as MI210).
* ``amd-new-arch``: trained on the five NVIDIA training GPUs and MI100 (CDNA), held out MI210 and MI250,
  so no CDNA2 GPU is in the training set.

Per held-out GPU, for the learned-utilisation model and the roofline: the mean and median absolute
percentage error (APE) per operator, on the operators of the model traces (as NeuSight matches its
predictions to its labels) and on the microbenchmark grid; the mean APE of each traced model's latency
(the sum of its operators); and the share of operators, and of models, inside the 90 % interval. Operators
flagged outside what was measured have no interval and count as not covered.

Timing: the fit of the ``nvidia`` split (the models and the leave-one-GPU-out calibration) and the
prediction of every operator of the table on an edited H100 (bandwidth x 1.5), on this machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modeling.operators.model import OperatorModel, load_operators, model_latencies  # noqa: E402
from modeling.operators.specs import edit_spec, load_devices  # noqa: E402

SPLITS = {
    "nvidia": (("P4", "P100", "T4", "V100", "A100-40GB"), ("H100", "L4", "A100-80GB")),
    "amd": (("MI100", "MI210"), ("MI250",)),
    "amd-new-arch": (("P4", "P100", "T4", "V100", "A100-40GB", "MI100"), ("MI210", "MI250")),
}
NEUSIGHT = "NeuSight (its paper and repository): whole model 8.1 % (H100 6.3, L4 12.4, A100-80GB 7.6); " \
           "per operator 33.8 % mean, 15.2 % median; roofline 42.8 % mean per operator"


def _ape(pred, meas):
    return 100.0 * np.abs(pred - meas) / meas


def evaluate(table, devices, train, held, level=0.9) -> tuple[list[dict], OperatorModel]:
    model = OperatorModel.fit(table, train, devices, level=level)  # times itself: model.fit_seconds
    rows = []
    for gpu in held:
        part = table[(table["gpu"] == gpu) & (table["op"] != "other")]
        if part.empty:
            continue
        meas = part["latency_ms"].to_numpy(dtype=float)
        trace = part["source"].str.startswith("trace:").to_numpy()
        sums = part.groupby("source")["latency_ms"].sum()
        for method in ("utilisation", "roofline"):
            p = model.predict(part, devices[gpu], method)
            ape = _ape(p.latency_ms, meas)
            inside = (meas >= p.lower_ms) & (meas <= p.upper_ms)
            r = {"gpu": gpu, "method": method, "n_trace_ops": int(trace.sum()), "n_micro_ops": int((~trace).sum()),
                 "outside_share": float(np.mean(p.outside))}
            for name, sel in (("trace", trace), ("micro", ~trace)):
                r[f"{name}_mean_ape"] = float(np.mean(ape[sel])) if sel.any() else None
                r[f"{name}_median_ape"] = float(np.median(ape[sel])) if sel.any() else None
                r[f"{name}_coverage"] = float(100 * np.mean(inside[sel])) if sel.any() and method != "roofline" \
                    else None
            models = [m for m in model_latencies(p, part["source"].to_numpy()) if m.name.startswith("trace:")]
            r["n_models"] = len(models)
            if models:
                e = [_ape(m.latency_ms, sums[m.name]) for m in models]
                r["model_mean_ape"] = float(np.mean(e))
                r["model_coverage"] = (float(100 * np.mean([m.lower_ms <= sums[m.name] <= m.upper_ms for m in models]))
                                       if method != "roofline" else None)
            rows.append(r)
    return rows, model


def _fmt(v, spec=".1f"):
    return "-" if v is None else format(v, spec)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--splits", nargs="*", default=list(SPLITS), choices=list(SPLITS))
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    args = ap.parse_args(argv)
    table, devices = load_operators(), load_devices()
    out = {"splits": {}}
    fitted = {}
    print(f"{'split':13s} {'GPU':10s} {'method':11s} {'op mean':>7s} {'op med':>6s} {'op cov':>6s} "
          f"{'grid mean':>9s} {'grid med':>8s} {'grid cov':>8s} {'models':>6s} {'mdl APE':>7s} {'mdl cov':>7s} "
          f"{'outside':>7s}")
    for split in args.splits:
        train, held = SPLITS[split]
        rows, model = evaluate(table, devices, train, held)
        fitted[split], fit_s = model, model.fit_seconds
        out["splits"][split] = {"train": train, "held_out": held, "rows": rows,
                                "half_width_factor": {f: float(np.exp(w)) for f, w in model.half_width.items()},
                                "level_supported": model.level_supported}
        for r in rows:
            print(f"{split:13s} {r['gpu']:10s} {r['method']:11s} {_fmt(r['trace_mean_ape']):>7s} "
                  f"{_fmt(r['trace_median_ape']):>6s} {_fmt(r['trace_coverage']):>6s} {_fmt(r['micro_mean_ape']):>9s} "
                  f"{_fmt(r['micro_median_ape']):>8s} {_fmt(r['micro_coverage']):>8s} {r['n_models']:>6d} "
                  f"{_fmt(r.get('model_mean_ape')):>7s} {_fmt(r.get('model_coverage')):>7s} "
                  f"{100 * r['outside_share']:>6.1f}%")
        for method in ("utilisation", "roofline"):
            rs = [r for r in rows if r["method"] == method and r.get("model_mean_ape") is not None]
            if rs:
                print(f"{split:13s} {'all':10s} {method:11s} whole-model mean APE over the held-out GPUs' models: "
                      f"{np.mean([r['model_mean_ape'] for r in rs]):.1f} % (mean of the GPUs' means)")
        factors = ", ".join(f"{f} {np.exp(w):.2f}" for f, w in model.half_width.items())
        support = ", ".join(f"{f} {s:.2f}" for f, s in model.level_supported.items())
        print(f"{split:13s} interval factors (x/÷) {factors}; level the training GPUs support {support}; "
              f"fit with calibration {fit_s:.1f} s")
    # speed: the fit alone and every operator of the table on an edited GPU
    model = fitted.get("nvidia") or OperatorModel.fit(table, SPLITS["nvidia"][0], devices)
    fit_s = model.fit_seconds
    ops = table[table["op"] != "other"]
    edited = edit_spec(devices["H100"], ["bandwidth=1.5x"])
    t0 = time.perf_counter()
    pred = model.predict(ops, edited)
    model_latencies(pred, ops["source"].to_numpy())
    pred_s = time.perf_counter() - t0
    print(f"speed: fit (2 models + 5 leave-one-GPU-out refits each) {fit_s:.1f} s; {len(ops):,} operators and "
          f"{ops['source'].nunique()} sources on {edited.name}: {pred_s:.2f} s")
    print(NEUSIGHT)
    out["speed"] = {"fit_s": fit_s, "predict_s": pred_s, "operators": int(len(ops))}
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(out, fh, indent=2, default=str)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
