"""What the model knows now: fitted on the measured workloads, its prediction, interval and interval width
for every candidate, through the cross-generation prediction (:mod:`modeling.crossgen.predict`).

The model is one fixed choice, a Random Forest on ``log(target / host)`` (RastSim 4.2 forest, HALWPE's
host-relative target) with 5-fold CV+ intervals (:mod:`modeling.intervals.conformal`); without a host column,
on ``log(target)``. It is fixed rather than ``recommended`` because a plan refits it every round of a replay
(nested model choice each round would cost some fifty fits per round).

Two widths per candidate:

* the **reported interval** is centred on the model fitted on every measured workload, with the half-width
  (log scale) the conformal quantile of the out-of-fold residuals of the calibration workloads
  (:func:`modeling.intervals.conformal.intervals`, rule ``weighted``: in the new-inputs situation each
  workload is its own unit, so it is the ``ceil(level (n + 1))``-th smallest residual; for new applications
  each application's residuals weigh one). CV+ (the predictions' default for new inputs) also spreads the
  interval by the fold models' disagreement; with few workloads, fold models fitted on 80 % of them are
  worse than the full model, and CV+ over-covered in the replays (``benchmarks/plan.py``). The calibration
  workloads are those chosen at random (:mod:`modeling.plan.calibration`);
* the **ranking width** (what uncertainty sampling ranks by) is the CV+ interval over *all* residuals of the
  fold models (pooled rule): its width differs between candidates by how much the fold models disagree on
  them. In the new-applications situation the reported interval is the same width for every candidate (the
  grouped rules are symmetric around the prediction), so only this one can rank.

With too few measured workloads to fit the model (fewer than :data:`MIN_MODEL`, or one application when
planning for new applications) the prediction is the host x median ratio baseline and there is no width.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS
from modeling.intervals import conformal
from modeling.crossgen.predict import fit_predictor
from modeling.errors import NotEnoughDataError
from modeling.plan.calibration import MIN_FITTED_SCALE, distance_scale, fitted_distance_scale, learning_curve_factor
from modeling.plan.inputs import PlanTable
from modeling.plan.strategies import nearest_distance

MODEL = "RandomForest"
FOLDS = 10
#: fewest measured workloads the model is fitted on; below, the baseline answers
MIN_MODEL = 8


@dataclass
class Assessment:
    """The model's view of the rows ``rows`` (indices into the table), fitted on the ``known`` rows."""

    rows: np.ndarray
    predicted: np.ndarray
    lower: np.ndarray | None  # the reported interval (None: no interval the data can support)
    upper: np.ndarray | None
    rank_width: np.ndarray | None  # log(upper / lower) of the pooled CV+ interval, for ranking
    level: float
    how: str
    cv_error: float | None  # mean |log error| of the model's out-of-fold predictions on the known rows
    n_calibration: int
    feature_weight: np.ndarray | None = None  # per counter: half uniform, half the forest's RSS importance

    @property
    def width_factor(self) -> np.ndarray | None:
        """upper / lower of the reported interval, per row."""
        return None if self.lower is None else self.upper / self.lower


def _scenario(table: PlanTable, rows: np.ndarray) -> dict:
    return {"X": table.X[rows], "y": table.y[rows], "feature_names": list(table.feature_names),
            "workload_ids": [str(i) for i in table.ids[rows]],
            "groups": None if table.groups is None else table.groups[rows], "host_index": table.host_index,
            "scenario": {"dataset": "plan", "target": table.target}}


def _fold_distance(Z, known, fold_of, sel) -> np.ndarray:
    """Distance of each calibration workload (positions ``sel`` in ``known``) to the nearest simulated
    workload outside its own cross-validation fold: what its out-of-fold model saw."""
    out = np.empty(len(sel))
    for k in np.unique(fold_of[sel]):
        mine = fold_of[sel] == k
        out[mine] = nearest_distance(Z, known[sel[mine]], known[fold_of != k])
    return out


def _feature_weight(predictor, p: int) -> np.ndarray | None:
    """Half uniform, half the share of the full forest's RSS decrease (RastSim 5.5) per counter (sums to 1)."""
    est = getattr(predictor.full.est, "estimator_", None)
    trees = getattr(est, "trees_", None)
    if trees is None:
        return None
    imp = np.zeros(p)
    imp[predictor.full.keep] = trees.rss_decrease()
    if not imp.sum() > 0:
        return None
    return 0.5 / p + 0.5 * imp / imp.sum()


def _learning_factor(table, known, predictor, situation, seed, n_jobs=1) -> float:
    """:func:`~modeling.plan.calibration.learning_curve_factor` from a 2-fold fit beside the K-fold one."""
    try:
        half = fit_predictor(_scenario(table, known), model=MODEL, transform=predictor.choice.transform,
                             level=predictor.level, situation=situation, seed=seed, folds=2, n_jobs=n_jobs)
    except NotEnoughDataError:
        return 1.0
    return learning_curve_factor(predictor.cv_error["male"], half.cv_error["male"], predictor.n_folds)


