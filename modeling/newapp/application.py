"""One application held out: every estimate for its workloads, with ranges, errors and warnings."""

from __future__ import annotations

import time

import numpy as np

from modeling.errors import ConfigError, DataError
from modeling.metrics import ape
from modeling.newapp.evaluate import fold_estimates, model_predictions, resolve
from modeling.newapp.results import ApplicationEstimate, MethodResult
from modeling.newapp.warnings import warnings_for


def calibration_rows(table, test, picks: list[dict]) -> dict:
    """Validate calibration picks [{id, time?}] for the held-out rows: {kernel: [(row, target value)]}.

    ``time`` (target units) is a value the user measured; without it the table's measured target of that
    workload is used. Raises ``DataError`` naming the problem.
    """
    where = {table.ids[r]: int(r) for r in test}
    out: dict = {}
    for p in picks:
        wid = p.get("id")
        if wid not in where:
            raise DataError(f"Workload {str(wid)[:60]!r} is not in the held-out application.")
        r = where[wid]
        t = p.get("time")
        if t is None:
            t = table.target[r]
            if not np.isfinite(t):
                raise DataError(f"{wid} has no measured target time: type the time you measured.")
        t = float(t)
        if not np.isfinite(t) or t <= 0:
            raise DataError(f"The measured time of {wid} must be a positive number.")
        out.setdefault(str(table.kernels[r]), []).append((r, t))
    return out


def estimate_application(table, application: str, calibrate: list[dict] | None = None, models=None,
                         seed: int = 0, n_jobs: int = 1, progress=None, model_preds: dict | None = None
                         ) -> ApplicationEstimate:
    """Estimate ``application``'s workloads from the other applications (never from its own targets,
    except the calibrating inputs in ``calibrate``): an :class:`~modeling.newapp.results.ApplicationEstimate`.
    ``model_preds``: the models' predictions over the table from leave-one-application-out folds, when the
    caller has them already."""
    t0 = time.perf_counter()
    if application not in table.applications:
        raise ConfigError(f"Unknown application {application!r}; the table has {', '.join(table.applications)}.")
    models = resolve(models)
    measured = np.isfinite(table.target)
    test = np.flatnonzero(table.groups == application)
    train = np.flatnonzero(measured & (table.groups != application))
    if len(np.unique(table.kernels[train])) < 1 or len(train) < 2:
        raise DataError("The other applications have fewer than two measured workloads to learn from.")
    cal = calibration_rows(table, test, calibrate or [])
    ests = fold_estimates(table, train, test, calibration=cal)
    by = {e.method: e for e in ests}
    if model_preds is None:
        model_preds = model_predictions(table, [(train, test)], models, seed, n_jobs, progress) if models else {}
    mp = model_preds
    y = table.target[test]
    ok = np.isfinite(y)

    def score(point, exclude=()):
        a = np.full(len(test), np.nan)
        m = ok & np.isfinite(point)
        m[list(exclude)] = False
        a[m] = ape(y[m], point[m])
        return a

    methods, bands = [], {}
    cal_pos = [int(np.flatnonzero(test == r)[0]) for r in by["one-run"].detail["calibrating_rows"]]
    model_stack = np.vstack([p[test] for p in mp.values()]) if mp else None
    for name, e in by.items():
        detail = e.detail or {}
        methods.append(MethodResult.from_errors(
            name, "estimate", score(e.point, cal_pos), missing=detail.get("missing"),
            ratio=detail["ratio"] if name in ("naive-pooled", "naive-balanced") else None,
            classes=tuple(detail["class"]) if name == "roofline" and "class" in detail else None))
        bands[name] = (e.point, e.lo, e.hi)
    for name, p in mp.items():
        methods.append(MethodResult.from_errors(name, "model", score(p[test])))
        bands[name] = (p[test], np.nanmin(model_stack, axis=0), np.nanmax(model_stack, axis=0))
    warns = warnings_for(table, train, test, {m.method: bands[m.method][0] for m in methods if m.kind == "estimate"})
    rows = []
    for i, r in enumerate(test):
        row = {"id": table.ids[r], "kernel": str(table.kernels[r]), "host": float(table.host[r]),
               "measured": float(y[i]) if ok[i] else None, "calibrating": i in cal_pos}
        for name, band in bands.items():
            for k, v in zip(("point", "lo", "hi"), band):
                row[f"{name}|{k}"] = float(v[i]) if np.isfinite(v[i]) else None
        rows.append(row)
    return ApplicationEstimate({**table.scenario, "application": application, "models": models, "seed": seed},
                               application, len(test), int(ok.sum()),
                               sorted(np.unique(table.groups[train]).tolist()), len(train),
                               {k: [table.ids[r] for r, _ in v] for k, v in cal.items()},
                               by["one-run"].detail["kernels"], by["one-run"].detail["spread"], methods, warns,
                               rows, time.perf_counter() - t0)
