"""One batch: the strategy's order (:mod:`modeling.plan.strategies`) and a random calibration slice
(:mod:`modeling.plan.calibration`), filled up to the budget.

The slice is a stated share (``share``, :data:`~modeling.plan.calibration.CALIBRATION_SHARE` by default) of
the batch:

* a budget in **workloads**: ``share`` of them (stochastic rounding), drawn first, the strategy filling the
  rest;
* a budget in **hours**: the strategy first spends ``1 - share`` of the hours; the slice is then drawn at
  random among the candidates left, at most ``share`` of the hours *and* ``share`` of the batch's workloads
  (``share / (1 - share)`` times the strategy's picks, stochastic rounding); the hours the slice leaves go
  back to the strategy, which picks again among the candidates left (the batch so far counted as simulated).

Sizing the slice by a count alone let it take the whole budget when costs are heavy-tailed: a slot count from
the median cost (100 h over 0.03 h: 3,300 slots) made a slice of hundreds of random draws whose expensive
members spent every hour before the strategy picked one.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from modeling.plan import calibration, strategies
from modeling.plan.inputs import Budget


def slice_words(kind: str, share: float) -> str:
    """What the random slice is, in the words a batch and a plan give."""
    if kind == "count":
        return f"{share:.0%} of the batch's workloads"
    return (f"at most {share:.0%} of the batch's hours and at most {share:.0%} of its workloads (a fraction of a "
            "workload rounded up or down at random)")


def select(strategy: str, ctx: strategies.Context, share: float = calibration.CALIBRATION_SHARE):
    """The batch of ``strategy`` under ``ctx.budget``: (indices, reasons, drawn-at-random flags), strategy
    picks first, then the calibration slice."""
    if strategy == "random":
        order, why = strategies.order("random", ctx)
        pos = strategies.fill(order, ctx.cost, ctx.budget)
        return order[pos], [why[i] for i in pos], np.ones(len(pos), bool)
    cal_why = ("drawn at random to keep the intervals calibrated (the random slice: "
               f"{slice_words(ctx.budget.kind, share)})")
    if ctx.budget.kind == "count":
        cal = calibration.draw_slice(ctx.candidates, calibration.slice_size(strategies.slots(ctx), ctx.rng, share),
                                     ctx.rng)
        cal = cal[strategies.fill(cal, ctx.cost, ctx.budget)]
        left = Budget("count", ctx.budget.amount - len(cal))
        keep = ~np.isin(ctx.candidates, cal)
        picks, why = np.empty(0, int), []
        if left.amount > 0 and keep.any():
            sub = replace(ctx, candidates=ctx.candidates[keep], simulated=np.concatenate([ctx.simulated, cal]),
                          width=None if ctx.width is None else ctx.width[keep], budget=left)
            order, reasons = strategies.order(strategy, sub)
            pos = strategies.fill(order, ctx.cost, left)
            picks, why = order[pos], [reasons[i] for i in pos]
    else:
        amount = float(ctx.budget.amount)
        main = Budget("hours", (1.0 - share) * amount)
        order, reasons = strategies.order(strategy, replace(ctx, budget=main))
        pos = strategies.fill(order, ctx.cost, main)
        picks, why = order[pos], [reasons[i] for i in pos]
        # the slice: at most `share` of the hours and share / (1 - share) times the strategy's picks
        n_cal = calibration.slice_size(len(picks), ctx.rng, share / (1.0 - share)) if share < 1 else len(order)
        pool = ctx.rng.permutation(ctx.candidates[~np.isin(ctx.candidates, picks)])
        cal = pool[strategies.fill(pool, ctx.cost, Budget("hours", share * amount))][:n_cal]
        left = amount - float(ctx.cost[picks].sum()) - float(ctx.cost[cal].sum())
        keep = ~np.isin(ctx.candidates, np.concatenate([picks, cal]))
        if keep.any() and left >= float(ctx.cost[ctx.candidates[keep]].min()):
            # the hours the slice left (and any the first pass could not place): the strategy picks again
            sub = replace(ctx, candidates=ctx.candidates[keep], width=None if ctx.width is None else ctx.width[keep],
                          simulated=np.concatenate([ctx.simulated, picks, cal]).astype(int),
                          budget=Budget("hours", left))
            order, reasons = strategies.order(strategy, sub)
            pos = strategies.fill(order, ctx.cost, sub.budget)
            picks, why = np.concatenate([picks, order[pos]]).astype(int), why + [reasons[i] for i in pos]
    flags = np.concatenate([np.zeros(len(picks), bool), np.ones(len(cal), bool)])
    return (np.concatenate([picks, cal]).astype(int), list(why) + [cal_why] * len(cal), flags)


__all__ = ["select", "slice_words"]
