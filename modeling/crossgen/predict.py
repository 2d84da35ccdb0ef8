"""Predict what was not measured: a cross-generation model fitted on every measured workload,
applied to workloads that have host counters and no target.

HALWPE's model usage (Fig. 3; Sec. V.D-E): the workloads run on both the
host and the next-generation simulator train the model; it then predicts the
next generation's time of the many workloads that were not simulated, from
their host counters alone. Here every prediction carries

* the model and transform that made it (a chosen model, or ``recommended``:
  chosen by nested cross-validation among the models *and* the host x median
  ratio baseline, :mod:`modeling.crossgen.recommend`);
* an interval at a chosen level, conformal from the out-of-fold residuals of
  the same cross-validation (CV+ on the log scale,
  :mod:`modeling.crossgen.conformal`), for the situation the user names:
  ``new-inputs`` (known applications at new inputs: random K-fold residuals)
  or ``new-applications`` (applications not in the training data:
  leave-one-application-out residuals, or grouped 10-fold above 20
  applications), with the coverage such intervals reached on held-out folds;
* the baseline's prediction and interval beside it;
* an applicability verdict (:mod:`modeling.crossgen.applicability`).

The targets of the workloads to predict are never read: they are not
passed in (:func:`new_workloads` reads only the feature, id and group
columns of a table).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from modeling.crossgen import applicability, conformal
from modeling.crossgen.ensemble import (
    ALL_MODELS,
    BASELINE,
    MODEL_FACTORIES,
    TRANSFORMS,
    resolve_models,
)
from modeling.crossgen.estimators import HostRatioBaseline, TargetTransformRegressor
from modeling.crossgen.prediction_folds import INNER_FOLDS, enough_per_fold, splits_for
from modeling.crossgen.recommend import candidate_label, oof_scores, score_candidates, trade_off, transforms_for
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.metrics import percent_safe
from modeling.parallel import map_unordered

RECOMMENDED = "recommended"
AUTO = "auto"
SITUATIONS = {
    "new-inputs": "known applications at new inputs",
    "new-applications": "applications not in the training data",
}
#: Default interval rule per situation (measured in benchmarks/predict_accuracy.py: see the README).
DEFAULT_RULES = {"new-inputs": "pooled", "new-applications": "per_application"}


# ------------------------------------------------------------------ the workloads to predict

def new_workloads(frame, feature_names, id_col=None, group_col=None) -> dict:
    """The workloads to predict from a table of host counters (CSV/Parquet frame).

    Columns are matched to ``feature_names`` by name: a reordered table is fine, missing columns are an
    error naming them, extra columns are reported in ``ignored`` and never read (a target column among
    them included). Rows with a missing or non-finite counter cannot be predicted: they are left out and
    listed in ``skipped``.
    """
    import pandas as pd

    cols = [str(c) for c in frame.columns]
    named = [c for c in (id_col, group_col) if c]
    absent = [c for c in named if c not in cols]
    if absent:
        raise DataError(f"Column(s) not in the table of workloads to predict: {', '.join(absent)}.")
    missing = [f for f in feature_names if f not in cols]
    if missing:
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise DataError(f"The workloads to predict lack {len(missing)} counter column(s) the model was trained "
                        f"on: {', '.join(missing[:10])}{more}.")
    ignored = [c for c in cols if c not in set(feature_names) and c not in named]
    nonnum = [f for f in feature_names if not pd.api.types.is_numeric_dtype(frame[f])]
    if nonnum:
        raise DataError(f"Counter column(s) are not numeric in the workloads to predict: {', '.join(nonnum[:10])}.")
    X = frame[list(feature_names)].to_numpy(dtype=float)
    ids = (frame[id_col].astype(str).tolist() if id_col else [f"row {i + 1}" for i in range(len(frame))])
    if id_col and pd.Series(ids).duplicated().any():
        raise DataError(f"Workload ids in {id_col!r} are not unique.")
    ok = np.all(np.isfinite(X), axis=1)
    skipped = [i for i, k in zip(ids, ok) if not k]
    if not ok.any():
        raise DataError("Every workload to predict has a missing or infinite counter value.")
    groups = frame[group_col].astype(str).to_numpy()[ok] if group_col else None
    return {"X": X[ok], "feature_names": list(feature_names), "workload_ids": [i for i, k in zip(ids, ok) if k],
            "groups": groups, "ignored": ignored, "skipped": skipped}


# ------------------------------------------------------------------ result

@dataclass
class Prediction:
    """Predictions for workloads without a measured target, with intervals, baseline and applicability."""

    scenario: dict
    requested_model: str
    requested_transform: str
    model: str
    transform: str
    level: float
    level_supported: float
    situation: str
    interval_rule: str
    cv_scheme: str
    cv_coverage: dict
    cv_error: dict
    baseline_cv: dict | None
    n_train: int
    feature_names: list
    ids: list
    groups: list | None
    predicted: list
    lower: list
    upper: list
    baseline: list | None
    baseline_lower: list | None
    baseline_upper: list | None
    applicable: list
    why: list
    out_of_range: list
    distance: list
    distance_threshold: float
    distance_percentile: float
    ignored_columns: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    selection: dict | None = None
    notes: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def n_new(self) -> int:
        return len(self.ids)

    @property
    def how(self) -> str:
        """One line: what made the numbers and what the interval means."""
        made = candidate_label(self.model, self.transform)
        if self.requested_model == RECOMMENDED:
            made += " (recommended by nested cross-validation)"
        return (f"{made}; {self.level * 100:g} % interval for {SITUATIONS[self.situation]} "
                f"({conformal.RULE_LABELS[self.interval_rule]}; {self.cv_scheme})")

    def rows(self) -> list[dict]:
        """One dict per predicted workload (the prediction table of DESIGN.md)."""
        out = []
        for i, wid in enumerate(self.ids):
            out.append({
                "id": wid, "group": None if self.groups is None else self.groups[i],
                "predicted": self.predicted[i], "lower": self.lower[i], "upper": self.upper[i],
                "baseline": None if self.baseline is None else self.baseline[i],
                "baseline_lower": None if self.baseline_lower is None else self.baseline_lower[i],
                "baseline_upper": None if self.baseline_upper is None else self.baseline_upper[i],
                "applicable": bool(self.applicable[i]), "why": self.why[i],
                "out_of_range": self.out_of_range[i], "distance": self.distance[i]})
        return out

    def to_dict(self) -> dict:
        return {
            "scenario": self.scenario, "requested_model": self.requested_model,
            "requested_transform": self.requested_transform, "model": self.model, "transform": self.transform,
            "level": self.level, "level_supported": self.level_supported, "situation": self.situation,
            "situation_text": SITUATIONS[self.situation], "interval_rule": self.interval_rule,
            "interval_rule_text": conformal.RULE_LABELS[self.interval_rule], "cv_scheme": self.cv_scheme,
            "cv_coverage": self.cv_coverage, "cv_error": self.cv_error, "baseline_cv": self.baseline_cv,
            "n_train": self.n_train, "n_new": self.n_new, "n_applicable": int(sum(self.applicable)),
            "feature_names": self.feature_names, "ignored_columns": self.ignored_columns, "skipped": self.skipped,
            "distance_threshold": self.distance_threshold, "distance_percentile": self.distance_percentile,
            "selection": self.selection, "notes": self.notes, "how": self.how, "seconds": self.seconds,
            "predictions": self.rows(),
        }

    def to_frame(self, provenance: dict | None = None):
        """The prediction table as a DataFrame (CSV/Parquet export): one row per workload, then the
        provenance (model, level, situation, and whatever ``provenance`` adds, e.g. the dataset
        fingerprint, the code version and the date) as constant columns."""
        return frame_of(self.to_dict(), provenance)


def frame_of(res: dict, provenance: dict | None = None):
    """The prediction table (:mod:`modeling.prediction_table`) of a :meth:`Prediction.to_dict` (what the
    dashboard keeps): one row per workload; ``application`` when the workloads have groups; the baseline's
    interval when the scenario has a baseline; ``unit`` when the dict names one."""
    from modeling.prediction_table import frame

    rows = res["predictions"]
    has_group = any(r["group"] is not None for r in rows)
    has_base = any(r["baseline"] is not None for r in rows)
    core = {"id": [r["id"] for r in rows], "predicted": [r["predicted"] for r in rows],
            "lower": [r["lower"] for r in rows], "upper": [r["upper"] for r in rows], "level": res["level"],
            "how": res["how"], "applicable": [bool(r["applicable"]) for r in rows], "why": [r["why"] for r in rows],
            "baseline": [r["baseline"] for r in rows]}
    extra = {
        **({"application": [r["group"] for r in rows]} if has_group else {}),
        **({"unit": res["unit"]} if res.get("unit") else {}),
        "level_supported": res["level_supported"],
        **({"baseline_lower": [r["baseline_lower"] for r in rows],
            "baseline_upper": [r["baseline_upper"] for r in rows]} if has_base else {}),
        "model": res["model"], "transform": res["transform"], "situation": res["situation"],
    }
    return frame(core, extra, provenance)


# ------------------------------------------------------------------ fitting one candidate

def _factory(model: str, host_index):
    if model == BASELINE:
        if host_index is None:
            raise ConfigError("The baseline needs the host's own metric column.")
        return lambda seed: HostRatioBaseline(host_index)
    return MODEL_FACTORIES[model]


@dataclass
class _Fitted:
    """One fitted (model, transform) and the training columns it saw (constant ones dropped)."""

    est: object
    keep: np.ndarray

    def predict(self, X, columns: dict | None = None) -> np.ndarray:
        """Predict the rows of ``X``; ``columns`` (optional) keeps ``X[:, keep]`` for the next model that
        saw the same columns (the fold models mostly did: one copy of a large table instead of K)."""
        if columns is None:
            return self.est.predict(X[:, self.keep])
        key = self.keep.tobytes()
        if key not in columns:
            columns.clear()
            columns[key] = X[:, self.keep]
        return self.est.predict(columns[key])


def _fit(model, transform, X_tr, y_tr, host_index, seed) -> _Fitted:
    """Fit (model, transform) on the training rows, constant columns dropped."""
    ptp = np.ptp(X_tr, axis=0)
    keep = np.flatnonzero(ptp > 1e-12 * np.maximum(np.abs(X_tr).max(axis=0), 1e-300))
    if keep.size == 0:
        raise DataError("Every counter is constant on the training workloads; nothing to learn from.")
    hi = None
    if host_index is not None:
        if host_index not in keep:
            if model == BASELINE or transform in ("ratio", "logratio"):
                raise DataError("The host metric column is constant on the training workloads.")
        else:
            hi = int(np.searchsorted(keep, host_index))
    est = _factory(model, hi)(seed)
    if model != BASELINE and transform != "none":
        est = TargetTransformRegressor(est, transform, hi)
    est.fit(X_tr[:, keep], y_tr)
    return _Fitted(est, keep)


def _fit_predict(model, transform, X_tr, y_tr, evals, host_index, seed):
    """Fit (model, transform) on the training rows and predict each of ``evals``."""
    fitted = _fit(model, transform, X_tr, y_tr, host_index, seed)
    return [fitted.predict(E) for E in evals]


# ------------------------------------------------------------------ the procedure

class _Procedure:
    """What is fitted in each fold: one (model, transform), or "choose among candidates, then fit"."""

    def __init__(self, candidates, host_index, situation, seed, n_jobs, include_baseline):
        self.candidates = candidates  # list of (model, transform)
        self.host_index, self.situation, self.seed = host_index, situation, seed
        self.n_jobs, self.include_baseline = n_jobs, include_baseline

    @property
    def fixed(self) -> bool:
        return len(self.candidates) == 1 and not self.include_baseline

    def choose(self, X, y, groups, progress=None) -> tuple[tuple[str, str], list]:
        if self.fixed:
            return self.candidates[0], []
        models = sorted({m for m, _ in self.candidates}, key=ALL_MODELS.index)
        transforms = [t for t in TRANSFORMS if any(tt == t for _, tt in self.candidates)]
        _, cv, k, _ = splits_for(len(y), self.situation, groups, INNER_FOLDS, self.seed, inner=True)
        scored = score_candidates(X, y, models=models, transforms=transforms, host_index=self.host_index,
                                  groups=groups, cv=cv, folds=k, seed=self.seed,
                                  include_baseline=self.include_baseline, n_jobs=self.n_jobs, progress=progress)
        best = scored[0]
        return (best["model"], best["transform"]), scored


def _new_matrix(new, names) -> np.ndarray:
    """The counters of the workloads to predict, in the training column order (checked)."""
    if new is None or len(new["workload_ids"]) == 0:
        raise NotEnoughDataError("There are no workloads to predict: every workload of this scenario has a measured "
                                 "target. Upload a table of workloads to predict (host counters, no target).")
    Xn = np.asarray(new["X"], dtype=float)
    new_names = list(new.get("feature_names") or names)
    if new_names != names:
        idx = {n: i for i, n in enumerate(new_names)}
        missing = [n for n in names if n not in idx]
        if missing:
            raise DataError(f"The workloads to predict lack counter column(s): {', '.join(missing[:10])}.")
        Xn = Xn[:, [idx[n] for n in names]]
    if not np.all(np.isfinite(Xn)):
        raise DataError("A workload to predict has a missing or infinite counter value.")
    return Xn


def _log_fold_predictions(models, Xn, floor) -> np.ndarray:
    """(n_new, K): each fold model's log prediction of the new workloads."""
    out = np.empty((len(Xn), len(models)))
    columns: dict = {}
    for k, fitted in enumerate(models):
        out[:, k] = fitted.predict(Xn, columns)
    return conformal.to_log(out, floor)


