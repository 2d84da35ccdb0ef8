"""Evaluating count models on one program (BB-ML 4.3, 5.2-5.3): every model on the same split, the best
model per block, blocks no model predicts, the training-size curve and event totals.

Metrics on the test points (counts of blocks, or events, at each test input):
- ``mape`` / ``max_ape``: mean and largest absolute percentage error over the non-zero measured counts;
- ``nmse`` (the paper's eq. 3 made scale-free): each block's measured and predicted counts are divided by
  the block's largest measured test count, so every block lies in [0, 1]; the mean squared difference over
  test points and blocks;
- ``pearson`` / ``spearman``: correlation of those normalized predicted and measured counts, pooled over the
  blocks whose count varies across the test points (constant blocks would tie ranks and flatter Pearson);
- ``fit_seconds``: training time. Network models run three seeds: median and range of each metric.

Beside the models, on the same split and metrics: the baseline a careful user would use (each block's count
at the nearest training input scaled by the sizes it depends on, :mod:`modeling.counts.baseline`); every
model's error is also given as a multiple of the baseline's (``vs_baseline``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.stats import pearsonr, spearmanr

from modeling.counts import models as M
from modeling.counts.baseline import scaled_counts
from modeling.counts.data import Program
from modeling.counts.forms import irregular_reason
from modeling.counts.names import NAMES
from modeling.counts.results import BlockChoice, CountEvaluation, CurvePoint, IrregularBlock, ModelScore, TestPoints
from modeling.counts.splits import inner_split, split
from modeling.errors import ConfigError

MODELS = ("pnn-paper", "pnn-tuned", "glm", "poly", "best")
IRREGULAR_PCT = 5.0
SEEDS = 3
CURVE_FRACTIONS = (0.2, 0.4, 0.6, 0.8, 1.0)


def metrics(y: np.ndarray, pred: np.ndarray) -> dict:
    nz = y > 0
    ape = np.abs(pred[nz] - y[nz]) / y[nz] * 100 if nz.any() else np.array([np.nan])
    top = y.max(axis=0)
    keep = top > 0
    yn, pn = y[:, keep] / top[keep], pred[:, keep] / top[keep]
    varies = (y[:, keep].max(axis=0) > y[:, keep].min(axis=0))
    pear = spear = None
    if varies.any() and len(y) > 1:
        a, b = yn[:, varies].ravel(), pn[:, varies].ravel()
        if np.ptp(b) > 0:
            pear, spear = float(pearsonr(a, b)[0]), float(spearmanr(a, b)[0])
    return {"mape": float(np.mean(ape)), "max_ape": float(np.max(ape)),
            "nmse": float(np.mean((pn - yn) ** 2)) if keep.any() else None, "pearson": pear, "spearman": spear}


def block_errors(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Mean APE per block over its non-zero counts (a block that is all zero: 0 if predicted 0)."""
    err = np.abs(pred - y) / np.maximum(y, 1.0) * 100
    return err.mean(axis=0)


def _fit_predict(model, X_tr, Y_tr, X_te, seed, pnn_settings):
    t = time.perf_counter()
    est = M.make(model, seed, pnn_settings).fit(X_tr, Y_tr)
    return est, est.predict(X_te), time.perf_counter() - t


def _seeds(model):
    return SEEDS if model.startswith("pnn") else 1


#: why a block is irregular, from the form of its counts (:mod:`modeling.counts.forms`)
_irregular_reason = irregular_reason


@dataclass(frozen=True)
class _Run:
    """One fit of one model with one seed: its test metrics and predictions, time and estimator."""
    scores: dict
    pred: np.ndarray
    seconds: float
    estimator: object


