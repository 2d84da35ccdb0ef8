"""Held-out programs: LACross beside the global model and the baselines on the same program-grouped folds.

Models (names as in the JSON):

* ``lacross``: per-phase neighbourhood models (eq. 4.1), eps and T chosen by program-grouped CV on the
  training programs only (or fixed);
* ``global``: eps = every training phase (one simplex-constrained model), T by the same CV;
* ``nnls-baseline``: non-negative least squares on all training phases (no l1 bound);
* ``ratio-baseline``: the host's own measure (cycles, or power) x the median training target/host ratio
  over phases;
* ``program-ratio``: the host's own measure x the median over training programs of the whole-program
  target/host ratio (cycles: total / total; power: average / average), the naive answer for a program
  (:func:`program_ratio`);
* ``mean-baseline``: the training phases' mean target.

Errors: per-phase MAPE over every held-out phase; per run of a held-out program, the whole-run error (the
``programs`` rows, "whole-program" in the JSON's names): cycles summed over its phases and its edges (the
first and last samples, :mod:`modeling.build.armpm`), so the total is the run's; power as the run's average
power (target energy / target time for the measurement, the host-time-weighted mean of the predicted phase
powers for a model). A program with several runs at the pair (repeats, or runs on 1 and 2 cores) has one row
per run: a prediction is made for one run, so it is judged per run; summing runs would let the errors of a
1-core and a 2-core run cancel. The folds still hold out whole programs. The edges are predicted like phases
but never trained on nor counted in the per-phase MAPE.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
from sklearn.model_selection import GroupKFold

from modeling.build import armpm
from modeling.errors import ConfigError, NotEnoughDataError
from modeling.phases.results import PhaseEvaluation, PhaseModelScore
from modeling.phases.data import HOST_OF_TARGET, TARGETS, design
from modeling.phases.model import nnls_fit, predict

EPS_GRID = (25.0, 50.0, 100.0)
T_GRID = (0.5, 1.0, 2.0, math.inf)
MODELS = ("lacross", "global", "nnls-baseline", "ratio-baseline", "program-ratio", "mean-baseline")
SEARCHES = ("best", "first-below-5")
#: the models in words (what results and the page say)
LABELS = {"lacross": "LACross", "global": "global model", "nnls-baseline": "NNLS baseline",
          "ratio-baseline": "host x median per-phase ratio", "program-ratio": "host x median whole-program ratio",
          "mean-baseline": "training mean"}


def _folds(programs, k, seed):
    uniq = np.unique(programs)
    k = min(k, len(uniq))
    if k < 2:
        raise NotEnoughDataError(f"Held-out programs need at least 2 programs; the table has {len(uniq)}.")
    return list(GroupKFold(k, shuffle=True, random_state=seed).split(programs, groups=programs))


def run_keys(phases: pd.DataFrame) -> list[str]:
    """The columns naming one run of a program in a phase table: ``program``, ``host_run`` when present, and
    the run's configuration (e.g. ``cores``, :func:`modeling.build.armpm.config_columns`)."""
    if "host_run" not in phases.columns:
        return ["program"]
    return ["program", "host_run", *armpm.config_columns(phases)]


def _plain(k, v):
    if k == "program":
        return str(v)
    return v.item() if hasattr(v, "item") else v


def program_ratio(train: pd.DataFrame, target: str) -> float:
    """The median over ``train``'s runs (:func:`run_keys`) of target / host for the whole run: cycles summed
    over its phases; power as the time-weighted average (target energy / target time, host energy / host
    time)."""
    keys = run_keys(train)
    if target == "cycles":
        g = train.groupby(keys)[[TARGETS[target], HOST_OF_TARGET[target]]].sum()
        return float(np.median(g[TARGETS[target]] / g[HOST_OF_TARGET[target]]))
    df = pd.DataFrame({**{k: train[k].to_numpy() for k in keys},
                       "te": (train["target_power_w"] * train["target_time_s"]).to_numpy(float),
                       "tt": train["target_time_s"].to_numpy(float),
                       "he": (train["host_power_w"] * train["host_time_s"]).to_numpy(float),
                       "ht": train["host_time_s"].to_numpy(float)})
    g = df.groupby(keys)[["te", "tt", "he", "ht"]].sum()
    return float(np.median((g["te"] / g["tt"]) / (g["he"] / g["ht"])))


