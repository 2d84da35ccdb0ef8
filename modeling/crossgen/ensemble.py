"""The HALWPE / RastSim regression ensemble and its cross-validated evaluation.

Models (names as shown on leaderboards), after HALWPE Fig. 5 and RastSim Fig. 10:

 1. OLS                         2. NNLS
 3-6.  OLS/{Forward,Backward}/{AIC,BIC}
 7-10. NNLS/{Forward,Backward}/{AIC,BIC}
 11. Lasso   12. Lasso/NNLS   13. ElasticNet   14. ElasticNet/NNLS
 15. RandomForest (128 trees)

Presets: ``halwpe`` = models 1-12 and 15 (13 models), ``rastsim`` = all 15.

Evaluation: out-of-fold predictions from K-fold CV give E_out (RastSim eq. 3),
per-workload APE (eq. 4) and inlier ratios (eq. 5); a fit on all workloads gives
E_in and the number of selected features. Besides the papers' random K-fold,
grouped K-fold and leave-one-group-out keep all workloads of an application in
the same fold (random folds over inputs of one application flatter the error).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from modeling.crossgen.ensemble_results import EnsembleResult, ModelResult
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.metrics import THRESHOLDS, ape, inlier_ratios, percent_safe
from modeling.parallel import map_unordered, one_blas_thread
from modeling.crossgen.estimators import (
    ForestRegressor,
    HostRatioBaseline,
    NNLSRegressor,
    OLSRegressor,
    RegularizedRegressor,
    StepwiseRegressor,
    TargetTransformRegressor,
)


def _stepwise(fit_kind, direction, criterion):
    return lambda seed: StepwiseRegressor(fit_kind, direction, criterion)


MODEL_FACTORIES: dict[str, Callable[[int], object]] = {
    "OLS": lambda seed: OLSRegressor(),
    "NNLS": lambda seed: NNLSRegressor(),
    **{f"{fk.upper()}/{d.title()}/{c.upper()}": _stepwise(fk, d, c)
       for fk in ("ols", "nnls") for d in ("forward", "backward") for c in ("aic", "bic")},
    "Lasso": lambda seed: RegularizedRegressor("lasso", False, random_state=seed),
    "Lasso/NNLS": lambda seed: RegularizedRegressor("lasso", True, random_state=seed),
    "ElasticNet": lambda seed: RegularizedRegressor("elasticnet", False, random_state=seed),
    "ElasticNet/NNLS": lambda seed: RegularizedRegressor("elasticnet", True, random_state=seed),
    "RandomForest": lambda seed: ForestRegressor(128, random_state=seed),
}
ALL_MODELS = list(MODEL_FACTORIES)
PRESETS = {
    "halwpe": [m for m in ALL_MODELS if not m.startswith("ElasticNet")],
    "rastsim": ALL_MODELS,
}
CV_SCHEMES = ("kfold", "group", "logo")
TRANSFORMS = ("none", "log", "ratio", "logratio")
BASELINE = "Baseline (host x median ratio)"


def resolve_models(models) -> list[str]:
    """Turn a preset name or a list of model names into a list of model names."""
    if isinstance(models, str):
        if models in PRESETS:
            return list(PRESETS[models])
        models = [m.strip() for m in models.split(",") if m.strip()]
    unknown = [m for m in models if m not in MODEL_FACTORIES]
    if unknown:
        raise ConfigError(f"Unknown model(s) {', '.join(unknown)}; choose a preset "
                          f"({', '.join(PRESETS)}) or names from: {', '.join(ALL_MODELS)}.")
    if not models:
        raise ConfigError("No models selected.")
    return list(models)


def make_splits(n: int, cv: str = "kfold", folds: int = 10, groups=None, seed: int = 0):
    """Train/test index pairs for the outer evaluation.

    kfold: shuffled K-fold (the papers); group: K-fold over groups (GroupKFold,
    shuffled); logo: leave one group out.
    """
    from sklearn.model_selection import GroupKFold, KFold, LeaveOneGroupOut

    if cv not in CV_SCHEMES:
        raise ConfigError(f"Unknown CV scheme {cv!r}; use one of {', '.join(CV_SCHEMES)}.")
    idx = np.arange(n)
    if cv == "kfold":
        if not isinstance(folds, (int, np.integer)) or folds < 2:
            raise ConfigError(f"K-fold needs at least 2 folds, got {folds!r}.")
        if n < folds:
            raise NotEnoughDataError(f"{n} workloads are fewer than the {folds} CV folds; "
                                     f"use fewer folds or more workloads.")
        return list(KFold(folds, shuffle=True, random_state=seed).split(idx))
    if groups is None:
        raise ConfigError(f"CV scheme {cv!r} needs a group column (e.g. the application).")
    groups = np.asarray(groups)
    n_groups = len(np.unique(groups))
    if n_groups < 2:
        raise NotEnoughDataError(f"Grouped CV needs at least 2 groups; the data has {n_groups}. "
                                 "Use random K-fold, or a column with more groups.")
    if cv == "logo":
        return list(LeaveOneGroupOut().split(idx, groups=groups))
    if n_groups < folds:
        raise NotEnoughDataError(f"Grouped {folds}-fold cross-validation needs at least {folds} applications; the "
                                 f"data has {n_groups}. Choose leave-one-application-out, or {n_groups} folds "
                                 f"(command line: --cv logo, or --folds {n_groups}).")
    return list(GroupKFold(folds, shuffle=True, random_state=seed).split(idx, groups=groups))


def prepare(X, y, feature_names=None, workload_ids=None, groups=None, drop_constant=False,
            host_index=None):
    """Validate a scenario's table; drop rows whose target cannot carry a % error.

    Returns a dict with the cleaned arrays and what was excluded. Raises
    ``DataError`` with the offending column names for NaN/inf features or (unless
    ``drop_constant``) constant columns.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float).ravel()
    n, p = X.shape
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(p)]
    ids = list(workload_ids) if workload_ids is not None else [str(i) for i in range(n)]
    if len(names) != p or len(ids) != n or y.shape[0] != n:
        raise DataError("Features, target, names and ids disagree in size.")
    if p == 0:
        raise DataError("No feature columns: select at least one numeric feature.")
    bad = [names[j] for j in np.flatnonzero(~np.all(np.isfinite(X), axis=0))]
    if bad:
        raise DataError(f"Feature columns with NaN or infinite values: {', '.join(bad[:10])}"
                        f"{' …' if len(bad) > 10 else ''}. Clean them or leave them out.")
    if not np.all(np.isfinite(y)):
        raise DataError(f"The target has {int((~np.isfinite(y)).sum())} NaN or infinite values; "
                        "those workloads cannot be used.")
    keep = percent_safe(y)
    excluded = int((~keep).sum())
    X, y = X[keep], y[keep]
    ids = [i for i, k in zip(ids, keep) if k]
    if groups is not None:
        groups = np.asarray(groups)[keep]
    if len(y) < 3:
        raise NotEnoughDataError(f"Only {len(y)} workloads have a positive target "
                                 f"({excluded} excluded with target <= 0 or ~0); at least 3 are needed.")
    const = np.flatnonzero(np.ptp(X, axis=0) <= 1e-12 * np.maximum(np.abs(X).max(axis=0), 1e-300))
    dropped = [names[j] for j in const]
    if dropped and host_index is not None and host_index in const:
        raise DataError(f"The host metric column {names[host_index]!r} is constant.")
    if dropped and not drop_constant:
        raise DataError(f"Constant feature columns carry no information: {', '.join(dropped[:10])}"
                        f"{' …' if len(dropped) > 10 else ''}. Leave them out (or drop_constant=True).")
    if dropped:
        keep_cols = np.setdiff1d(np.arange(p), const)
        if host_index is not None:
            host_index = int(np.searchsorted(keep_cols, host_index))
        X = X[:, keep_cols]
        names = [names[j] for j in keep_cols]
        if X.shape[1] == 0:
            raise DataError("Every feature column is constant; nothing to learn from.")
    return dict(X=X, y=y, names=names, ids=ids, groups=groups, excluded=excluded,
                dropped=dropped, host_index=host_index)