def _intervals(rule, level, fold_models, Xn, floor, abs_r, fold_of, groups, point) -> conformal.Intervals:
    """The interval of every new workload by ``rule``: CV+ from the fold models (pooled) or symmetric
    around the full model's log prediction (the application rules)."""
    center = conformal.to_log(point, floor)
    if rule == "pooled":
        return conformal.cv_plus_by_fold(_log_fold_predictions(fold_models, Xn, floor), abs_r, fold_of, level)
    return conformal.intervals(rule, level, abs_resid=abs_r, groups=groups, center_log=center)


@dataclass
class Predictor:
    """Everything :func:`predict_scenario` fits, kept: the fold models (for CV+), the model fitted on every
    measured workload, the baseline beside it, the out-of-fold residuals and the applicability reference.
    :meth:`predict` then costs predictions and array work only (``benchmarks/predict_speed.py``)."""

    scenario: dict
    requested_model: str
    requested_transform: str
    model: str
    transform: str
    level: float
    situation: str
    rule: str
    scheme: str
    n_folds: int
    names: list
    floor: float
    fold_of: np.ndarray
    abs_r: np.ndarray
    groups: np.ndarray | None
    fold_models: list
    full: _Fitted
    cover: dict
    cv_error: dict
    reference: applicability.Reference
    base_fold_models: list | None = None
    base_full: _Fitted | None = None
    base_abs_r: np.ndarray | None = None
    base_cv: dict | None = None
    base_ratio_range: tuple | None = None
    selection: dict | None = None
    fit_seconds: float = 0.0

    @property
    def n_train(self) -> int:
        return len(self.abs_r)

    def predict(self, new: dict, progress=None) -> Prediction:
        """Predict the workloads of ``new`` (see :func:`predict_scenario`)."""
        t0 = time.perf_counter()
        report = progress or (lambda frac, label: None)
        names, floor, level, rule = self.names, self.floor, self.level, self.rule
        Xn = _new_matrix(new, names)
        new_groups = None if new.get("groups") is None else np.asarray(new["groups"]).astype(str)
        point = self.full.predict(Xn)
        iv = _intervals(rule, level, self.fold_models, Xn, floor, self.abs_r, self.fold_of, self.groups, point)
        base = base_iv = None
        if self.base_full is not None:
            base = self.base_full.predict(Xn)
            base_iv = _intervals(rule, level, self.base_fold_models, Xn, floor, self.base_abs_r, self.fold_of,
                                 self.groups, base)
        report(0.95, "checking the workloads against the training data")
        app = applicability.assess_against(self.reference, Xn, names, new_groups=new_groups,
                                           situation=self.situation)
        if base is not None:  # a prediction far outside the measured workloads' targets, relative to the host
            lo_r, hi_r = self.base_ratio_range
            ratio_new = point / np.maximum(base, floor)
            for i in np.flatnonzero((ratio_new < lo_r / 2) | (ratio_new > hi_r * 2)):
                app.applicable[i] = False
                app.why[i] = "; ".join(filter(None, [app.why[i], (
                    f"the prediction is {ratio_new[i]:.3g}x the baseline's, while every measured workload lies "
                    f"within {lo_r:.3g}-{hi_r:.3g}x of it: implausible, do not use it without checking")]))
        outside = (point < iv.lower) | (point > iv.upper)
        for i in np.flatnonzero(outside):  # CV+ is centred on the fold models, the point is the full model's
            app.why[i] = "; ".join(filter(None, [app.why[i], (
                "the model fitted on all workloads predicts outside the interval of the models fitted without "
                "each fold: the model is unstable here")]))
        notes = []
        if iv.level_supported < level:
            unit = "applications" if rule != "pooled" else "workloads"
            notes.append(f"The data cannot support a {level * 100:g} % interval here: with {self.n_folds} held-out "
                         f"{'applications' if self.situation == 'new-applications' else 'folds'} the conformal rank "
                         f"exceeds the number of {unit}, so the widest residual is used; that guarantees "
                         f"{iv.level_supported * 100:.0f} % at most.")
        if self.situation == "new-inputs" and app.new_application.any():
            notes.append(f"{int(app.new_application.sum())} workload(s) belong to applications not in the training "
                         "data: their intervals come from random folds and do not describe them (see each row's "
                         "reason).")
        return Prediction(
            scenario=dict(self.scenario), requested_model=self.requested_model,
            requested_transform=self.requested_transform, model=self.model,
            transform=self.transform if self.model != BASELINE else "none", level=level,
            level_supported=iv.level_supported, situation=self.situation, interval_rule=rule,
            cv_scheme=self.scheme, cv_coverage=self.cover, cv_error=self.cv_error, baseline_cv=self.base_cv,
            n_train=self.n_train, feature_names=names, ids=[str(i) for i in new["workload_ids"]],
            groups=None if new_groups is None else new_groups.tolist(),
            predicted=point.tolist(), lower=iv.lower.tolist(), upper=iv.upper.tolist(),
            baseline=None if base is None else base.tolist(),
            baseline_lower=None if base_iv is None else base_iv.lower.tolist(),
            baseline_upper=None if base_iv is None else base_iv.upper.tolist(),
            applicable=app.applicable.tolist(), why=app.why, out_of_range=app.out_of_range,
            distance=app.distance.tolist(), distance_threshold=app.distance_threshold,
            distance_percentile=self.reference.percentile,
            ignored_columns=list(new.get("ignored") or []), skipped=list(new.get("skipped") or []),
            selection=self.selection, notes=notes, seconds=self.fit_seconds + time.perf_counter() - t0)


