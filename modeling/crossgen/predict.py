"""Predict what was not measured: a cross-generation model fitted on every measured workload,
applied to workloads that have host counters and no target.

HALWPE's model usage (Fig. 3; Sec. V.D-E): the workloads run on both the
host and the next-generation simulator train the model; it then predicts the
next generation's time of the many workloads that were not simulated, from
their host counters alone. Here every prediction carries

* the model and transform that made it (a chosen model, or ``recommended``:
  chosen by nested cross-validation among the models *and* the host x median
  ratio baseline, :mod:`modeling.crossgen.recommend`), and its verdict against
  the baseline on the outer folds: a recommended model that does not beat the
  baseline there is replaced by it, and the result says so with both errors
  (:mod:`modeling.crossgen.versus_baseline`);
* an interval at a chosen level, conformal from the out-of-fold residuals of
  the same cross-validation (CV+ on the log scale,
  :mod:`modeling.intervals.conformal`), for the situation the user names:
  ``new-inputs`` (known applications at new inputs: random K-fold residuals)
  or ``new-applications`` (applications not in the training data:
  leave-one-application-out residuals, or grouped 10-fold above 20
  applications, each application weighing one), with the coverage and the
  median width such intervals reached on held-out folds; with too few
  held-out units to support the level, no bounds and a note saying why;
* the baseline's prediction and interval beside it;
* an applicability verdict (:mod:`modeling.crossgen.applicability`).

The targets of the workloads to predict are never read: they are not
passed in (:func:`new_workloads` reads only the feature, id and group
columns of a table).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from modeling.crossgen import applicability, racing, versus_baseline
from modeling.crossgen.ensemble import (
    ALL_MODELS,
    BASELINE,
    MODEL_FACTORIES,
    TRANSFORMS,
    resolve_models,
)
from modeling.crossgen.estimators import HostRatioBaseline, TargetTransformRegressor
from modeling.crossgen.prediction_folds import INNER_FOLDS, enough_per_fold, splits_for
from modeling.crossgen.prediction_result import (  # new_workloads: re-exported
    AUTO,
    RECOMMENDED,
    Prediction,
    PredictionChoice,
    new_workloads,  # noqa: F401
)
from modeling.crossgen.recommend import candidate_label, oof_scores, trade_off, transforms_for
from modeling.crossgen.situations import NEW_APPLICATIONS, NEW_INPUTS, SITUATIONS
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.intervals import conformal
from modeling.metrics import percent_safe
from modeling.parallel import map_unordered

#: How "recommended" searches the candidates (:mod:`modeling.crossgen.racing`): racing (drop a candidate once
#: beaten with confidence), bounded (stop a candidate once it cannot be the best: the exhaustive choice exactly),
#: every candidate in every inner fold, or ``auto``: racing for new inputs (random folds, many units: racing
#: drops most candidates early), bounded for new applications (folds over a few applications: racing drops little).
AUTO_SEARCH, RACE, BOUND, EXHAUSTIVE = "auto", "race", "bound", "exhaustive"
SEARCHES = (AUTO_SEARCH, RACE, BOUND, EXHAUSTIVE)

#: Default interval rule per situation (measured in benchmarks/predict_accuracy.py: see the README).
DEFAULT_RULES = {NEW_INPUTS: "pooled", NEW_APPLICATIONS: "held_out"}


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

    def __init__(self, candidates, host_index, situation, seed, n_jobs, include_baseline, search=AUTO_SEARCH):
        self.candidates = candidates  # list of (model, transform)
        self.host_index, self.situation, self.seed = host_index, situation, seed
        self.n_jobs, self.include_baseline = n_jobs, include_baseline
        if search not in SEARCHES:
            raise ConfigError(f"Unknown search {search!r}; use one of {', '.join(SEARCHES)}.")
        if search == AUTO_SEARCH:
            search = BOUND if situation == NEW_APPLICATIONS else RACE
        self.search = search

    @property
    def fixed(self) -> bool:
        return len(self.candidates) == 1 and not self.include_baseline

    def few_groups(self, groups) -> int | None:
        """The training applications when they are too few to judge a model against the baseline for new
        applications (:data:`versus_baseline.MIN_GROUPS`), else None."""
        if not self.include_baseline or self.situation != NEW_APPLICATIONS or groups is None:
            return None
        n = len(np.unique(groups))
        return n if versus_baseline.too_few(n) else None

    def choose(self, X, y, groups, progress=None, inner=True, hint=None) -> tuple[tuple[str, str], list, dict]:
        """The candidate to use on (X, y), the scored candidates and the race's counts
        (:func:`modeling.crossgen.racing.race`; ``self.search == "exhaustive"``: every candidate in every fold;
        ``"bound"``: a bounded search, in the order ``hint`` suggests)."""
        if self.fixed:
            return self.candidates[0], [], {}
        if inner and self.few_groups(groups) is not None:  # nothing to compare on: the baseline, unscored
            return (BASELINE, "none"), [], {}
        models = sorted({m for m, _ in self.candidates}, key=ALL_MODELS.index)
        transforms = [t for t in TRANSFORMS if any(tt == t for _, tt in self.candidates)]
        _, cv, k, _ = splits_for(len(y), self.situation, groups, INNER_FOLDS, self.seed, inner=True)
        scored, info = racing.race(X, y, models=models, transforms=transforms, host_index=self.host_index,
                                   groups=groups, cv=cv, folds=k, seed=self.seed,
                                   include_baseline=self.include_baseline, exhaustive=self.search == EXHAUSTIVE,
                                   bound=self.search == BOUND, hint=hint, progress=progress,
                                   pick_only=inner)  # an outer fold uses only the pick, not the list
        best = versus_baseline.pick(scored)
        if self.few_groups(groups) is not None:
            best = next(c for c in scored if c["model"] == BASELINE)
        return (best["model"], best["transform"]), scored, info


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


def _bounds(v: np.ndarray, supported: bool) -> list:
    """An interval bound per workload, or None for each when the data cannot support the level."""
    return v.tolist() if supported else [None] * len(v)


@dataclass
class Predictor:
    """Everything :func:`predict_scenario` fits, kept: the fold models (for CV+), the model fitted on every
    measured workload, the baseline beside it, the out-of-fold residuals and the applicability reference.
    :meth:`predict` then costs predictions and array work only (``benchmarks/predict_speed.py``). ``choice``
    (what was asked and chosen) is handed as it is to every :class:`Prediction`."""

    choice: PredictionChoice
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
    verdict: versus_baseline.BaselineVerdict | None = None
    fit_seconds: float = 0.0

    @property
    def n_train(self) -> int:
        return len(self.abs_r)

    @property
    def level(self) -> float:
        return self.choice.level

    @property
    def situation(self) -> str:
        return self.choice.situation

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
        supported = iv.level_supported >= level
        outside = ((point < iv.lower) | (point > iv.upper)) if supported else np.zeros(len(point), bool)
        for i in np.flatnonzero(outside):  # CV+ is centred on the fold models, the point is the full model's
            app.why[i] = "; ".join(filter(None, [app.why[i], (
                "the model fitted on all workloads predicts outside the interval of the models fitted without "
                "each fold: the model is unstable here")]))
        notes = [] if supported else [conformal.unsupported_note(level, iv.level_supported, rule != "pooled",
                                                                 self.situation == NEW_APPLICATIONS)]
        if self.situation == NEW_INPUTS and app.new_application.any():
            notes.append(f"{int(app.new_application.sum())} workload(s) belong to applications not in the training "
                         "data: their intervals come from random folds and do not describe them (see each row's "
                         "reason).")
        return Prediction(
            choice=self.choice, level_supported=iv.level_supported, interval_rule=rule,
            cv_scheme=self.scheme, cv_coverage=self.cover, cv_error=self.cv_error, baseline_cv=self.base_cv,
            n_train=self.n_train, feature_names=names, ids=[str(i) for i in new["workload_ids"]],
            groups=None if new_groups is None else new_groups.tolist(),
            predicted=point.tolist(), lower=_bounds(iv.lower, supported), upper=_bounds(iv.upper, supported),
            baseline=None if base is None else base.tolist(),
            baseline_lower=None if base_iv is None else _bounds(base_iv.lower, supported),
            baseline_upper=None if base_iv is None else _bounds(base_iv.upper, supported),
            applicable=app.applicable.tolist(), why=app.why, out_of_range=app.out_of_range,
            distance=app.distance.tolist(), distance_threshold=app.distance_threshold,
            distance_percentile=self.reference.percentile,
            ignored_columns=list(new.get("ignored") or []), skipped=list(new.get("skipped") or []),
            selection=self.selection, notes=notes, seconds=self.fit_seconds + time.perf_counter() - t0,
            verdict=self.verdict, interval_supported=supported)


def predict_scenario(scen: dict, new: dict | None = None, *, model: str = RECOMMENDED, transform: str = AUTO,
                     level: float = 0.9, situation: str = NEW_INPUTS, rule: str | None = None, seed: int = 0,
                     folds: int = 10, models="halwpe", percentile: float = 95.0, n_jobs: int = 1,
                     progress=None, search: str = AUTO_SEARCH) -> Prediction:
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
    rule : interval rule (:data:`modeling.intervals.conformal.RULES`); default per situation
    folds : K of the outer K-fold (new inputs; grouped K-fold above 20 applications)
    percentile : the applicability distance percentile
    n_jobs : worker processes; with ``recommended`` each outer fold's choice is one task
    progress : callable(fraction, label), optional
    search : how ``recommended`` searches its candidates (:data:`SEARCHES`): ``"race"`` (drop a candidate once
        beaten with confidence, :mod:`modeling.crossgen.racing`), ``"bound"`` (stop a candidate once it cannot be
        the best: the exhaustive choice), ``"exhaustive"`` (every candidate in every inner fold) or ``"auto"``
        (racing for new inputs, bounded for new applications)
    """
    new = new if new is not None else scen.get("unmeasured")
    _new_matrix(new, list(scen["feature_names"]))  # a table that cannot be predicted fails before any fit
    predictor = fit_predictor(scen, model=model, transform=transform, level=level, situation=situation, rule=rule,
                              seed=seed, folds=folds, models=models, percentile=percentile, n_jobs=n_jobs,
                              progress=progress, search=search)
    return predictor.predict(new, progress)


