"""How long predicting 100,000 workloads with intervals takes once the model is fitted (not a test).

``python benchmarks/predict_speed.py [--rows 100000] [--json]`` fits, on the shipped GTX-680 -> GTX-980
scenario (Rodinia, 283 measured workloads x 74 counters), one predictor per model
(:func:`modeling.crossgen.predict.fit_predictor`: 10 fold models for CV+, the full model, the host x
median-ratio baseline beside it, the applicability reference), then predicts ``--rows`` new workloads
(each a mix of two measured workloads, 80-100 % of one: inside the training range) and times:

* **after**: :meth:`Predictor.predict` (point, 90 % CV+ interval, baseline and its interval, applicability);
* **before**, in the same run, the table-based route this replaced for the intervals: the fold models'
  predictions expanded to the (rows x 283) table and ranked by :func:`modeling.intervals.conformal.cv_plus`
  (twice: model and baseline), which is also what the bounds are checked against (identical arrays).

The goal is <= 2 s for 100,000 workloads; every figure is printed with the machine's load average.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = [("OLS/Forward/AIC", "logratio"), ("NNLS/Forward/AIC", "logratio"), ("Lasso", "log"),
          ("RandomForest", "ratio")]


def _new(scen, rows, seed=0):
    rng = np.random.default_rng(seed)
    X0 = scen["X"]
    a, b = X0[rng.integers(0, len(X0), rows)], X0[rng.integers(0, len(X0), rows)]
    w = rng.uniform(0.8, 1.0, (rows, 1))
    X = w * a + (1 - w) * b  # between two measured workloads: inside the training range, near the data
    return {"X": X, "feature_names": scen["feature_names"], "workload_ids": [f"w{i}" for i in range(rows)],
            "groups": None}


def _table_route(pred, Xn):
    """The replaced interval computation: the (rows x n_train) table ranked by cv_plus."""
    from modeling.crossgen.predict import _log_fold_predictions
    from modeling.intervals import conformal

    out = []
    for models, abs_r in ((pred.fold_models, pred.abs_r), (pred.base_fold_models, pred.base_abs_r)):
        fold_log = _log_fold_predictions(models, Xn, pred.floor)
        out.append(conformal.cv_plus(fold_log[:, pred.fold_of], abs_r, pred.level))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from modeling import shipped
    from modeling.crossgen.predict import fit_predictor

    scen = shipped.scenario("GTX-680", "GTX-980")
    new = _new(scen, args.rows)
    fit_predictor(scen, model="OLS/Forward/AIC", transform="logratio").predict(_new(scen, 50))  # compile kernels
    rows = []
    for model, transform in MODELS:
        t = time.perf_counter()
        pred = fit_predictor(scen, model=model, transform=transform)
        fit_s = time.perf_counter() - t
        t = time.perf_counter()
        res = pred.predict(new)
        after = time.perf_counter() - t
        t = time.perf_counter()
        model_iv, base_iv = _table_route(pred, new["X"])
        before_intervals = time.perf_counter() - t
        same = (np.array_equal(model_iv.lower, res.lower) and np.array_equal(model_iv.upper, res.upper)
                and np.array_equal(base_iv.lower, res.baseline_lower) and np.array_equal(base_iv.upper,
                                                                                        res.baseline_upper))
        rows.append({"model": model, "transform": transform, "fit_s": fit_s, "predict_s": after,
                     "table_route_intervals_s": before_intervals, "identical_bounds": bool(same),
                     "applicable": int(sum(res.applicable)), "rows": args.rows})
    info = {"rows": rows, "loadavg": os.getloadavg(), "cpus": os.cpu_count(), "goal_s": 2.0}
    if args.json:
        print(json.dumps(info, indent=1))
        return 0
    print(f"{args.rows:,} workloads to predict, GTX-680 -> GTX-980 (283 x 74), load average "
          f"{', '.join(f'{v:.2f}' for v in info['loadavg'])}, {info['cpus']} cores")
    print(f"{'model':<22}{'fit s':>8}{'predict s':>11}{'(goal 2 s)':>11}{'table-route intervals s':>25}"
          f"{'ratio':>8}  identical bounds")
    for r in rows:
        print(f"{r['model'] + ' (' + r['transform'] + ')':<22}"[:22] + f"{r['fit_s']:>8.2f}{r['predict_s']:>11.2f}"
              f"{'met' if r['predict_s'] <= 2.0 else 'NOT met':>11}{r['table_route_intervals_s']:>25.2f}"
              f"{r['table_route_intervals_s'] / r['predict_s']:>8.1f}  {r['identical_bounds']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
