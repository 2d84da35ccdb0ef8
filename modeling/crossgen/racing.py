"""Choosing among candidates by racing: a candidate stops being fitted once its inner error is beaten with
confidence.

``recommended`` scores every (model, transform) candidate and the baseline by the out-of-fold predictions of
one cross-validation (:mod:`modeling.crossgen.recommend`), once inside every outer fold and once on all
workloads. Fitting every candidate in every fold spends most of the time on candidates that were clearly
beaten after the first fold (a linear model fitted to absolute run times that span six orders of magnitude
misses by factors where the forest on the log ratio is within percents). Racing (Maron & Moore's Hoeffding
races; the successive halving of scikit-learn's ``HalvingGridSearchCV`` is the same idea with a fixed
schedule) fits the candidates fold by fold and, after each fold, drops every candidate whose mean
|log error| on the workloads held out so far is higher than the leader's with confidence:

* the comparison is paired (the same held-out workloads for both) and made on *units*: every workload for
  random folds, every application for folds over applications (workloads of one application are not
  independent; an application's errors count as one unit, summed so that the unit mean is the workload
  mean);
* a candidate is dropped when the lower end of a one-sided Student-t confidence interval (level
  :data:`CONFIDENCE`, with a Bonferroni share per candidate) of its mean difference to the leader is above
  :data:`MARGIN` (relative to the leader's error), and only with at least :data:`MIN_UNITS` units;
* the baseline is never dropped (the rule against the baseline, :mod:`modeling.crossgen.versus_baseline`,
  needs its scores) and neither is the leader;
* the candidates left at the end were fitted in every fold: their scores are those of the exhaustive search,
  number for number, so whenever the exhaustive winner survives (what the confidence level is for) the
  choice, its scores and everything that follows (the verdict against the baseline) are unchanged
  (``tests/modeling/crossgen/test_racing.py`` checks it against the exhaustive search on the shipped and
  planted tables).

Within a fold the candidates are fitted transform after transform on the same rows, so the factorizations the
linear models share (``modeling.crossgen.linear.fold_memo``) are reused across the transforms.
"""

from __future__ import annotations

import numpy as np

from modeling.crossgen.conformal import log_floor, to_log
from modeling.crossgen.ensemble import BASELINE, plan_fits, resolve_models
from modeling.crossgen.recommend import candidate_label, oof_scores

#: One-sided confidence with which a dropped candidate is worse than the leader (shared among the candidates).
CONFIDENCE = 0.999
#: A candidate is dropped only when it is worse than the leader by more than this share of the leader's error.
MARGIN = 0.02
#: Fewest held-out units (workloads, or applications) before any candidate is dropped.
MIN_UNITS = 8


def _t_quantile(q: float, df: int) -> float:
    from scipy.stats import t

    return float(t.ppf(q, df))


def beaten(err: np.ndarray, lead: np.ndarray, units: np.ndarray, n_candidates: int,
           confidence: float = CONFIDENCE, margin: float = MARGIN, min_units: int = MIN_UNITS) -> bool:
    """Is the candidate with per-workload |log errors| ``err`` beaten with confidence by the leader's ``lead``
    on the same workloads? ``units``: the unit (workload or application) of each workload.

    The statistic is the mean over workloads of ``err - lead``; its standard error comes from the unit sums
    (one-sided Student-t, ``confidence`` shared among ``n_candidates`` by Bonferroni). Beaten when the lower
    confidence bound exceeds ``margin`` x the leader's mean error."""
    d = err - lead
    _, inv = np.unique(units, return_inverse=True)
    sums = np.bincount(inv, weights=d)
    g = len(sums)
    if g < max(min_units, 2):
        return False
    n = len(d)
    mean = d.sum() / n
    se = float(np.std(sums, ddof=1)) * np.sqrt(g) / n
    alpha = (1.0 - confidence) / max(n_candidates - 1, 1)
    return mean - _t_quantile(1.0 - alpha, g - 1) * se > margin * float(lead.mean())


