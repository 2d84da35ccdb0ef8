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
from modeling.counts.baseline import product_scaled_counts  # noqa: E402
from modeling.counts.data import Program  # noqa: E402
from modeling.counts.predict import BASELINE, BEST_CANDIDATES, predict_counts  # noqa: E402
from modeling.counts.ranges import LEVEL  # noqa: E402

EXTRA = ("pnn-paper",)
MODELS = ("best", *BEST_CANDIDATES, *EXTRA, BASELINE, "naive")


def largest_input(prog: Program) -> int:
    """The row of the largest measured input: largest product of the sizes, the last in size order on ties."""
    size = np.prod(prog.X, axis=1)
    return int(np.flatnonzero(size == size.max())[-1])


def without(prog: Program, row: int) -> Program:
    """``prog`` without the measured input ``row`` (its counts are not copied)."""
    return subset(prog, np.arange(len(prog.X)) != row)


def subset(prog: Program, keep: np.ndarray) -> Program:
    return Program(prog.name, prog.params, prog.X[keep], prog.blocks, prog.Y[keep])


def small_grid(prog: Program) -> tuple[np.ndarray, np.ndarray]:
    """(rows of the 4-values-per-size grid, rows to predict): per size, values at sorted positions 0, 1, 3, 7
    (doubling on an evenly spaced grid) when they exist below the largest value, else the four smallest;
    targets: every size on the grid or at its largest measured value, at least one at the largest."""
    keep_vals, top = [], []
    for j in range(prog.X.shape[1]):
        vals = np.unique(prog.X[:, j])
        pos = [i for i in (0, 1, 3, 7) if i < len(vals) - 1]
        if len(pos) < 4:
            pos = list(range(min(4, len(vals) - 1)))
        keep_vals.append(set(vals[pos].tolist()))
        top.append(vals[-1])
    on_grid = np.array([all(x[j] in keep_vals[j] for j in range(len(x))) for x in prog.X])
    at_top = prog.X == np.array(top)[None, :]
    allowed = np.array([all(x[j] in keep_vals[j] or at_top[i, j] for j in range(len(x)))
                        for i, x in enumerate(prog.X)])
    return np.flatnonzero(on_grid), np.flatnonzero(allowed & at_top.any(axis=1))


def predict_rows(prog: Program, train: np.ndarray, targets: np.ndarray, seed: int = 0):
    """({model: dict of arrays (targets x blocks)}, best CountPrediction): the ``targets`` rows predicted from
    the ``train`` rows. Only ``prog.X[targets]`` of the held-out inputs is read here."""
    rest = subset(prog, train)
    X_new = prog.X[targets]
    best = predict_counts(rest, X_new, "best", seed)
    level = np.array([np.nan if v is None else v for v in best.level], float)
    out = {"best": {"predicted": best.predicted, "lower": best.lower, "upper": best.upper, "how": best.how,
                    "level": level}}
    n = best.n_hl_test
    stated = (LEVEL if best.level_supported else n / (n + 1)) if n else np.nan  # every model's ranges alike
    for m in (*BEST_CANDIDATES, BASELINE):
        out[m] = {**best.by_model[m], "how": [h if h == "exact" and m == "poly" else m for h in best.how],
                  "level": np.full(len(best.how), stated)}
    naive = product_scaled_counts(rest.X, rest.Y, X_new)
    out["naive"] = {"predicted": naive, "lower": np.full_like(naive, np.nan), "upper": np.full_like(naive, np.nan),
                    "how": ["naive"] * len(best.how), "level": np.full(len(best.how), np.nan)}
    for m in EXTRA:
        r = predict_counts(rest, X_new, m, seed)
        out[m] = {"predicted": r.predicted, "lower": r.lower, "upper": r.upper, "how": r.how,
                  "level": np.array([np.nan if v is None else v for v in r.level], float)}
    return out, best


def predict_held_out(prog: Program, seed: int = 0):
    """(row, {model: dict of arrays}, best CountPrediction): the largest input predicted from the others."""
    row = largest_input(prog)
    out, best = predict_rows(prog, np.flatnonzero(np.arange(len(prog.X)) != row), np.array([row]), seed)
    return row, out, best


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