def fill_edges(phases: pd.DataFrame, pred: np.ndarray, target: str) -> np.ndarray:
    """``pred`` with each run's edges (:func:`modeling.build.armpm.is_edge`) predicted at the run's own
    predicted target / host ratio over its phases (cycles: totals; power: time-weighted averages). An edge is
    a partial sample (a first sample may retire few instructions): its own rates are no phase's, so the model
    is not asked about it; the run's total then covers the whole run."""
    edge = armpm.is_edge(phases)
    if not edge.any():
        return pred
    pred = np.array(pred, float)
    host = phases[HOST_OF_TARGET[target]].to_numpy(float)
    ht = phases["host_time_s"].to_numpy(float)
    keys = run_keys(phases)
    for _, idx in phases.groupby(keys, sort=False, dropna=False).indices.items():
        idx = np.asarray(idx)
        core, edges = idx[~edge[idx]], idx[edge[idx]]
        if not len(edges) or not len(core) or not np.isfinite(pred[core]).all():
            continue
        if target == "cycles":
            ratio = pred[core].sum() / host[core].sum()
        else:
            ratio = (np.sum(pred[core] * ht[core]) / np.sum(ht[core])) / (np.sum(host[core] * ht[core])
                                                                          / np.sum(ht[core]))
        pred[edges] = host[edges] * ratio
    return pred


def _mape(y, p):
    return float(np.mean(100 * np.abs(p - y) / np.abs(y)))


def tune(train: pd.DataFrame, target: str, features: str, norm: str, eps_grid, t_grid, seed: int,
         search: str = "best", inner_folds: int = 3, cache_l: float = 0.0) -> tuple[float, float, float]:
    """(eps_pct, t_factor, inner CV MAPE) by program-grouped CV on ``train`` only.

    ``search="best"``: the lowest inner error; ``"first-below-5"``: the paper's loop, the first setting
    (grid order) whose inner error is below 5 %, else the best.
    """
    y = train[TARGETS[target]].to_numpy(float)
    folds = _folds(train["program"].to_numpy(), inner_folds, seed + 1)
    designs = [(design(train.iloc[tr], train.iloc[te], norm, features), y[tr], y[te]) for tr, te in folds]
    best = None
    for e in eps_grid:
        for t in t_grid:
            err = np.mean([_mape(yte, predict(d.X, ytr, d.V, e, t, cache_l=cache_l, seed=seed).pred)
                           for d, ytr, yte in designs])
            if best is None or err < best[2]:
                best = (e, t, float(err))
            if search == "first-below-5" and err < 5.0:
                return e, t, float(err)
    return best