def _baseline(table: PlanTable, known: np.ndarray, rows: np.ndarray) -> np.ndarray:
    y = table.y[known]
    if table.host_index is None:
        return np.full(len(rows), float(np.median(y)))
    h = table.X[:, table.host_index]
    ratio = float(np.median(y / np.maximum(h[known], 1e-300)))
    return h[rows] * ratio


def assess(table: PlanTable, y: np.ndarray, known: np.ndarray, rows: np.ndarray, *, calibration=None,
           situation: str = NEW_INPUTS, level: float = 0.9, seed: int = 0, Z=None, n_jobs: int = 1) -> Assessment:
    """Fit on ``known`` (indices; their targets from ``y``) and predict ``rows``.

    ``calibration``: the indices among ``known`` whose residuals calibrate the reported interval (default:
    all of them). ``Z`` (n, p): every workload in the strategies' counter space; with it and a calibration
    set, the calibration residuals are weighted towards the unsimulated workloads
    (:func:`modeling.plan.calibration.shift_weights`; new-inputs situation). ``n_jobs``: worker processes for
    the model's cross-validation folds.
    """
    known = np.asarray(known, int)
    rows = np.asarray(rows, int)
    work = replace(table, y=y)
    try:
        if len(known) < MIN_MODEL:
            raise NotEnoughDataError("too few")
        predictor = fit_predictor(_scenario(work, known), model=MODEL,
                                  transform="logratio" if table.host_index is not None else "log", level=level,
                                  situation=situation, seed=seed, folds=FOLDS, n_jobs=n_jobs)
    except NotEnoughDataError:
        base = _baseline(work, known, rows)
        return Assessment(rows, base, None, None, None, level,
                          f"host x median ratio baseline ({len(known)} measured: too few to fit the model)",
                          None, 0)
    Xn = table.X[rows]
    fold_log = conformal.to_log(np.column_stack([m.predict(Xn) for m in predictor.fold_models]), predictor.floor)
    rank = conformal.cv_plus_by_fold(fold_log, predictor.abs_r, predictor.fold_of,
                                     min(level, conformal.supported_level(predictor.n_train)))
    sel = np.arange(predictor.n_train)
    how_cal = "every measured workload calibrates the interval"
    if calibration is not None:
        pos = {k: i for i, k in enumerate(known)}
        mine = np.array(sorted(pos[k] for k in calibration if k in pos), int)
        grouped = situation == NEW_APPLICATIONS and predictor.groups is not None
        if len(mine) >= conformal.units_needed(level) and (not grouped or len(np.unique(predictor.groups[mine])) >= 2):
            sel, how_cal = mine, f"the {len(mine)} workloads chosen at random calibrate the interval"
        else:
            how_cal = (f"too few workloads chosen at random ({len(mine)}) to calibrate alone: every measured "
                       "workload calibrates the interval")
    point = predictor.full.predict(Xn)
    units = (predictor.groups[sel] if situation == NEW_APPLICATIONS and predictor.groups is not None
             else np.arange(len(sel)))
    center = conformal.to_log(point, predictor.floor)
    lo = hi = None
    if (Z is not None and calibration is not None and units is not None and situation == NEW_INPUTS
            and len(predictor.fold_of) == len(known)):
        d_pool = nearest_distance(Z, rows, known)
        if len(known) >= MIN_FITTED_SCALE:  # the line is fitted on every simulated workload's distance
            d_all = _fold_distance(Z, known, predictor.fold_of, np.arange(len(known)))
            d_cal = d_all[sel]
            scale_cal, scale_pool = fitted_distance_scale(d_all, predictor.abs_r, d_cal, d_pool)
            scaled = "a fitted line in the workload's distance to the simulated ones"
        else:
            d_cal = _fold_distance(Z, known, predictor.fold_of, sel)
            scale_cal, scale_pool = distance_scale(d_cal, d_pool)
            scaled = "the workload's distance to the simulated ones"
        q, supported = conformal.conformal_quantile(predictor.abs_r[sel] / scale_cal, level)
        if supported >= level:
            half = q * scale_pool * _learning_factor(work, known, predictor, situation, seed, n_jobs)
            lo, hi = np.exp(center - half), np.exp(center + half)
            how_cal += f", each residual scaled by {scaled}"
    else:
        iv = conformal.intervals("weighted", level, abs_resid=predictor.abs_r[sel], groups=units, center_log=center)
        if iv.level_supported >= level:
            lo, hi = iv.lower, iv.upper
    return Assessment(rows, np.asarray(point, float), lo, hi, np.log(rank.upper / rank.lower), level,
                      f"{MODEL} on log(target{' / host' if table.host_index is not None else ''}), {FOLDS}-fold "
                      f"cross-validation on {len(known)} measured workloads; {how_cal}",
                      float(predictor.cv_error["male"]), len(sel), _feature_weight(predictor, table.X.shape[1]))


__all__ = ["Assessment", "FOLDS", "MIN_MODEL", "MODEL", "assess"]
