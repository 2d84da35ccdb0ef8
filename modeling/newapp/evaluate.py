"""Held-out evaluation of the unseen-application estimates: leave one application (or kernel) out.

In each fold the held-out group's workloads are estimated from the other
groups only: the naive ratios and the models learn from them, the roofline
needs nothing, and one-run calibration also uses ``calibrate_with`` measured
inputs of each held-out kernel (scored on that kernel's *other* inputs).

The HALWPE models (any of :data:`modeling.crossgen.ensemble.MODEL_FACTORIES`)
and a gradient-boosting regressor learn log(target / host) from the host
counters, so they extrapolate a ratio, not a time.
"""

from __future__ import annotations

import time

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

from modeling.crossgen.ensemble import MODEL_FACTORIES, PRESETS
from modeling.crossgen.estimators import TargetTransformRegressor
from modeling.errors import ConfigError, NotEnoughDataError
from modeling.metrics import ape
from modeling.parallel import map_unordered
from modeling.newapp import estimators as est
from modeling.newapp.results import HeldOutEvaluation, MethodResult
from modeling.newapp.warnings import warnings_for

CV_SCHEMES = {"logo": "leave one application out", "loko": "leave one kernel out"}
GRADIENT_BOOSTING = "GradientBoosting"
MODEL_CHOICES = [*MODEL_FACTORIES, GRADIENT_BOOSTING]
#: the default models beside the estimates: the HALWPE preset and gradient boosting
DEFAULT_MODELS = [*PRESETS["halwpe"], GRADIENT_BOOSTING]
NAIVE = ("naive-pooled", "naive-balanced")


def resolve(models) -> list[str]:
    if models in (None, "halwpe", "default"):
        return list(DEFAULT_MODELS)
    if models in ("none", ""):
        return []
    names = [m.strip() for m in models.split(",")] if isinstance(models, str) else list(models)
    bad = [m for m in names if m not in MODEL_CHOICES]
    if bad:
        raise ConfigError(f"Unknown model(s) {', '.join(bad)}; choose from {', '.join(MODEL_CHOICES)}.")
    return names


def _factory(name, seed):
    if name == GRADIENT_BOOSTING:
        return GradientBoostingRegressor(random_state=seed)
    return MODEL_FACTORIES[name](seed)


def _fit_predict(task):
    name, X, host_index, ytr, train, test, seed = task
    model = TargetTransformRegressor(_factory(name, seed), "logratio", host_index)
    # drop columns constant on the training rows (the linear models refuse them)
    keep = np.ptp(X[train], axis=0) > 1e-12 * np.maximum(np.abs(X[train]).max(axis=0), 1e-300)
    keep[host_index] = True
    hi = int(np.flatnonzero(keep).tolist().index(host_index))
    model.host_index = hi
    model.fit(X[train][:, keep], ytr)
    return name, test, model.predict(X[test][:, keep])


def model_predictions(table, folds, models, seed=0, n_jobs=1, progress=None) -> dict:
    """Out-of-group predictions of each model: {model: array over the table (NaN outside the folds)}."""
    out = {m: np.full(len(table.host), np.nan) for m in models}
    tasks = [(m, table.X, table.host_index, table.target[tr], tr, te, seed) for m in models for tr, te in folds]
    done = 0
    for name, test, pred in map_unordered(_fit_predict, tasks, n_jobs):
        out[name][test] = pred
        done += 1
        if progress:
            progress(done, len(tasks), f"{done} of {len(tasks)} model fits done (last: {name})")
    return out


def group_folds(table, cv: str, measured) -> tuple[np.ndarray, list]:
    """(labels, [(train rows, test rows)]) for LOGO (applications) or LOKO (kernels); train rows are the
    other groups' measured workloads."""
    if cv not in CV_SCHEMES:
        raise ConfigError(f"Unknown scheme {cv!r}; use {' or '.join(CV_SCHEMES)}.")
    labels = table.groups if cv == "logo" else table.kernels
    uniq = np.unique(labels[measured])
    if len(uniq) < 2:
        raise NotEnoughDataError(f"{CV_SCHEMES[cv].capitalize()} needs at least two groups with measured "
                                 f"targets; the table has {len(uniq)}.")
    folds = []
    for g in uniq:
        test = np.flatnonzero(labels == g)
        train = np.flatnonzero(measured & (labels != g))
        folds.append((train, test))
    return labels, folds


