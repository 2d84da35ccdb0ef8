"""Which model (and target transform) to predict with: chosen by cross-validation, baseline included.

Candidates are pairs (model, transform) of the HALWPE/RastSim ensemble and,
when the table has the host's own metric, the host x median ratio baseline.
Each is scored on the out-of-fold predictions of one cross-validation of the
rows it is given (``score_candidates``); the folds follow the situation the
prediction is for (random K-fold for known applications at new inputs,
leave-one-application-out or grouped K-fold for applications not in the
training data).

The score is the mean absolute log error, ``mean |log(y_hat / y)|`` (its
exponential is the geometric-mean error factor). Chosen here, not the papers'
mean APE (RastSim eq. 3), because the mean APE is carried by a few
workloads: a prediction 70x too high adds 6,900 % while one 70x too low adds
at most 100 %, so on a table where one workload is off by 7,000 % the mean
APE can prefer a baseline that is within 10 % on a third of the workloads to
a model within 10 % on two thirds. The log error weighs a factor of two the
same in both directions. The mean and median APE and the inlier ratio at
10 % (eq. 5) are reported beside it, and :func:`trade_off` names the case
where they disagree with the choice.

When this selection is part of a prediction, it is run again inside every
fold of an outer cross-validation (nested cross-validation), so the error
and the intervals reported for "recommended" are those of the whole
procedure (choose, then fit), not of the winner on the folds that chose it.
There the candidates are raced (:mod:`modeling.crossgen.racing`): one beaten with confidence after a fold
is not fitted in the next ones, and those fitted in every fold are scored as here.
"""

from __future__ import annotations

import numpy as np

from modeling.intervals.conformal import log_floor, to_log, weighted_quantile
from modeling.crossgen.ensemble import BASELINE, TRANSFORMS, resolve_models, run_ensemble
from modeling.metrics import ape


def transforms_for(host_index) -> list[str]:
    """The target transforms a table allows: the ratio ones need the host's own metric."""
    return list(TRANSFORMS) if host_index is not None else ["none", "log"]


def oof_scores(y, oof, floor, units=None) -> dict:
    """Scores of out-of-fold predictions: ``male`` (mean |log error|), mean / median APE (%), IR@10 (%).

    ``units`` (optional, one label per workload: the held-out fold of each): every unit weighs one and its
    workloads equally (a weighted mean, median and share), so a unit of many workloads does not stand for the
    others. For applications not in the training data the units are the held-out sets of whole applications:
    the error a prediction's table meets (its rows each weighing one) is that of one such set, whatever the
    sizes of the others. ``mean_ape_workloads`` then keeps the mean APE with every workload weighing one.
    """
    y = np.asarray(y, dtype=float)
    oof = np.asarray(oof, dtype=float)
    a = ape(y, oof)
    male = np.abs(to_log(oof, floor) - np.log(y))
    if units is None:
        return {"male": float(np.mean(male)), "mean_ape": float(a.mean()),
                "median_ape": float(np.median(a)), "ir10": float(100.0 * np.mean(a <= 10.0)),
                "max_ape": float(a.max())}
    _, inverse, counts = np.unique(np.asarray(units), return_inverse=True, return_counts=True)
    w = 1.0 / (len(counts) * counts[inverse])  # sums to one; each unit's workloads together weigh 1 / units
    return {"male": float(np.sum(w * male)), "mean_ape": float(np.sum(w * a)),
            "median_ape": weighted_quantile(a, w, 0.5), "ir10": float(100.0 * np.sum(w * (a <= 10.0))),
            "max_ape": float(a.max()), "mean_ape_workloads": float(a.mean()), "units": int(len(counts))}


def candidate_label(model: str, transform: str) -> str:
    return model if model == BASELINE else f"{model} ({transform})"


