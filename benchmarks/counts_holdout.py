"""Counts at an input never run, measured on the shipped count tables (not a test).

``python benchmarks/counts_holdout.py [--tables cpu,gpu] [--programs a,b] [--json]``: for every program of the
shipped CPU basic-block counts and GPU event counts, the largest measured input (the largest product of the
sizes; the last such in size order) is held out: its row is removed before anything is fitted, the rest
predicts it (:func:`modeling.counts.predict.predict_counts`, fitted on all the remaining inputs, the high-low
split of the remaining inputs for errors and ranges), and only then is the held-out count read to score:

* per model (``best`` per block, and each of glm, poly, pnn-tuned, pnn-paper): the median and max over blocks
  of the absolute percentage error |predicted - measured| / max(measured, 1);
* the same error of the naive scaling baseline beside every prediction (:mod:`modeling.counts.baseline`:
  the nearest remaining input's count x the size ratio), which has no range;
* the share of non-exact blocks whose measured count fell inside the range, and how many exact blocks were
  predicted to the count.

Prints JSON (``--json``) or a readable table, with a summary over programs (goal: best per block within 1 %
median over programs, ranges covering >= 90 % of non-exact blocks).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modeling.counts import data  # noqa: E402
from modeling.counts.data import Program  # noqa: E402
from modeling.counts.predict import BEST_CANDIDATES, predict_counts  # noqa: E402

EXTRA = ("pnn-paper",)


def largest_input(prog: Program) -> int:
    """The row of the largest measured input: largest product of the sizes, the last in size order on ties."""
    size = np.prod(prog.X, axis=1)
    return int(np.flatnonzero(size == size.max())[-1])


def without(prog: Program, row: int) -> Program:
    """``prog`` without the measured input ``row`` (its counts are not copied)."""
    keep = np.arange(len(prog.X)) != row
    return Program(prog.name, prog.params, prog.X[keep], prog.blocks, prog.Y[keep])


def predict_held_out(prog: Program, seed: int = 0):
    """(row, {model: CountPrediction-like dict of arrays}, best CountPrediction): the largest input predicted
    from the others. Only ``prog.X[row]`` of the held-out input is read here."""
    row = largest_input(prog)
    rest = without(prog, row)
    X_new = prog.X[row:row + 1]
    best = predict_counts(rest, X_new, "best", seed)
    out = {"best": {"predicted": best.predicted, "lower": best.lower, "upper": best.upper, "how": best.how}}
    for m in BEST_CANDIDATES:
        out[m] = {**best.by_model[m], "how": [h if h == "exact" and m == "poly" else m for h in best.how]}
    out["naive"] = {"predicted": best.baseline, "lower": np.full_like(best.baseline, np.nan),
                    "upper": np.full_like(best.baseline, np.nan), "how": ["naive"] * len(best.how)}
    for m in EXTRA:
        r = predict_counts(rest, X_new, m, seed)
        out[m] = {"predicted": r.predicted, "lower": r.lower, "upper": r.upper, "how": r.how}
    return row, out, best


def score(actual: np.ndarray, p: dict, exact_mask: np.ndarray) -> dict:
    pred, lo, hi = p["predicted"][0], p["lower"][0], p["upper"][0]
    ape = np.abs(pred - actual) / np.maximum(actual, 1.0) * 100
    ranged = ~exact_mask & np.isfinite(lo) & np.isfinite(hi)
    inside = (lo <= actual + 1e-9) & (actual - 1e-9 <= hi)
    return {"median_ape": float(np.median(ape)), "max_ape": float(ape.max()),
            "n_ranged": int(ranged.sum()), "n_inside": int((inside & ranged).sum()),
            "coverage": float(inside[ranged].mean()) if ranged.any() else None,
            "mean_width": float(np.mean((hi - lo)[ranged] / np.maximum(pred[ranged], 1.0))) if ranged.any() else None}


def run(tables, programs=None, seed=0, log=None) -> dict:
    rows = []
    for t in tables:
        frame = data.shipped(t)
        for name in data.programs(frame):
            if programs and name not in programs:
                continue
            prog = data.program(frame, name)
            t0 = time.perf_counter()
            row, preds, best = predict_held_out(prog, seed)
            actual = prog.Y[row]  # read only now, to score
            exact = np.array([h == "exact" for h in best.how])
            exact_ok = int(np.sum(best.predicted[0][exact] == actual[exact]))
            r = {"table": t, "program": name, "held_out": dict(zip(prog.params, prog.X[row].tolist())),
                 "beyond_measured": float(np.exp(best.beyond[0])), "n_blocks": len(prog.blocks),
                 "n_exact": int(exact.sum()), "exact_correct": exact_ok,
                 "n_irregular": int(sum(i is not None for i in best.irregular)),
                 "models": {m: score(actual, p, exact if m in ("best", "poly") else np.zeros_like(exact))
                            for m, p in preds.items()},
                 "seconds": time.perf_counter() - t0}
            rows.append(r)
            if log:
                b = r["models"]["best"]
                log(f"{t:3s} {name:26s} best median {b['median_ape']:.3g} % max {b['max_ape']:.3g} %, "
                    f"range {b['n_inside']}/{b['n_ranged']}, exact {exact_ok}/{r['n_exact']} ({r['seconds']:.1f} s)")
    models = ["best", *BEST_CANDIDATES, *EXTRA, "naive"]
    summary = {}
    for m in models:
        meds = [r["models"][m]["median_ape"] for r in rows]
        n_r = sum(r["models"][m]["n_ranged"] for r in rows)
        n_in = sum(r["models"][m]["n_inside"] for r in rows)
        summary[m] = {"median_over_programs_of_median_ape": float(np.median(meds)),
                      "max_over_programs_of_median_ape": float(np.max(meds)),
                      "max_ape": float(max(r["models"][m]["max_ape"] for r in rows)),
                      "range_coverage": n_in / n_r if n_r else None, "n_ranged": n_r}
    return {"programs": rows, "summary": summary,
            "exact": {"blocks": sum(r["n_exact"] for r in rows), "correct": sum(r["exact_correct"] for r in rows)}}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="cpu,gpu")
    ap.add_argument("--programs", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    progs = {p for p in a.programs.split(",") if p}
    res = run([t for t in a.tables.split(",") if t], progs, a.seed,
              None if a.json else lambda s: print(s, flush=True))
    if a.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        for m, s in res["summary"].items():
            cov = "-" if s["range_coverage"] is None else f"{s['range_coverage']:.1%} of {s['n_ranged']}"
            print(f"{m:10s} median over programs of median APE {s['median_over_programs_of_median_ape']:.3g} %, "
                  f"worst program {s['max_over_programs_of_median_ape']:.3g} %, range coverage {cov}")
        print(f"exact blocks predicted to the count: {res['exact']['correct']} of {res['exact']['blocks']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