def _median_run(runs: list[_Run]) -> _Run:
    """The run with the median mean APE (the middle one of an odd number, the upper middle of an even)."""
    order = sorted(runs, key=lambda r: r.scores["mape"])
    return order[len(order) // 2]


def evaluate_program(prog: Program, split_kind: str = "high-low", model_names=MODELS, seed: int = 0,
                     pnn_settings: dict | None = None, curve: bool = True, progress=None) -> CountEvaluation:
    """Every chosen model on one split of one program; see the module docstring for the metrics."""
    unknown = [m for m in model_names if m not in MODELS and m != "pnn"]
    if unknown or not model_names:
        raise ConfigError(f"unknown count model(s) {', '.join(unknown) or '(none)'} (choose {', '.join(MODELS)})")
    X, Y = prog.X, prog.Y
    tr, te = split(X, split_kind, seed)
    base = [m for m in model_names if m != "best"] or ["glm", "poly"]
    if "best" in model_names:
        base = list(dict.fromkeys(base + ["glm", "poly"]))
    scores: dict[str, ModelScore] = {}
    preds: dict[str, np.ndarray] = {}
    exact = np.zeros(len(prog.blocks), dtype=bool)
    for k, m in enumerate(base):
        if progress:
            progress(k / (len(base) + 2), f"{prog.name}: {NAMES[m]}")
        runs = []
        for s in range(_seeds(m)):
            est, p, secs = _fit_predict(m, X[tr], Y[tr], X[te], seed + s, pnn_settings)
            runs.append(_Run(metrics(Y[te], p), p, secs, est))
        mid = _median_run(runs)
        preds[m] = mid.pred
        several = len(runs) > 1
        if m == "poly":
            exact = mid.estimator.exact_.copy()
        scores[m] = ModelScore(
            m, **mid.scores, fit_seconds=float(np.median([r.seconds for r in runs])),
            mape_range=(min(r.scores["mape"] for r in runs), max(r.scores["mape"] for r in runs)) if several else None,
            seeds=tuple(seed + s for s in range(len(runs))) if several else None,
            exact_blocks=int(exact.sum()) if m == "poly" else None)
    # best per block: each block's model with the smallest error on an inner split of the training points
    if progress:
        progress(len(base) / (len(base) + 2), f"{prog.name}: choosing a model per block")
    fit_i, val_i = inner_split(X[tr], seed)
    t0 = time.perf_counter()
    inner = {}
    for m in base:
        _, p, _ = _fit_predict(m, X[tr][fit_i], Y[tr][fit_i], X[tr][val_i], seed, pnn_settings)
        inner[m] = block_errors(Y[tr][val_i], p)
    err = np.vstack([inner[m] for m in base])
    choice = err.argmin(axis=0)
    if "poly" in base:  # a block whose counts are an exact polynomial takes it (the loop count itself)
        choice[exact] = base.index("poly")
    best = np.column_stack([preds[base[c]][:, b] for b, c in enumerate(choice)]) if len(choice) else preds[base[0]]
    if "best" in model_names:
        scores["best"] = ModelScore("best", **metrics(Y[te], best),
                                    fit_seconds=float(time.perf_counter() - t0
                                                      + sum(sc.fit_seconds for sc in scores.values())))
        preds["best"] = best
    irregular = [IrregularBlock(prog.blocks[b], float(err[:, b].min()),
                                _irregular_reason(X[tr], Y[tr][:, b], prog.params))
                 for b in np.flatnonzero(err.min(axis=0) > IRREGULAR_PCT)]
    # the baseline a careful user would use, on the same split (modeling/counts/baseline.py)
    t0 = time.perf_counter()
    base_pred = scaled_counts(X[tr], Y[tr], X[te])
    baseline = ModelScore("baseline", **metrics(Y[te], base_pred), fit_seconds=float(time.perf_counter() - t0))
    test_err = block_errors(Y[te], preds.get("best", preds[base[0]]))
    blocks = [BlockChoice(blk, base[choice[b]], bool("poly" in base and exact[b]), float(err[choice[b], b]),
                          float(test_err[b])) for b, blk in enumerate(prog.blocks)]
    shown = [m for m in model_names if m in preds]
    preds["baseline"] = base_pred
    shown.append("baseline")
    result = CountEvaluation(
        program=prog.name, sizes=list(prog.params), split=split_kind, n_train=int(len(tr)), n_test=int(len(te)),
        models=[scores[m] for m in model_names if m in scores], blocks=blocks, irregular=irregular,
        test=TestPoints(X[te].tolist(), Y[te].tolist(), {m: preds[m].tolist() for m in shown}),
        train_X=X[tr].tolist(), totals=totals(Y[te], {m: preds[m] for m in shown}, prog.blocks),
        baseline=baseline)
    if curve:
        if progress:
            progress((len(base) + 1) / (len(base) + 2), f"{prog.name}: training-size curve")
        result.curve = training_curve(X, Y, tr, te, [m for m in model_names if m != "best"], seed, pnn_settings)
    return result


def totals(y: np.ndarray, preds: dict, blocks) -> list[dict]:
    """Case study (BB-ML 5.3): the total of each block (or event) over the test inputs, predicted against
    measured, the total of all block executions first."""
    out = []
    for b, blk in [(-1, "all blocks"), *enumerate(blocks)]:
        actual = float(y.sum()) if blk == "all blocks" else float(y[:, b].sum())
        row = {"block": blk, "actual": actual}
        for m, p in preds.items():
            pred = float(p.sum()) if blk == "all blocks" else float(p[:, b].sum())
            row[m] = pred
            row[f"{m}|error"] = (pred - actual) / actual * 100 if actual > 0 else None
        out.append(row)
    return out


def training_curve(X, Y, tr, te, model_names, seed, pnn_settings) -> list[CurvePoint]:
    """Test mean APE against the share of the training points used (BB-ML Fig. 5 left); one seed."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(tr)
    rows = []
    for f in CURVE_FRACTIONS:
        sub = np.sort(order[:max(3, int(round(f * len(tr))))])
        for m in model_names:
            _, p, _ = _fit_predict(m, X[sub], Y[sub], X[te], seed, pnn_settings)
            rows.append(CurvePoint(f, int(len(sub)), m, metrics(Y[te], p)["mape"]))
    return rows