def _wrap(est, transform, host_index):
    if transform == "none":
        return est
    return TargetTransformRegressor(est, transform, host_index)


def _fit_task(name, factory, X, y, train, test, transform, host_index, seed):
    """One unit of work: fit ``name`` on ``train`` and predict ``test``.

    ``test is None`` means the fit on all workloads (E_in, selected features).
    """
    t0 = time.perf_counter()
    tr = "none" if name == BASELINE else transform
    est = _wrap(factory(seed), tr, host_index).fit(X[train], y[train])
    if test is not None:
        return est.predict(X[test]), None, time.perf_counter() - t0
    inner = getattr(est, "estimator_", est)
    info = {"pred": est.predict(X), "n_selected": int(inner.n_selected_),
            "selected": [int(i) for i in inner.selected_], "steps": getattr(inner, "steps_", None)}
    return None, info, time.perf_counter() - t0


def _assemble(name, X, y, splits, parts) -> ModelResult:
    oof = np.empty_like(y)
    seconds = 0.0
    info = None
    for (fold, (pred, full, sec)) in parts:
        seconds += sec
        if fold is None:
            info = full
        else:
            oof[splits[fold][1]] = pred
    a = ape(y, oof)
    fold_errs = [float(np.mean(a[test])) for _, test in splits]
    return ModelResult(
        model=name, e_out=float(a.mean()), e_out_fold_mean=float(np.mean(fold_errs)),
        e_in=float(np.mean(ape(y, info["pred"]))), inlier_ratio=inlier_ratios(a, THRESHOLDS),
        n_selected=info["n_selected"], n_available=int(X.shape[1]), fit_seconds=seconds,
        oof_prediction=oof.tolist(), ape=a.tolist(), fold_e_out=fold_errs, selected=info["selected"],
        steps=info["steps"])