def predict_scenario(scen: dict, new: dict | None = None, *, model: str = RECOMMENDED, transform: str = AUTO,
                     level: float = 0.9, situation: str = "new-inputs", rule: str | None = None, seed: int = 0,
                     folds: int = 10, models="halwpe", percentile: float = 95.0, n_jobs: int = 1,
                     progress=None) -> Prediction:
    """Fit on every measured workload of ``scen`` and predict the workloads of ``new``.

    Parameters
    ----------
    scen : scenario dict (:func:`modeling.shipped.scenario`, :func:`modeling.tables.workload.table_scenario`)
    new : dict with ``X`` (m, q), ``feature_names`` (q), ``workload_ids``, ``groups`` (or None), optional
        ``ignored``/``skipped`` (:func:`new_workloads`); default: the scenario's own ``unmeasured`` workloads.
    model : a model name, or ``"recommended"`` (nested CV over ``models`` x transforms and the baseline)
    transform : ``"auto"`` (chosen by the same CV) or one of none/log/ratio/logratio
    level : nominal coverage of the intervals, in (0, 1)
    situation : ``"new-inputs"`` or ``"new-applications"``
    rule : interval rule (:data:`modeling.crossgen.conformal.RULES`); default per situation
    folds : K of the outer K-fold (new inputs; grouped K-fold above 20 applications)
    percentile : the applicability distance percentile
    progress : callable(fraction, label), optional
    """
    new = new if new is not None else scen.get("unmeasured")
    _new_matrix(new, list(scen["feature_names"]))  # a table that cannot be predicted fails before any fit
    predictor = fit_predictor(scen, model=model, transform=transform, level=level, situation=situation, rule=rule,
                              seed=seed, folds=folds, models=models, percentile=percentile, n_jobs=n_jobs,
                              progress=progress)
    return predictor.predict(new, progress)


