"""The next batch to simulate: :func:`plan`.

Fits the model on the simulated workloads (:mod:`modeling.plan.assess`), replays the strategies on them to
draw the expected error against simulator hours per strategy and, for ``auto``, to choose
(:mod:`modeling.plan.auto`), then lets the strategy pick under the budget (:mod:`modeling.plan.batch`,
a random slice kept for calibration: :mod:`modeling.plan.calibration`). Each workload of the batch says
why: its interval width now, its distance to the simulated set, its cost. The expected effect extrapolates
the chosen strategy's replay curve (a power law ``error ~ spent ** -b`` fitted to it) from the spending of
the replay to the spending after this batch.
"""

from __future__ import annotations

import numpy as np

from modeling.crossgen.situations import NEW_INPUTS, SITUATIONS
from modeling.errors import ConfigError
from modeling.plan import auto, strategies
from modeling.plan.assess import assess
from modeling.plan.batch import select, slice_words
from modeling.plan.calibration import CALIBRATION_SHARE
from modeling.plan.inputs import Budget, PlanTable, check_budget
from modeling.plan.replay import curve, embed
from modeling.plan.results import BatchItem, Expected, Plan, ReplayCurve
from modeling.plan.summary import LEVEL

STRATEGY_CHOICES = ("auto", *strategies.STRATEGIES)


def _slope(xs, ys) -> float | None:
    """b of ``y ~ x ** -b`` fitted on the positive points of a curve (None with fewer than 2)."""
    pts = [(x, y) for x, y in zip(xs, ys) if x and y and x > 0 and y > 0]
    if len(pts) < 2:
        return None
    lx, ly = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    if np.ptp(lx) <= 0:
        return None
    return float(min(1.0, max(0.0, -np.polyfit(lx, ly, 1)[0])))  # learning curves: 0 <= b <= 1


def _expected(a, curve_: ReplayCurve | None, spent_now: float, spent_batch: float, n: int, hours: float,
              kind: str) -> Expected:
    width_now = None if a.lower is None else float(np.median(a.upper / a.lower))
    if curve_ is None or a.cv_error is None:
        return Expected(a.cv_error, None, width_now, None, n, hours,
                        "no replay: too few simulated workloads to extrapolate the effect")
    xs = curve_.simulated if kind == "count" else curve_.hours
    factor = ((spent_now + spent_batch) / spent_now) if spent_now > 0 else None
    b_err = _slope(xs, curve_.error)
    unit = "simulations" if kind == "count" else "simulator hours"
    out = (f"; the replay ran out of workloads to hold back before its last round in {curve_.ran_out} of "
           f"{curve_.n_seeds} seed(s), so its curve stops at round {len(curve_.error) - 1}" if curve_.ran_out else "")
    falls = b_err is not None and b_err > 0  # a slope of 0 would say "no change", which the replay cannot tell
    err_after = a.cv_error * factor ** -b_err if falls and factor is not None else None
    logw = [None if w is None else np.log(w) for w in curve_.median_width]
    b_w = _slope(xs, logw)
    w_after = (None if b_w is None or factor is None or width_now is None
               else float(np.exp(np.log(width_now) * factor ** -b_w)))
    if falls:
        basis = (f"the cross-validated error now, extrapolated along the {curve_.strategy} replay curve "
                 f"(error ~ {unit} ^ -{b_err:.2f}){out}")
    else:
        why = ("the replay has too few rounds to extrapolate" if b_err is None
               else f"in the {curve_.strategy} replay the error did not fall as {unit} were spent")
        basis = f"{why}{out}"
    return Expected(a.cv_error, err_after, width_now, w_after, n, hours, basis)