class FitPlan:
    """Every (model, fold) fit of one ensemble run, each computable on its own and anywhere.

    ``tasks`` lists them as ``(model, fold)`` (fold None: the fit on all workloads) in the order they are
    handed out: the forest first so that its many tasks spread over the workers instead of finishing last;
    then fold by fold, so that a worker running several models of one fold reuses their shared
    factorizations (``linear.fold_memo``). :meth:`fit` computes one, the same wherever it runs (a worker
    process, another machine): the plan is rebuilt there from the same scenario and options.
    """

    def __init__(self, X, y, splits, factories: dict, transform, host_index, seed):
        self.X, self.y, self.splits = X, y, splits
        self.factories, self.transform, self.host_index, self.seed = factories, transform, host_index, seed
        fold_ids = [*range(len(splits)), None]
        first = [n for n in factories if n == "RandomForest"]
        rest = [n for n in factories if n != "RandomForest"]
        self.tasks = [(n, k) for n in first for k in fold_ids] + [(n, k) for k in fold_ids for n in rest]
        self._all = np.arange(len(y))

    def fit(self, name: str, fold: int | None):
        """``(predictions of the fold's test rows or None, the all-workload fit's info or None, seconds)``."""
        with one_blas_thread():  # the same last digits in any process, on any machine (modeling.parallel)
            return self.fit_in_one_blas_thread(name, fold)

    def fit_in_one_blas_thread(self, name: str, fold: int | None):
        """:meth:`fit` for a caller that already runs in ``one_blas_thread()`` (a search fitting hundreds of
        candidates enters it once: entering it costs 5-20 ms, as much as a linear model's fit)."""
        if name not in self.factories or not (fold is None or 0 <= fold < len(self.splits)):
            raise ConfigError(f"No fit {name!r}, fold {fold} in this plan.")
        train, test = (self._all, None) if fold is None else self.splits[fold]
        return _fit_task(name, self.factories[name], self.X, self.y, train, test, self.transform,
                         self.host_index, self.seed)


def plan_fits(X, y, *, models="halwpe", cv="kfold", folds=10, groups=None, transform="none", host_index=None,
              seed=0, feature_names=None, workload_ids=None, drop_constant=False) -> tuple[FitPlan, dict]:
    """The fits of :func:`run_ensemble` (same parameters) and the prepared data (:func:`prepare`)."""
    names = resolve_models(models)
    if transform not in TRANSFORMS:
        raise ConfigError(f"Unknown transform {transform!r}; use one of {', '.join(TRANSFORMS)}.")
    if transform in ("ratio", "logratio") and host_index is None:
        raise ConfigError("The ratio transform needs the host's own metric column (--host-col).")
    d = prepare(X, y, feature_names, workload_ids, groups, drop_constant, host_index)
    splits = make_splits(len(d["y"]), cv, folds, d["groups"], seed)
    factories = {n: MODEL_FACTORIES[n] for n in names}
    if d["host_index"] is not None:
        factories[BASELINE] = lambda s, h=d["host_index"]: HostRatioBaseline(h)
    return FitPlan(d["X"], d["y"], splits, factories, transform, d["host_index"], seed), d


