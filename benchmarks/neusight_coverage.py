"""Why the operator model's 90 % interval covers more than 90 % of some held-out GPUs' grids: coverage per GPU.

Run: ``OMP_NUM_THREADS=1 nice .venv/bin/python benchmarks/neusight_coverage.py`` (one fit of NeuSight's NVIDIA
split, about 40 s on one thread)

The interval (``modeling/operators/model.py``) is split conformal with the GPU as the unit: every training GPU
is held out, the model refitted on the others, and the half-width is the GPU-weighted quantile of those
residuals at the level that covered 90 % of each training GPU held out from the others (rule ``held_out`` of
``modeling/intervals/conformal.py``), one per family. This prints, per family:

* the calibration's own check: each training GPU's coverage (its trace operators / its grid) by the interval
  rebuilt from the other four, and their mean (what the rule sets to 90 %);
* the same with the calibration weighing each GPU's operators as the fit does (``TRACE_WEIGHT``: its trace
  operators half, its grid half) instead of each operator of a GPU alike;
* each held-out GPU's coverage by family and source, by the interval the model states.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from modeling.intervals import conformal as cf  # noqa: E402
from modeling.operators.features import family  # noqa: E402
from modeling.operators.model import OPS, OperatorModel, _check_ops, _gpu_weights, load_operators  # noqa: E402
from modeling.operators.specs import load_devices  # noqa: E402

TRAIN, HELD = ("P4", "P100", "T4", "V100", "A100-40GB"), ("H100", "L4", "A100-80GB")


def _width(r, inv, w, level):
    return cf.weighted_quantile(r, w, cf.held_out_level(r, inv, w, level))


def main() -> int:
    table, devices = load_operators(), load_devices()
    model = OperatorModel.fit(table, TRAIN, devices)
    rows = _check_ops(table[table["gpu"].isin(TRAIN) & table["op"].isin(OPS) & (table["latency_ms"] > 0)])
    parts = [p for _, p in rows.groupby("gpu", sort=True)]  # the fit's row order
    fam = np.concatenate([family(p["op"]) for p in parts])
    trace = np.concatenate([p["source"].astype(str).str.startswith("trace").to_numpy() for p in parts])
    gpu = np.concatenate([p["gpu"].to_numpy() for p in parts])
    for f, r in model.loo_abs_resid.items():
        sel = fam == f
        g, t = gpu[sel], trace[sel]
        assert (g == model.loo_gpu[f]).all(), "row order differs from the fit's"
        names, inv = np.unique(g, return_inverse=True)
        print(f"\n{f}: stated factor x/÷ {np.exp(model.half_width[f]):.2f}; {int(t.sum())} trace and {int((~t).sum())} "
              "grid operators on the training GPUs")
        for label, w in (("each operator of a GPU alike (the model's)", 1.0 / np.bincount(inv)[inv]),
                         ("as the fit weighs (trace half, grid half)", _gpu_weights(g, t))):
            q = cf.held_out_level(r, inv, w, model.level)
            cov = []
            for j, name in enumerate(names):
                out = inv == j
                wj = _width(r[~out], np.unique(inv[~out], return_inverse=True)[1], w[~out], model.level)
                cov.append((name, 100 * np.mean(r[out & t] <= wj), 100 * np.mean(r[out & ~t] <= wj)))
            print(f"  {label}: level {q:.3f}, factor x/÷ {np.exp(cf.weighted_quantile(r, w, q)):.2f}")
            print("    each training GPU held out, trace / grid %: "
                  + ", ".join(f"{n} {a:.1f} / {b:.1f}" for n, a, b in cov)
                  + f"; mean {np.mean([c[1] for c in cov]):.1f} / {np.mean([c[2] for c in cov]):.1f}")
    print("\nheld-out GPUs, the stated interval: % inside (operators), by family and source")
    for name in HELD:
        part = table[(table["gpu"] == name) & (table["op"] != "other")]
        p = model.predict(part, devices[name])
        meas = part["latency_ms"].to_numpy(dtype=float)
        inside = (meas >= p.lower_ms) & (meas <= p.upper_ms)
        src = part["source"].str.startswith("trace:").to_numpy()
        fm = family(part["op"])
        cells = [f"{f} {lab} {100 * inside[k].mean():.1f} ({int(k.sum())})"
                 for f in model.loo_abs_resid for lab, s in (("trace", src), ("grid", ~src))
                 for k in [(fm == f) & s] if k.any()]
        print(f"  {name:10s} " + ", ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