def _program_errors(test: pd.DataFrame, target: str, pred: np.ndarray) -> pd.DataFrame:
    """One row per run (:func:`run_keys`): measured and predicted whole-run value and the error (%)."""
    keys = run_keys(test)
    df = test[keys].assign(pred=pred, y=test[TARGETS[target]].to_numpy(float),
                                  ht=test["host_time_s"].to_numpy(float),
                                  te=(test["target_power_w"] * test["target_time_s"]).to_numpy(float),
                                  tt=test["target_time_s"].to_numpy(float))
    rows = []
    for key, g in df.groupby(keys, sort=True, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        if target == "cycles":
            actual, predicted = g["y"].sum(), g["pred"].sum()
        else:
            actual = g["te"].sum() / g["tt"].sum()
            predicted = (g["pred"] * g["ht"]).sum() / g["ht"].sum()
        rows.append({**{k: _plain(k, v) for k, v in zip(keys, key)},
                     "actual": float(actual), "predicted": float(predicted),
                     "ape": float(100 * abs(predicted - actual) / abs(actual))})
    return pd.DataFrame(rows)


def evaluate(phases: pd.DataFrame, target: str = "cycles", features: str = "counters", norm: str = "z",
             eps="cv", t="cv", folds: int = 5, seed: int = 0, cache_l: float = 0.0, search: str = "best",
             models=MODELS, progress=None) -> PhaseEvaluation:
    """Every model on the same held-out-program folds (module docstring)."""
    if target not in TARGETS:
        raise ConfigError(f"Unknown target {target!r}; use cycles or power.")
    if search not in SEARCHES:
        raise ConfigError(f"Unknown search {search!r}; use {' or '.join(SEARCHES)}.")
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ConfigError(f"Unknown model(s) {', '.join(bad)}; choose from {', '.join(MODELS)}.")
    t0 = time.perf_counter()
    phases = phases.reset_index(drop=True)
    edge = armpm.is_edge(phases)
    y = phases[TARGETS[target]].to_numpy(float)
    host_metric = phases[HOST_OF_TARGET[target]].to_numpy(float)
    outer = _folds(phases["program"].to_numpy(), folds, seed)
    preds = {m: np.full(len(phases), np.nan) for m in models}
    fallback = np.zeros(len(phases), bool)
    chosen, hit, solve_s, n_lacross = [], [], 0.0, 0
    eps_grid = EPS_GRID if eps == "cv" else (float(eps),)
    t_grid = T_GRID if t == "cv" else (float(t),)
    for k, (tr, te) in enumerate(outer):
        tr, te = tr[~edge[tr]], te[~edge[te]]  # a run's edges: never trained on, predicted by fill_edges
        train, test = phases.iloc[tr], phases.iloc[te]
        d = design(train, test, norm, features)
        ytr = y[tr]
        if "lacross" in models:
            e_, t_, err = tune(train, target, features, norm, eps_grid, t_grid, seed, search, cache_l=cache_l) \
                if len(eps_grid) * len(t_grid) > 1 else (eps_grid[0], t_grid[0], None)
            p = predict(d.X, ytr, d.V, e_, t_, cache_l=cache_l, seed=seed)
            preds["lacross"][te] = p.pred
            fallback[te] = p.fallback
            hit.append((p.hit_rate, len(te)))
            solve_s += p.seconds
            n_lacross += len(te)
            chosen.append({"fold": k, "eps_pct": e_, "t_factor": None if math.isinf(t_) else t_, "inner_mape": err})
        if "global" in models:
            _, tg, _ = tune(train, target, features, norm, (100.0,), t_grid, seed, search) \
                if len(t_grid) > 1 else (100.0, t_grid[0], None)
            preds["global"][te] = predict(d.X, ytr, d.V, 100.0, tg).pred
        if "nnls-baseline" in models:
            preds["nnls-baseline"][te] = d.V @ nnls_fit(d.X, ytr)
        if "ratio-baseline" in models:
            preds["ratio-baseline"][te] = host_metric[te] * np.median(ytr / host_metric[tr])
        if "program-ratio" in models:
            preds["program-ratio"][te] = host_metric[te] * program_ratio(train, target)
        if "mean-baseline" in models:
            preds["mean-baseline"][te] = ytr.mean()
        if progress:
            progress(k + 1, len(outer), f"fold {k + 1} of {len(outer)} done")
    preds = {m: fill_edges(phases, p, target) for m, p in preds.items()}
    out_models, per_program = [], {}
    for m, p in preds.items():
        pe = _program_errors(phases, target, p)
        per_program[m] = pe
        out_models.append(PhaseModelScore(m, _mape(y[~edge], p[~edge]), float(pe["ape"].mean()),
                                          float(pe["ape"].max())))
    programs = []
    first = per_program[models[0]]
    keys = run_keys(phases)
    for i in range(len(first)):
        row = {k: _plain(k, first[k].iloc[i]) for k in keys}
        row["actual"] = float(first["actual"].iloc[i])
        for m in models:
            row[f"{m}|predicted"] = float(per_program[m]["predicted"].iloc[i])
            row[f"{m}|ape"] = float(per_program[m]["ape"].iloc[i])
        programs.append(row)
    total_hit = sum(h * n for h, n in hit) / max(sum(n for _, n in hit), 1)
    return PhaseEvaluation(
        target=target, features=features, norm=norm, folds=len(outer), seed=seed,
        n_programs=int(phases["program"].nunique()), n_phases=int((~edge).sum()), unique_hit_rate=float(total_hit),
        cache_l=cache_l, phases_per_second=float(n_lacross / solve_s) if solve_s > 0 else None,
        fallback_phases=int(fallback.sum()), chosen=chosen, models=out_models, programs=programs,
        phase_predictions={m: [None if not np.isfinite(v) else float(v) for v in p] for m, p in preds.items()},
        seconds=time.perf_counter() - t0)