def run_ensemble(X, y, *, models="halwpe", cv="kfold", folds=10, groups=None, transform="none",
                 host_index=None, seed=0, feature_names=None, workload_ids=None, scenario=None,
                 drop_constant=False, n_jobs=1, progress=None, fit_runner=None) -> EnsembleResult:
    """Evaluate the ensemble on one scenario.

    Parameters
    ----------
    X : array, shape (n_workloads, n_features)
        Host-side features.
    y : array, shape (n_workloads,)
        Target metric on the target device (e.g. cycles per frame, duration).
    models : str or list of str
        Preset name (``halwpe``, ``rastsim``) or model names.
    cv : {"kfold", "group", "logo"}
    folds : int
        K for kfold/group.
    groups : array, shape (n_workloads,), optional
        Group (application) of each workload, for grouped CV.
    transform : {"none", "log", "ratio", "logratio"}
        Target transform; errors are always in target units.
    host_index : int, optional
        Column of X holding the host's own measure of the target metric (needed
        by the ratio transform and the baseline).
    seed : int
        Seeds the folds and every random model, so a shared link reproduces.
    n_jobs : int
        Worker processes; each (model, fold) fit is one task (1 = in this process).
    progress : callable(done, total, label), optional
        Called after each fit, with the number of fits done and in all, and a
        label "d of T fits done (last: name, fold f of K)": fits finish in parallel, out of order.
    fit_runner : callable(tasks, fit) -> iterable of (model, fold, output), optional
        Runs the fits elsewhere (``dashboard.jobs.fanout``: over every Celery worker): ``tasks`` are
        :attr:`FitPlan.tasks`, ``fit(model, fold)`` computes one here. Default: ``n_jobs`` forked
        processes. The result is the same either way (each fit is deterministic; the assembly does not
        depend on the order).
    """
    t0 = time.perf_counter()
    plan, d = plan_fits(X, y, models=models, cv=cv, folds=folds, groups=groups, transform=transform,
                        host_index=host_index, seed=seed, feature_names=feature_names, workload_ids=workload_ids,
                        drop_constant=drop_constant)
    names = resolve_models(models)
    X, y, splits, tasks = plan.X, plan.y, plan.splits, plan.tasks
    parts: dict[str, list] = {n: [] for n in plan.factories}
    per_model = len(splits) + 1

    def tagged(task):
        n, k = task
        return n, k, plan.fit(n, k)

    outputs = map_unordered(tagged, tasks, n_jobs) if fit_runner is None else fit_runner(tasks, plan.fit)
    results_by_name = {}
    outputs = iter(outputs)
    try:
        for n, k, out in outputs:
            parts[n].append((k, out))
            if len(parts[n]) == per_model:
                results_by_name[n] = _assemble(n, X, y, splits, parts[n])
            if progress:
                where = "fit on all workloads" if k is None else f"fold {k + 1} of {len(splits)}"
                done = sum(len(v) for v in parts.values())
                # fits finish in parallel and out of order: count what is done, name the last one
                progress(done, len(tasks), f"{done} of {len(tasks)} fits done (last: {n}, {where})")
    finally:  # a consumer that stops early (cancelled, abandoned) ends the fits at once
        getattr(outputs, "close", lambda: None)()
    results = [results_by_name[n] for n in plan.factories]
    baseline = next((r for r in results if r.model == BASELINE), None)
    models_res = [r for r in results if r.model != BASELINE]
    scen = dict(scenario or {})
    scen.update(models=names, cv=cv, folds=len(splits), transform=transform, seed=seed)
    return EnsembleResult(
        scenario=scen, n_workloads=len(y), n_features=X.shape[1], feature_names=d["names"],
        workload_ids=d["ids"], groups=None if d["groups"] is None else [str(g) for g in d["groups"]],
        observed=y.tolist(), baseline=baseline, models=models_res, excluded_rows=d["excluded"],
        dropped_constant=d["dropped"], seconds=time.perf_counter() - t0)


# ------------------------------------------------------------------ a scenario dict in, a result out
# A scenario dict (``modeling.shipped.scenario``, ``modeling.tables.workload.table_scenario``) holds X, y,
# feature_names, workload_ids, groups, host_index, scenario (what it is) and optionally categories.

def prepare_scenario(scen: dict) -> dict:
    """:func:`prepare` on a scenario dict, constant columns dropped (as the ensemble does)."""
    return prepare(scen["X"], scen["y"], scen["feature_names"], scen["workload_ids"], scen["groups"], True,
                   scen["host_index"])


def scenario_plan(scen: dict, **options) -> FitPlan:
    """The :class:`FitPlan` of :func:`run_scenario` with the same options (models, cv, folds, transform, seed):
    what a worker elsewhere rebuilds to compute some of the fits."""
    keep = {k: options[k] for k in ("models", "cv", "folds", "transform", "seed") if k in options}
    plan, _ = plan_fits(scen["X"], scen["y"], groups=scen["groups"], host_index=scen["host_index"],
                        feature_names=scen["feature_names"], workload_ids=scen["workload_ids"], drop_constant=True,
                        **keep)
    return plan


def run_scenario(scen: dict, **options) -> EnsembleResult:
    """:func:`run_ensemble` on a scenario dict; ``options`` are its keyword options (models, cv, folds,
    transform, seed, n_jobs, progress)."""
    return run_ensemble(scen["X"], scen["y"], groups=scen["groups"], host_index=scen["host_index"],
                        feature_names=scen["feature_names"], workload_ids=scen["workload_ids"],
                        scenario=scen["scenario"], drop_constant=True, **options)


def categories_of(scen: dict, names: list) -> list | None:
    """The category of each feature in ``names`` (a subset of the scenario's), or None when it has none."""
    if not scen.get("categories"):
        return None
    cmap = dict(zip(scen["feature_names"], scen["categories"]))
    return [cmap.get(n) for n in names]