def score_candidates(X, y, *, models, transforms, host_index, groups, cv, folds, seed, include_baseline,
                     n_jobs=1, progress=None) -> list[dict]:
    """Every candidate's cross-validated scores on (X, y), best (lowest ``male``) first.

    ``cv``/``folds`` as in :func:`~modeling.crossgen.ensemble.make_splits`. Returns dicts with
    ``model``, ``transform``, ``label`` and the keys of :func:`oof_scores`.
    """
    names = resolve_models(models)
    floor = log_floor(y)
    out = []
    for t_i, t in enumerate(transforms):
        def step(done, total, label, t_i=t_i, t=t):
            if progress:
                progress((t_i + done / total) / len(transforms), f"transform {t}: {label}")
        res = run_ensemble(X, y, models=names, cv=cv, folds=folds, groups=groups, transform=t,
                           host_index=host_index, seed=seed, drop_constant=True, n_jobs=n_jobs,
                           progress=step if progress else None)
        yy = np.asarray(res.observed)
        for m in res.models:
            out.append({"model": m.model, "transform": t, "label": candidate_label(m.model, t),
                        **oof_scores(yy, m.oof_prediction, floor)})
        if include_baseline and t_i == 0 and res.baseline is not None:
            out.append({"model": BASELINE, "transform": "none", "label": BASELINE,
                        **oof_scores(yy, res.baseline.oof_prediction, floor)})
    out.sort(key=lambda c: (c["male"], c["mean_ape"]))
    return out


def _pct(v: float) -> str:
    return f"{v:,.1f} %" if v < 1000 else f"{v:,.0f} %"


def _mean_ape_trade(chosen: dict, by_mean: dict) -> str:
    """The sentence for a choice that does not have the lowest mean APE: what the choice is better at is said
    after "but" only where it is better at the precision printed; a tie or a loss is said as such."""
    c_ir, b_ir = f"{chosen['ir10']:.0f}", f"{by_mean['ir10']:.0f}"
    c_f, b_f = f"{np.exp(chosen['male']):.2f}", f"{np.exp(by_mean['male']):.2f}"
    head = f"{by_mean['label']} has the lower mean APE ({_pct(by_mean['mean_ape'])} against {_pct(chosen['mean_ape'])})"
    better = []
    if float(c_ir) > float(b_ir):
        better.append(f"is within 10 % on {c_ir} % of the workloads against {b_ir} %")
    if float(c_f) < float(b_f):
        better.append(f"has a smaller typical error factor (x{c_f} against x{b_f})")
    if better:
        return f"{head}, but {chosen['label']} " + " and ".join(better) + "."
    # Nothing printed favours the choice (a tie at the precision shown, or a choice made on other grounds,
    # such as the baseline kept by the comparison with it): say what each score shows, no "but".
    ir = (f"within 10 % on more workloads ({b_ir} % against {c_ir} %)" if float(b_ir) > float(c_ir)
          else f"within 10 % on as many workloads ({c_ir} %)")
    fac = (f"a smaller typical error factor (x{b_f} against x{c_f})" if float(b_f) < float(c_f)
           else f"the same typical error factor (x{c_f})")
    return (f"{head}, is {ir} and has {fac}: {chosen['label']} is no better on these scores at the "
            f"precision shown.")


def trade_off(scored: list[dict], chosen: dict | None = None) -> str:
    """A plain sentence on what the choice ``chosen`` (default: the best scored) gives up, when the scores
    disagree; "" when they agree. (That the baseline is used, and why, is said by
    :class:`modeling.crossgen.versus_baseline.BaselineVerdict`.)"""
    if not scored:
        return ""
    chosen = chosen or scored[0]
    by_mean = min(scored, key=lambda c: c["mean_ape"])
    base = next((c for c in scored if c["model"] == BASELINE), None)
    parts = []
    if by_mean is not chosen:
        parts.append(_mean_ape_trade(chosen, by_mean))
        if chosen["max_ape"] > 5 * max(chosen["mean_ape"], 1e-9) or chosen["max_ape"] > 1000:
            parts.append(f"{chosen['label']}'s mean is carried by a few workloads (its largest error is "
                         f"{_pct(chosen['max_ape'])}): check the workloads it misses before using its numbers.")
    elif base is not None and base is not chosen and base["ir10"] > chosen["ir10"]:
        parts.append(f"The baseline is within 10 % on more workloads ({base['ir10']:.0f} % against "
                     f"{chosen['ir10']:.0f} %), but misses the others by more.")
    return " ".join(parts)


__all__ = ["candidate_label", "oof_scores", "score_candidates", "trade_off", "transforms_for"]