def plan(table: PlanTable, budget: Budget, *, strategy: str = "auto", situation: str = NEW_INPUTS,
         level: float = LEVEL, seed: int = 0, calibration_ids=None, replay_seeds: int = 2,
         share: float = CALIBRATION_SHARE, first_ids=None, n_jobs: int = 1) -> Plan:
    """The next batch of ``table``'s candidates to simulate under ``budget``.

    Parameters
    ----------
    table : :class:`~modeling.plan.inputs.PlanTable` (measured rows and candidates)
    budget : :class:`~modeling.plan.inputs.Budget` (workloads or simulator hours)
    strategy : ``auto`` or one of :data:`modeling.plan.strategies.STRATEGIES`
    situation : ``new-inputs`` or ``new-applications`` (how the intervals are calibrated)
    calibration_ids : ids of the simulated workloads that were drawn at random (the batches' calibration
        slices); they alone calibrate the interval. Default: every simulated workload.
    replay_seeds : seeds of the replay on the simulated workloads
    first_ids : candidates that head the batch whatever the strategy says (a last round's simulations that
        failed or did not come back: run again); their cost comes off the budget first, the strategy and the
        random slice share what is left
    n_jobs : worker processes for the model's folds and the strategies' replays (the batch is the same
        whatever it is)
    """
    if strategy not in STRATEGY_CHOICES:
        raise ConfigError(f"Unknown strategy {strategy!r}; use one of {', '.join(STRATEGY_CHOICES)}.")
    if situation not in SITUATIONS:
        raise ConfigError(f"Unknown situation {situation!r}; use one of {', '.join(SITUATIONS)}.")
    check_budget(table, budget)
    if n_jobs > 1:  # the forest's compiled kernels loaded once here, inherited by every forked worker
        from modeling.crossgen.forest_trees import warm_up

        warm_up()
    rng = np.random.default_rng(seed)
    Z = embed(table)
    measured, cand = np.flatnonzero(table.measured), np.flatnonzero(table.candidates)
    notes = []
    cal = None
    if calibration_ids is not None:
        idset = {str(i) for i in calibration_ids}
        cal = measured[np.isin(table.ids[measured], list(idset))]
        unknown = idset - set(table.ids[measured])
        if unknown:
            notes.append(f"{len(unknown)} calibration id(s) are not simulated workloads and were ignored.")
    a = assess(table, table.y, measured, cand, calibration=cal, situation=situation, level=level, seed=seed,
               Z=Z if cal is not None else None, n_jobs=n_jobs)
    done = table.subset(measured)
    curves, because, chosen = [], "", strategy
    if len(measured) >= auto.MIN_REPLAY:
        runs = auto.compare(done, budget.kind, situation=situation, level=level, seeds=tuple(range(replay_seeds)),
                            Z=Z[measured], n_jobs=n_jobs)
        curves = [curve(s, rs, budget.kind) for s, rs in runs.items()]
        if strategy == "auto":
            chosen, because, _ = auto.pick(runs, budget.kind)
    elif strategy == "auto":
        chosen = auto.DEFAULT[budget.kind]
        unit = "workloads" if budget.kind == "count" else "hours"
        because = (f"{len(measured)} simulated workloads are too few to replay strategies on (at least "
                   f"{auto.MIN_REPLAY}): the default for a budget in {unit}, {chosen} ({strategies.LABELS[chosen]})")
    if strategy != "auto":
        because = f"asked for: {strategies.LABELS[strategy]}"
    # the counter space the replays planned in: weighted by the forest's importance once there is a model
    ctx = strategies.Context(Z, cand, measured, a.rank_width, table.cost, table.groups, budget, rng,
                             a.feature_weight)
    forced = np.empty(0, int)
    if first_ids:
        forced = cand[np.isin(table.ids[cand], [str(i) for i in first_ids])]
        unknown = len({str(i) for i in first_ids}) - len(forced)
        if unknown:
            notes.append(f"{unknown} workload(s) to run again are not candidates (simulated already, or not in the "
                         "table) and were left out.")
    if len(forced):
        rest = ~np.isin(cand, forced)
        if budget.kind == "count":
            left = Budget("count", budget.amount - len(forced))
        else:
            left = Budget("hours", budget.amount - float(table.cost[forced].sum()))
        notes.append(f"{len(forced)} workload(s) whose simulation failed or did not come back head the batch; "
                     f"the strategy spends what is left of the budget ({max(left.amount, 0):g} "
                     f"{'workloads' if left.kind == 'count' else 'h'}).")
        ctx = strategies.Context(Z, cand[rest], measured, None if a.rank_width is None else a.rank_width[rest],
                                 table.cost, table.groups, left, rng, a.feature_weight)
        if rest.any() and left.amount >= (1 if left.kind == "count" else float(table.cost[cand[rest]].min())):
            picks, why, flags = select(chosen, ctx, share)
        else:
            picks, why, flags = np.empty(0, int), [], np.zeros(0, bool)
        picks = np.concatenate([forced, picks]).astype(int)
        why = ["its simulation failed or did not come back last round: run again"] * len(forced) + list(why)
        flags = np.concatenate([np.zeros(len(forced), bool), flags])
    else:
        picks, why, flags = select(chosen, ctx, share)
    pos = {j: i for i, j in enumerate(cand)}
    dist = strategies.nearest_distance(Z, picks, measured) if len(measured) else np.full(len(picks), np.nan)
    width = a.width_factor
    items = []
    for r, (j, reason, flag) in enumerate(zip(picks, why, flags)):
        i = pos[j]
        wf = None if width is None else float(width[i])
        d = float(dist[r]) if np.isfinite(dist[r]) else None
        parts = [reason, f"interval x{wf:.3g} wide" if wf is not None else "no interval yet",
                 f"distance {d:.3g} to the simulated set" if d is not None else "nothing simulated yet",
                 f"costs {table.cost[j]:.3g} h"]
        items.append(BatchItem(id=str(table.ids[j]), rank=r + 1, cost=float(table.cost[j]), width=wf, distance=d,
                               predicted=float(a.predicted[i]),
                               lower=None if a.lower is None else float(a.lower[i]),
                               upper=None if a.upper is None else float(a.upper[i]),
                               group=None if table.groups is None else str(table.groups[j]), calibration=bool(flag),
                               why="; ".join(parts)))
    hours = float(table.cost[picks].sum())
    spent_now = len(measured) if budget.kind == "count" else float(table.cost[measured].sum())
    spent_batch = len(picks) if budget.kind == "count" else hours
    mine = next((c for c in curves if c.strategy == chosen), None)
    expected = _expected(a, mine, spent_now, spent_batch, len(picks), hours, budget.kind)
    if len(picks) == 0:
        notes.append("The budget buys no candidate.")
    return Plan(strategy=chosen, requested=strategy, chosen_because=because, situation=situation,
                budget=budget.to_dict(), batch=items, expected=expected, replay=curves, model=a.how,
                calibration=("the interval is calibrated on the workloads drawn at random (the calibration ids), "
                             "each residual scaled by its distance to the simulated set"
                             if cal is not None else "every simulated workload calibrates the interval")
                + f"; the random slice of each batch, for calibration: {slice_words(budget.kind, share)}",
                cost_source=table.cost_source, n_measured=len(measured), n_candidates=len(cand), notes=notes)


__all__ = ["STRATEGY_CHOICES", "plan"]