def fold_estimates(table, train, test, calibrate_with=1, calibration=None) -> list:
    """The spec and ratio estimates for ``test`` rows learned from ``train`` rows.

    ``calibration``: {kernel: [(row, measured target)]} overrides the automatic choice of calibrating
    inputs (the page's "I measured this one"). Returns a list of :class:`~est.Estimate` over ``test``;
    one-run is NaN for kernels without a calibration and for the calibrating rows themselves
    (``detail["calibrating_rows"]``).
    """
    ratio = table.target[train] / table.host[train]
    host = table.host[test]
    out = [est.naive(ratio, table.kernels[train], host), est.naive(ratio, table.kernels[train], host, True)]
    try:
        out.append(est.roofline(table.subset(test)))
    except LookupError as e:
        out.append(est.Estimate("roofline", np.full(len(test), np.nan), np.full(len(test), np.nan),
                                np.full(len(test), np.nan), {"missing": str(e)}))
    spread = est.within_kernel_spread(ratio, table.kernels[train])
    point, lo, hi = (np.full(len(test), np.nan) for _ in range(3))
    cal_rows, per_kernel = [], {}
    for k in np.unique(table.kernels[test]):
        rows = np.flatnonzero(table.kernels[test] == k)
        if calibration is not None:
            given = calibration.get(k) or []
            if not given:
                continue
            pos = {int(r): i for i, r in enumerate(test)}
            cal = np.array([pos[r] for r, _ in given])
            cal_t = np.array([t for _, t in given], float)
        else:
            measured = rows[np.isfinite(table.target[test][rows])]
            if len(measured) <= calibrate_with or calibrate_with < 1:
                continue
            cal = measured[est.calibration_points(host[measured], calibrate_with)]
            cal_t = table.target[test][cal]
        e = est.one_run(host[rows], host[cal], cal_t, spread)
        point[rows], lo[rows], hi[rows] = e.point, e.lo, e.hi
        point[cal], lo[cal], hi[cal] = np.nan, np.nan, np.nan
        cal_rows += [int(test[c]) for c in cal]
        per_kernel[k] = e.detail
    out.append(est.Estimate("one-run", point, lo, hi, {"calibrating_rows": cal_rows, "kernels": per_kernel,
                                                       "spread": spread}))
    return out


def evaluate(table, cv="logo", calibrate_with=1, models=None, seed=0, n_jobs=1, progress=None,
             model_preds: dict | None = None) -> HeldOutEvaluation:
    """Every estimate held out by ``cv``; errors against the measured targets.

    Returns a :class:`~modeling.newapp.results.HeldOutEvaluation`: each method's scores over every held-out
    workload and per held-out group, the warnings per held-out group, the rows (per workload: id,
    application, kernel, host, measured and each method's point/lo/hi) and what was held out.
    ``model_preds``: the models' out-of-group predictions on these folds (:func:`model_predictions`) when the
    caller has them already.
    """
    t0 = time.perf_counter()
    models = resolve(models)
    measured = np.isfinite(table.target)
    labels, folds = group_folds(table, cv, measured)
    n = len(table.host)
    preds = {}

    def put(e, test):
        p = preds.setdefault(e.method, {"point": np.full(n, np.nan), "lo": np.full(n, np.nan),
                                        "hi": np.full(n, np.nan), "detail": {}})
        p["point"][test], p["lo"][test], p["hi"][test] = e.point, e.lo, e.hi
        if e.detail and "missing" in e.detail:
            p["detail"]["missing"] = e.detail["missing"]

    warnings = {}
    for train, test in folds:
        ests = fold_estimates(table, train, test, calibrate_with)
        for e in ests:
            put(e, test)
        warnings[str(labels[test[0]])] = warnings_for(table, train, test, {e.method: e.point for e in ests})
    if model_preds is None:
        model_preds = model_predictions(table, folds, models, seed, n_jobs, progress) if models else {}
    mp = model_preds
    if mp:
        stack = np.vstack(list(mp.values()))
        lo, hi = np.nanmin(stack, axis=0), np.nanmax(stack, axis=0)
        for m, p in mp.items():
            preds[m] = {"point": p, "lo": lo, "hi": hi, "detail": {}}
    y = table.target
    methods = []
    for m, p in preds.items():
        a = np.full(n, np.nan)
        ok = measured & np.isfinite(p["point"])
        a[ok] = ape(y[ok], p["point"][ok])
        methods.append(MethodResult.from_errors(m, "model" if m in mp else "estimate", a, labels,
                                                missing=p["detail"].get("missing")))
    rows = [{"id": table.ids[i], "application": str(table.groups[i]), "kernel": str(table.kernels[i]),
             "host": float(table.host[i]), "measured": float(y[i]) if measured[i] else None,
             **{f"{m}|{k}": (float(p[k][i]) if np.isfinite(p[k][i]) else None)
                for m, p in preds.items() for k in ("point", "lo", "hi")}} for i in range(n)]
    return HeldOutEvaluation({**table.scenario, "cv": cv, "calibrate_with": calibrate_with, "seed": seed,
                              "models": models}, CV_SCHEMES[cv], int(measured.sum()), table.excluded,
                             [str(g) for g in np.unique(labels[measured])], methods, warnings, rows,
                             time.perf_counter() - t0)