def race(X, y, *, models, transforms, host_index, groups, cv, folds, seed, include_baseline,
         exhaustive: bool = False, progress=None) -> tuple[list[dict], dict]:
    """Score the candidates (``models`` x ``transforms``, and the baseline) by a raced cross-validation.

    Same folds and fits as :func:`modeling.crossgen.recommend.score_candidates` (``cv``/``folds`` as in
    :func:`~modeling.crossgen.ensemble.make_splits`); ``exhaustive=True`` fits every candidate in every fold.

    Returns ``(scored, info)``: ``scored`` as :func:`~modeling.crossgen.recommend.score_candidates` (the keys
    of :func:`~modeling.crossgen.recommend.oof_scores`), the candidates fitted in every fold first, best
    (lowest ``male``) first, then those dropped, with ``folds_scored`` < the number of folds and their scores on
    the workloads they were scored on; ``info``: ``folds``, ``fits`` (done) and ``fits_exhaustive``.
    """
    names = resolve_models(models)
    plans = {}
    for t in transforms:
        plans[t], d = plan_fits(X, y, models=names, cv=cv, folds=folds, groups=groups, transform=t,
                                host_index=host_index, seed=seed, drop_constant=True)
    y = plans[transforms[0]].y
    splits = plans[transforms[0]].splits
    floor = log_floor(y)
    logy = np.log(y)
    units = np.arange(len(y)) if cv == "kfold" or d["groups"] is None else np.asarray(d["groups"])
    cands = [(m, t) for t in transforms for m in names]
    if include_baseline and d["host_index"] is not None:
        cands.append((BASELINE, "none"))
    oof = {c: np.full(len(y), np.nan) for c in cands}
    done = {c: np.zeros(len(y), bool) for c in cands}
    alive = list(cands)
    seen = np.zeros(len(y), bool)
    scored_folds = {c: 0 for c in cands}
    fits = 0
    n_models = sum(1 for c in cands if c[0] != BASELINE)
    for k, (_, test) in enumerate(splits):
        for i, (m, t) in enumerate(alive):
            plan = plans[transforms[0] if m == BASELINE else t]
            pred, _, _ = plan.fit(m, k)
            oof[(m, t)][test] = pred
            done[(m, t)][test] = True
            scored_folds[(m, t)] += 1
            fits += 1
            if progress:
                progress((k + (i + 1) / len(alive)) / len(splits),
                         f"fold {k + 1} of {len(splits)}: {candidate_label(m, t)} ({len(alive)} candidates left)")
        seen[test] = True
        if exhaustive or k == len(splits) - 1:
            continue
        err = {c: np.abs(to_log(oof[c][seen], floor) - logy[seen]) for c in alive}
        models_alive = [c for c in alive if c[0] != BASELINE]
        if len(models_alive) < 2:
            continue
        leader = min(models_alive, key=lambda c: float(err[c].mean()))
        alive = [c for c in alive if c[0] == BASELINE or c == leader
                 or not beaten(err[c], err[leader], units[seen], n_models)]
    scored = []
    for c in cands:
        m, t = c
        rows = done[c]
        s = oof_scores(y[rows], oof[c][rows], floor)
        scored.append({"model": m, "transform": t, "label": candidate_label(m, t), **s,
                       "folds_scored": scored_folds[c]})
    complete = sorted((c for c in scored if c["folds_scored"] == len(splits)), key=lambda c: (c["male"], c["mean_ape"]))
    dropped = sorted((c for c in scored if c["folds_scored"] < len(splits)), key=lambda c: (c["male"], c["mean_ape"]))
    info = {"folds": len(splits), "fits": fits, "fits_exhaustive": len(cands) * len(splits)}
    return complete + dropped, info


def raced_note(scored: list[dict], folds: int) -> str:
    """One sentence on the candidates dropped by the race ("" when none was)."""
    out = [c for c in scored if c.get("folds_scored", folds) < folds]
    if not out:
        return ""
    return (f"{len(out)} of {len(scored)} candidates were dropped before the last of the {folds} inner folds: their "
            f"mean |log error| on the workloads held out until then was higher than the leader's with "
            f"{CONFIDENCE:.1%} confidence (racing); the candidates listed were scored on every fold.")


__all__ = ["CONFIDENCE", "MARGIN", "MIN_UNITS", "beaten", "race", "raced_note"]
