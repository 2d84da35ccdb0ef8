"""The held-out protocol of the count models (``benchmarks/counts_holdout.py`` measures with it; the tests check
that it never reads the held-out counts): which input is held out, and every model's prediction of it from the
other inputs."""

from __future__ import annotations

import numpy as np

from modeling.counts.baseline import product_scaled_counts
from modeling.counts.data import Program
from modeling.counts.predict import BASELINE, BEST_CANDIDATES, predict_counts
from modeling.counts.ranges import LEVEL

EXTRA = ("pnn-paper",)
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
