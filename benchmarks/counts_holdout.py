"""Counts at inputs never run, measured on the shipped count tables (not a test).

``python benchmarks/counts_holdout.py [--mode largest|small-grid] [--tables cpu,gpu] [--programs a,b] [--json]``

Two situations, each scored only after the prediction was made (the held-out counts are removed before
anything is fitted, :func:`modeling.counts.predict.predict_counts` with ``best`` fits on what remains):

* ``largest`` - for every program of the shipped CPU basic-block counts and GPU event counts, the largest
  measured input (the largest product of the sizes; the last such in size order) is held out and predicted
  from all the others;
* ``small-grid`` - the issue's situation: every shipped CPU program with two or more sizes is cut down to a
  grid of 4 values per size (:func:`small_grid`: doubling values where the grid has them), and the inputs with
  every size on that grid or at the largest measured value, at least one at the largest, are predicted from it.

Scored per program and model (``best`` per block, each of glm, poly, pnn-tuned, pnn-paper, the size-scaling
``baseline`` of :mod:`modeling.counts.baseline`, and ``naive``: the rule it replaced, every count scaled by the
product of all sizes):

* the median and max over blocks (and inputs) of the absolute percentage error |predicted - measured| /
  max(measured, 1);
* for the non-exact blocks with a range: how many measured counts fell inside, grouped by the level printed
  beside the range (the coverage at the stated level), and the median width (upper / lower).

Prints JSON (``--json``) or a readable table with a summary over programs: per model the median over programs
of the median APE, how many programs' best-per-block median APE is at most the baseline's, and the coverage
per stated level.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from modeling.counts import data  # noqa: E402
from modeling.counts.data import Program  # noqa: E402
from modeling.counts.predict import BASELINE, BEST_CANDIDATES  # noqa: E402
from testkit.counts_holdout import EXTRA, largest_input, predict_rows, small_grid  # noqa: E402

MODELS = ("best", *BEST_CANDIDATES, *EXTRA, BASELINE, "naive")


def score(actual: np.ndarray, p: dict, exact_mask: np.ndarray, best_exact: np.ndarray) -> dict:
    """Errors over targets x blocks (and over the blocks best per block did not find exact: where a model or
    the baseline is needed); ranges of the non-exact blocks grouped by their stated level."""
    pred, lo, hi = p["predicted"], p["lower"], p["upper"]
    ape = np.abs(pred - actual) / np.maximum(actual, 1.0) * 100
    hard = ape[:, ~best_exact]
    ranged = (~exact_mask)[None, :] & np.isfinite(lo) & np.isfinite(hi)
    inside = (lo <= actual + 1e-9) & (actual - 1e-9 <= hi)
    levels = np.broadcast_to(np.asarray(p["level"], float)[None, :], pred.shape)
    by_level = {}
    for lv in np.unique(levels[ranged]):
        sel = ranged & (levels == lv)
        by_level[f"{lv:.3f}"] = [int(sel.sum()), int((inside & sel).sum())]
    width = (hi + 0.5)[ranged] / (np.maximum(lo, 0) + 0.5)[ranged]
    return {"median_ape": float(np.median(ape)), "max_ape": float(ape.max()),
            "n_not_exact": int(hard.size), "median_ape_not_exact": float(np.median(hard)) if hard.size else None,
            "mean_ape_not_exact": float(np.mean(hard)) if hard.size else None,
            "n_ranged": int(ranged.sum()), "n_inside": int((inside & ranged).sum()),
            "coverage": float(inside[ranged].mean()) if ranged.any() else None, "by_level": by_level,
            "median_width": float(np.median(width)) if ranged.any() else None}


def _cases(mode: str, prog: Program):
    if mode == "largest":
        row = largest_input(prog)
        return np.flatnonzero(np.arange(len(prog.X)) != row), np.array([row])
    if prog.X.shape[1] < 2:
        return None
    train, targets = small_grid(prog)
    return (train, targets) if len(targets) else None


def run(tables, programs=None, seed=0, log=None, mode="largest") -> dict:
    rows = []
    for t in tables:
        frame = data.shipped(t)
        for name in data.programs(frame):
            if programs and name not in programs:
                continue
            prog = data.program(frame, name)
            case = _cases(mode, prog)
            if case is None:
                continue
            train, targets = case
            t0 = time.perf_counter()
            preds, best = predict_rows(prog, train, targets, seed)
            actual = prog.Y[targets]  # read only now, to score
            exact = np.array([h == "exact" for h in best.how])
            exact_ok = int(np.sum(np.all(best.predicted[:, exact] == actual[:, exact], axis=0)))
            r = {"table": t, "program": name, "n_train": int(len(train)), "n_targets": int(len(targets)),
                 "scheme": best.scheme, "n_held_out": best.n_hl_test,
                 "beyond_measured_max": float(np.exp(best.beyond.max())), "n_blocks": len(prog.blocks),
                 "n_exact": int(exact.sum()), "exact_correct": exact_ok,
                 "n_irregular": int(sum(i is not None for i in best.irregular)),
                 "n_blocks_baseline": int(sum(h == BASELINE for h in best.how)),
                 "models": {m: score(actual, p, exact if m in ("best", "poly") else np.zeros_like(exact), exact)
                            for m, p in preds.items()},
                 "seconds": time.perf_counter() - t0}
            rows.append(r)
            if log:
                b, base = r["models"]["best"], r["models"][BASELINE]
                cov = "-" if b["coverage"] is None else f"{b['n_inside']}/{b['n_ranged']}"
                log(f"{t:3s} {name:26s} {len(train):4d} -> {len(targets):3d} ({r['scheme']}, {r['n_held_out']} "
                    f"held out) best median {b['median_ape']:.3g} % vs baseline {base['median_ape']:.3g} % "
                    f"(naive {r['models']['naive']['median_ape']:.3g} %); blocks not exact: mean APE best "
                    f"{_f(b['mean_ape_not_exact'])} % vs baseline {_f(base['mean_ape_not_exact'])} %; range {cov} at "
                    f"{', '.join(b['by_level'])}, exact {exact_ok}/{r['n_exact']} ({r['seconds']:.1f} s)")
    summary = {}
    for m in MODELS:
        meds = [r["models"][m]["median_ape"] for r in rows]
        lv = defaultdict(lambda: [0, 0])
        for r in rows:
            for k, (n, i) in r["models"][m]["by_level"].items():
                lv[k][0] += n
                lv[k][1] += i
        n_r = sum(r["models"][m]["n_ranged"] for r in rows)
        n_in = sum(r["models"][m]["n_inside"] for r in rows)
        widths = [r["models"][m]["median_width"] for r in rows if r["models"][m]["median_width"] is not None]
        hard = [r for r in rows if r["models"][m]["n_not_exact"]]
        summary[m] = {"median_over_programs_of_median_ape": float(np.median(meds)) if meds else None,
                      "max_over_programs_of_median_ape": float(np.max(meds)) if meds else None,
                      "programs_at_or_below_baseline": sum(r["models"][m]["median_ape"]
                                                           <= r["models"][BASELINE]["median_ape"] for r in rows),
                      "max_ape": float(max(r["models"][m]["max_ape"] for r in rows)) if rows else None,
                      "programs_with_blocks_not_exact": len(hard),
                      "median_over_programs_of_mean_ape_not_exact": float(np.median(
                          [r["models"][m]["mean_ape_not_exact"] for r in hard])) if hard else None,
                      "not_exact_at_or_below_baseline": sum(r["models"][m]["mean_ape_not_exact"]
                                                            <= r["models"][BASELINE]["mean_ape_not_exact"]
                                                            for r in hard),
                      "range_coverage": n_in / n_r if n_r else None, "n_ranged": n_r,
                      "coverage_by_level": {k: {"n": n, "inside": i, "coverage": i / n} for k, (n, i) in
                                            sorted(lv.items())},
                      "median_over_programs_of_median_width": float(np.median(widths)) if widths else None}
    return {"mode": mode, "programs": rows, "summary": summary, "n_programs": len(rows),
            "exact": {"blocks": sum(r["n_exact"] for r in rows), "correct": sum(r["exact_correct"] for r in rows)}}


def _f(v) -> str:
    return "-" if v is None else f"{v:.3g}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mode", default="largest", choices=["largest", "small-grid"])
    ap.add_argument("--tables", default="")
    ap.add_argument("--programs", default="")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    progs = {p for p in a.programs.split(",") if p}
    tables = [t for t in a.tables.split(",") if t] or (["cpu", "gpu"] if a.mode == "largest" else ["cpu"])
    res = run(tables, progs, a.seed, None if a.json else lambda s: print(s, flush=True), a.mode)
    if a.json:
        json.dump(res, sys.stdout, indent=1)
        print()
    else:
        for m, s in res["summary"].items():
            cov = "; ".join(f"{float(k):.0%} stated: {v['inside']}/{v['n']} = {v['coverage']:.1%}"
                            for k, v in s["coverage_by_level"].items()) or "no ranges"
            w = s["median_over_programs_of_median_width"]
            print(f"{m:10s} median over programs of median APE {s['median_over_programs_of_median_ape']:.3g} %, "
                  f"worst program {s['max_over_programs_of_median_ape']:.3g} %, at or below the baseline on "
                  f"{s['programs_at_or_below_baseline']} of {res['n_programs']} programs; blocks not exact: "
                  f"median over programs of mean APE {_f(s['median_over_programs_of_mean_ape_not_exact'])} %, at or "
                  f"below the baseline on {s['not_exact_at_or_below_baseline']} of "
                  f"{s['programs_with_blocks_not_exact']}; ranges: {cov}"
                  + (f"; median width (upper/lower) {w:.3g}" if w else ""))
        print(f"exact blocks predicted to the count: {res['exact']['correct']} of {res['exact']['blocks']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
