"""Replay: pretend only part of the measured workloads is known, plan, reveal, score.

On a table whose workloads all have a measured target, :func:`replay` draws a random start, then for each
round fits the model on what is "simulated" (:mod:`modeling.plan.assess`), scores its predictions on the
workloads not simulated (mean |log error|, mean APE, the share inside their interval, the median interval
width), lets a strategy choose a batch under the round's budget (:mod:`modeling.plan.batch`) and reveals
the batch's targets. Every round spends the same budget (a count, or hours), so rounds of different
strategies compare at equal spending. ``auto`` inside a replay re-chooses its strategy by a replay of its
own on the workloads simulated so far (:mod:`modeling.plan.auto`).
"""

from __future__ import annotations

import numpy as np

from modeling.plan import strategies
from modeling.plan.assess import assess
from modeling.plan.batch import select
from modeling.plan.calibration import CALIBRATION_SHARE
from modeling.plan.inputs import Budget, PlanTable
from modeling.plan.results import ReplayCurve


def embed(table: PlanTable) -> np.ndarray:
    """Every workload in the counter space of the strategies (:mod:`modeling.plan.strategies`)."""
    from modeling.crossgen.applicability import reference

    ref = reference(table.X)
    return ref.Zt / np.sqrt(max(table.X.shape[1], 1))


def _score(a, truth) -> dict:
    err = np.abs(np.log(np.maximum(a.predicted, 1e-300)) - np.log(truth))
    out = {"error": float(err.mean()), "mean_ape": float(100 * np.mean(np.abs(a.predicted - truth) / truth)),
           "coverage": None, "median_width": None}
    if a.lower is not None:
        out["coverage"] = float(np.mean((a.lower <= truth) & (truth <= a.upper)))
        out["median_width"] = float(np.median(a.upper / a.lower))
    return out


def replay(table: PlanTable, strategy: str, *, round_budget: Budget, rounds: int, start: int, seed: int = 0,
           situation: str = "new-inputs", level: float = 0.9, share: float = CALIBRATION_SHARE,
           Z: np.ndarray | None = None, chooser=None, weighted: bool = True) -> list[dict]:
    """One replay (one seed): a list of rounds, round 0 being the random start of ``start`` workloads.

    ``strategy="auto"`` needs a ``chooser`` (an object whose ``choose(known_table, Z_known)`` names the
    strategy of each round): :func:`modeling.plan.auto.replay_auto` makes one."""
    if not np.all(np.isfinite(table.y)):
        raise ValueError("A replay needs a measured target for every workload.")
    rng = np.random.default_rng(seed)
    Z = embed(table) if Z is None else Z
    n = len(table.y)
    known = rng.choice(n, size=min(start, n - 1), replace=False)
    calib = known.copy()
    hidden_y = np.full(n, np.nan)
    out = []
    if strategy == "auto" and chooser is None:
        raise ValueError("A replay of 'auto' needs its chooser (modeling.plan.auto.replay_auto).")
    if strategy != "auto":
        chooser = None
    for r in range(rounds + 1):
        y = hidden_y.copy()
        y[known] = table.y[known]
        rest = np.setdiff1d(np.arange(n), known)
        a = assess(table, y, known, rest, calibration=calib, situation=situation, level=level, seed=seed,
                   Z=Z)
        row = {"round": r, "simulated": len(known), "hours": float(table.cost[known].sum()),
               **_score(a, table.y[rest]), "strategy": None}
        out.append(row)
        if r == rounds or len(rest) == 0:
            break
        used = strategy
        if chooser is not None:
            used = chooser.choose(table.subset(known), Z[known])
        row["strategy"] = used
        ctx = strategies.Context(Z, rest, known, a.rank_width, table.cost, table.groups, round_budget, rng,
                                 a.feature_weight if weighted else None)
        picks, _, flags = select(used, ctx, share)
        known = np.concatenate([known, picks])
        calib = np.concatenate([calib, picks[flags]])
    return out


def curve(strategy: str, runs: list[list[dict]], budget_kind: str) -> ReplayCurve:
    """Mean and spread over seeds of replays of one strategy (rounds aligned by index)."""
    m = min(len(r) for r in runs)

    def stat(key, f):
        vals = [[run[i][key] for run in runs] for i in range(m)]
        return [None if any(v is None for v in col) else float(f(np.asarray(col, float))) for col in vals]

    return ReplayCurve(strategy=strategy, budget_kind=budget_kind, n_seeds=len(runs),
                       simulated=stat("simulated", np.mean), hours=stat("hours", np.mean),
                       error=stat("error", np.mean), error_sd=stat("error", np.std),
                       mean_ape=stat("mean_ape", np.mean), coverage=stat("coverage", np.mean),
                       coverage_sd=stat("coverage", np.std), median_width=stat("median_width", np.mean))


__all__ = ["curve", "embed", "replay"]
