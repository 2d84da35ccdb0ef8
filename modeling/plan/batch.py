"""One batch: a random calibration slice (:mod:`modeling.plan.calibration`), then the strategy's order
(:mod:`modeling.plan.strategies`) filled up to the budget."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from modeling.plan import calibration, strategies
from modeling.plan.inputs import Budget


def select(strategy: str, ctx: strategies.Context, share: float = calibration.CALIBRATION_SHARE):
    """The batch of ``strategy`` under ``ctx.budget``: (indices, reasons, drawn-at-random flags), strategy
    picks first, then the calibration slice."""
    if strategy == "random":
        order, why = strategies.order("random", ctx)
        pos = strategies.fill(order, ctx.cost, ctx.budget)
        return order[pos], [why[i] for i in pos], np.ones(len(pos), bool)
    cal = calibration.draw_slice(ctx.candidates, calibration.slice_size(strategies.slots(ctx), ctx.rng, share),
                                 ctx.rng)
    cal = cal[strategies.fill(cal, ctx.cost, ctx.budget)]
    spent = len(cal) if ctx.budget.kind == "count" else float(ctx.cost[cal].sum())
    left = Budget(ctx.budget.kind, ctx.budget.amount - spent)
    keep = ~np.isin(ctx.candidates, cal)
    picks, why = np.empty(0, int), []
    if left.amount > 0 and keep.any():
        sub = replace(ctx, candidates=ctx.candidates[keep], simulated=np.concatenate([ctx.simulated, cal]),
                      width=None if ctx.width is None else ctx.width[keep], budget=left)
        order, reasons = strategies.order(strategy, sub)
        pos = strategies.fill(order, ctx.cost, left)
        picks, why = order[pos], [reasons[i] for i in pos]
    flags = np.concatenate([np.zeros(len(picks), bool), np.ones(len(cal), bool)])
    why = why + ["drawn at random to keep the intervals calibrated"] * len(cal)
    return np.concatenate([picks, cal]).astype(int), why, flags


__all__ = ["select"]