def fit_predictor(scen: dict, *, model: str = RECOMMENDED, transform: str = AUTO, level: float = 0.9,
                  situation: str = "new-inputs", rule: str | None = None, seed: int = 0, folds: int = 10,
                  models="halwpe", percentile: float = 95.0, n_jobs: int = 1, progress=None) -> Predictor:
    """Fit what :func:`predict_scenario` needs on every measured workload of ``scen`` (same parameters)."""
    t0 = time.perf_counter()
    report = progress or (lambda frac, label: None)
    if situation not in SITUATIONS:
        raise ConfigError(f"Unknown situation {situation!r}; use one of {', '.join(SITUATIONS)}.")
    rule = rule or DEFAULT_RULES[situation]
    if rule not in conformal.RULES:
        raise ConfigError(f"Unknown interval rule {rule!r}; use one of {', '.join(conformal.RULES)}.")
    if situation == "new-inputs" and rule != "pooled":
        raise ConfigError("With random folds every workload is its own unit: use the pooled rule.")
    conformal.conformal_rank(level, 1)  # validates the level
    host_index = scen.get("host_index")
    allowed = transforms_for(host_index)
    if transform != AUTO and transform not in allowed:
        raise ConfigError(f"Transform {transform!r} is not available here; use auto or one of {', '.join(allowed)}.")
    transforms = allowed if transform == AUTO else [transform]
    if model == RECOMMENDED:
        candidates = [(m, t) for t in transforms for m in resolve_models(models)]
        include_baseline = host_index is not None
    else:
        resolve_models([model])
        candidates = [(model, t) for t in transforms]
        include_baseline = False

    # training rows: measured, usable for a percentage error
    X = np.asarray(scen["X"], dtype=float)
    y = np.asarray(scen["y"], dtype=float)
    names = list(scen["feature_names"])
    groups = None if scen.get("groups") is None else np.asarray(scen["groups"]).astype(str)
    keep = np.all(np.isfinite(X), axis=1) & np.isfinite(y) & percent_safe(y)
    X, y = X[keep], y[keep]
    groups = None if groups is None else groups[keep]
    if len(y) < 3:
        raise NotEnoughDataError(f"Only {len(y)} measured workloads can train a model; at least 3 are needed.")

    proc = _Procedure(candidates, host_index, situation, seed, n_jobs, include_baseline)
    splits, _, _, scheme = splits_for(len(y), situation, groups, folds, seed)
    enough_per_fold(splits, y, groups, scheme, proc.situation, proc.fixed, seed)
    floor = conformal.log_floor(y)
    n_folds = len(splits)
    fold_of = np.empty(len(y), int)
    for k, (_, test) in enumerate(splits):
        fold_of[test] = k
    oof = np.empty(len(y))
    fold_models: list = [None] * n_folds
    chosen_in_folds: dict[str, int] = {}

    # outer folds: the procedure (fixed, or choose-then-fit) without the fold; each fold's model is kept to
    # predict the new workloads (CV+)
    if proc.fixed:
        m, t = proc.candidates[0]

        def fold_task(k):
            tr, te = splits[k]
            fitted = _fit(m, t, X[tr], y[tr], host_index, seed)
            return k, fitted, fitted.predict(X[te])

        for i, (k, fitted, p_te) in enumerate(map_unordered(fold_task, range(n_folds), n_jobs)):
            oof[splits[k][1]], fold_models[k] = p_te, fitted
            report(0.8 * (i + 1) / n_folds, f"fold {i + 1} of {n_folds} fitted ({scheme})")
        chosen, scored = proc.candidates[0], []
    else:
        share = 0.85 / (n_folds + 1)
        for k, (tr, te) in enumerate(splits):
            (m, t), _ = proc.choose(X[tr], y[tr], None if groups is None else groups[tr],
                                    lambda f, lab, k=k: report(share * (k + f), f"outer fold {k + 1} of {n_folds}: "
                                                                                f"choosing a model ({lab})"))
            lab = candidate_label(m, t)
            chosen_in_folds[lab] = chosen_in_folds.get(lab, 0) + 1
            fold_models[k] = _fit(m, t, X[tr], y[tr], host_index, seed)
            oof[te] = fold_models[k].predict(X[te])
        chosen, scored = proc.choose(X, y, groups, lambda f, lab: report(share * (n_folds + f),
                                                                          f"choosing on all workloads ({lab})"))
    m, t = chosen
    report(0.9, f"fitting {candidate_label(m, t)} on all {len(y)} workloads")
    full = _fit(m, t, X, y, host_index, seed)
    abs_r = np.abs(np.log(y) - conformal.to_log(oof, floor))
    cover = conformal.held_out_coverage(abs_r, fold_of, level, rule, groups)

    # the baseline beside it, through the same folds and rule
    base = {}
    if host_index is not None:
        b_models, b_oof = [None] * n_folds, np.empty(len(y))
        for k, (tr, te) in enumerate(splits):
            b_models[k] = _fit(BASELINE, "none", X[tr], y[tr], host_index, seed)
            b_oof[te] = b_models[k].predict(X[te])
        b_full = _fit(BASELINE, "none", X, y, host_index, seed)
        b_r = np.abs(np.log(y) - conformal.to_log(b_oof, floor))
        ratio_train = y / np.maximum(b_full.predict(X), floor)
        base = {"base_fold_models": b_models, "base_full": b_full, "base_abs_r": b_r,
                "base_cv": {**oof_scores(y, b_oof, floor),
                            "coverage": conformal.held_out_coverage(b_r, fold_of, level, rule, groups)},
                "base_ratio_range": (float(ratio_train.min()), float(ratio_train.max()))}
    selection = None
    if not proc.fixed:
        selection = {"chosen": candidate_label(m, t), "criterion": "mean |log error| of out-of-fold predictions",
                     "candidates": scored[:12] + [c for c in scored[12:] if c["model"] == BASELINE],
                     "n_candidates": len(scored), "chosen_in_folds": chosen_in_folds,
                     "note": trade_off(scored)}
    return Predictor(
        scenario=dict(scen.get("scenario") or {}), requested_model=model, requested_transform=transform,
        model=m, transform=t, level=level, situation=situation, rule=rule, scheme=scheme, n_folds=n_folds,
        names=names, floor=floor, fold_of=fold_of, abs_r=abs_r, groups=groups, fold_models=fold_models, full=full,
        cover=cover, cv_error=oof_scores(y, oof, floor),
        reference=applicability.reference(X, train_groups=groups, percentile=percentile),
        selection=selection, fit_seconds=time.perf_counter() - t0, **base)