def fit_predictor(scen: dict, *, model: str = RECOMMENDED, transform: str = AUTO, level: float = 0.9,
                  situation: str = NEW_INPUTS, rule: str | None = None, seed: int = 0, folds: int = 10,
                  models="halwpe", percentile: float = 95.0, n_jobs: int = 1, progress=None,
                  search: str = AUTO_SEARCH) -> Predictor:
    """Fit what :func:`predict_scenario` needs on every measured workload of ``scen`` (same parameters)."""
    t0 = time.perf_counter()
    report = progress or (lambda frac, label: None)
    if situation not in SITUATIONS:
        raise ConfigError(f"Unknown situation {situation!r}; use one of {', '.join(SITUATIONS)}.")
    rule = rule or DEFAULT_RULES[situation]
    if rule not in conformal.RULES:
        raise ConfigError(f"Unknown interval rule {rule!r}; use one of {', '.join(conformal.RULES)}.")
    if situation == NEW_INPUTS and rule != "pooled":
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

    proc = _Procedure(candidates, host_index, situation, seed, n_jobs, include_baseline, search)
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
        chosen, scored, info = proc.candidates[0], [], {}
    else:
        # every outer fold's choice (an inner race on the fold's training rows) and the choice on all workloads
        # are independent tasks, spread over the workers; the one on all workloads (the largest) goes first. A
        # bounded search makes the choice on all workloads before the others: its errors per candidate and
        # application order the outer folds' searches (the order changes how soon a candidate stops, never the
        # choice, so the outer folds' applications still play no part in their choices)
        hint = None

        def choose_task(k):
            tr = np.arange(len(y)) if k is None else splits[k][0]
            pick, scored_k, info_k = proc.choose(X[tr], y[tr], None if groups is None else groups[tr],
                                                 inner=k is not None, hint=hint)
            if k is None:  # scored in full, for the page's list of candidates
                return k, pick, None, None, scored_k, info_k
            fitted = _fit(*pick, X[tr], y[tr], host_index, seed)
            return k, pick, fitted, fitted.predict(X[splits[k][1]]), scored_k, info_k

        chosen, scored, info, picks = None, [], {}, [None] * n_folds
        tasks = [None, *range(n_folds)]
        if proc.search == BOUND:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1):  # tall, narrow least squares: BLAS threads cost more than they save
                _, chosen, _, _, scored, info = choose_task(None)
            hint, tasks = {"male": info.get("male"), "unit_errors": info.get("unit_errors")}, tasks[1:]
            report(0.85 / (n_folds + 1), f"the choice on all workloads done: {candidate_label(*chosen)}")
        for i, (k, pick, fitted, p_te, scored_k, info_k) in enumerate(map_unordered(choose_task, tasks, n_jobs)):
            if k is None:
                chosen, scored, info = pick, scored_k, info_k
            else:
                picks[k], fold_models[k], oof[splits[k][1]] = candidate_label(*pick), fitted, p_te
            report(0.85 * (i + 1 + n_folds + 1 - len(tasks)) / (n_folds + 1),
                   f"{i + 1 + n_folds + 1 - len(tasks)} of {n_folds + 1} model choices done ({scheme}; "
                                                 f"the last: {'all workloads' if k is None else f'outer fold {k + 1}'}"
                                                 f", {candidate_label(*pick)})")
        for lab in picks:
            chosen_in_folds[lab] = chosen_in_folds.get(lab, 0) + 1
    m, t = chosen
    # the error quoted: for new applications each held-out set of whole applications weighs one, its workloads
    # equally, as a prediction's table weighs its rows (a large application does not stand for the others)
    units = fold_of if situation == NEW_APPLICATIONS else None
    cv_error = oof_scores(y, oof, floor, units)

    # the baseline beside it, through the same folds and rule; it replaces a recommended model that does not
    # beat it on these folds (modeling/crossgen/versus_baseline.py)
    base, verdict = {}, None
    if host_index is not None:
        b_models, b_oof = [None] * n_folds, np.empty(len(y))
        for k, (tr, te) in enumerate(splits):
            b_models[k] = _fit(BASELINE, "none", X[tr], y[tr], host_index, seed)
            b_oof[te] = b_models[k].predict(X[te])
        b_full = _fit(BASELINE, "none", X, y, host_index, seed)
        b_r = np.abs(np.log(y) - conformal.to_log(b_oof, floor))
        ratio_train = y / np.maximum(b_full.predict(X), floor)
        b_scores = oof_scores(y, b_oof, floor, units)
        base = {"base_fold_models": b_models, "base_full": b_full, "base_abs_r": b_r,
                "base_cv": {**b_scores, "coverage": conformal.held_out_coverage(b_r, fold_of, level, rule, groups)},
                "base_ratio_range": (float(ratio_train.min()), float(ratio_train.max()))}
        verdict = versus_baseline.verdict("choosing among the models" if m == BASELINE else candidate_label(m, t),
                                          cv_error, b_scores, scheme, may_fall_back=model == RECOMMENDED,
                                          chose_baseline=m == BASELINE, n_groups=proc.few_groups(groups))
        if verdict.baseline_used:
            m, t, oof, fold_models, cv_error = BASELINE, "none", b_oof, list(b_models), b_scores
    report(0.9, f"fitting {candidate_label(m, t)} on all {len(y)} workloads")
    full = base["base_full"] if m == BASELINE and base else _fit(m, t, X, y, host_index, seed)
    abs_r = np.abs(np.log(y) - conformal.to_log(oof, floor))
    cover = conformal.held_out_coverage(abs_r, fold_of, level, rule, groups)
    selection = None
    if not proc.fixed:
        # the candidates scored on every inner fold (those the race dropped were scored on fewer: not comparable)
        full_k = info.get("folds")
        whole = [c for c in scored if full_k is None or c.get("folds_scored", full_k) == full_k]
        picked = next((c for c in whole if c["label"] == candidate_label(m, t)), None)
        raced = racing.raced_note(scored, full_k, bound=proc.search == BOUND)
        note = " ".join(filter(None, [trade_off(whole, picked), raced]))
        selection = {"chosen": candidate_label(m, t), "criterion": "mean |log error| of out-of-fold predictions",
                     "candidates": whole[:12] + [c for c in whole[12:] if c["model"] == BASELINE],
                     "n_candidates": len(scored), "chosen_in_folds": chosen_in_folds, "search": proc.search,
                     "fits": info.get("fits"), "fits_exhaustive": info.get("fits_exhaustive"), "note": note}
    choice = PredictionChoice(dict(scen.get("scenario") or {}), model, transform, m, t if m != BASELINE else "none",
                              level, situation)
    return Predictor(
        choice=choice, rule=rule, scheme=scheme, n_folds=n_folds,
        names=names, floor=floor, fold_of=fold_of, abs_r=abs_r, groups=groups, fold_models=fold_models, full=full,
        cover=cover, cv_error=cv_error, verdict=verdict,
        reference=applicability.reference(X, train_groups=groups, percentile=percentile),
        selection=selection, fit_seconds=time.perf_counter() - t0, **base)
