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

With folds over applications (a new-applications prediction: about 20 inner folds of one application each) a
confident difference needs many applications and racing drops little. There the search is *bounded* instead
(``bound=True``, branch and bound): candidates are fitted one after another, fold by fold, and a model
candidate stops as soon as its |log errors| summed over the workloads held out so far exceed the sum of the best
model candidate fitted in every fold. Errors are never negative, so a stopped candidate's mean |log error| over
all workloads would be higher than that model's: the best model, its scores and every candidate within a hair
of it (a relative :data:`BOUND_SLACK`, for the order of summation) are fitted in every fold, and the choice
(:func:`modeling.crossgen.versus_baseline.pick`) is the exhaustive search's exactly, whatever the order. The
order only decides how early the others stop: ``hint`` (the ``unit_errors`` and scores of another search on the
same workloads, e.g. the choice on all workloads) puts the candidates with the lowest error first and fits
each candidate's folds with the highest error first; without it every candidate is fitted on the first fold
and then ordered by that fold's error.

An outer fold's choice uses only the pick, never the list of scored candidates (``pick_only=True``): there the
baseline is fitted first and a model also stops once its sum exceeds the baseline's. The pick keeps a model
only when it beats the baseline (a lower mean |log error|), so a model past the baseline's sum cannot be
picked, and the best model is still fitted in every fold whenever it beats the baseline: the pick is the
exhaustive search's, and when no model beats the baseline (the pick is the baseline) every model stops as
soon as its errors pass the baseline's instead of the best model's.

A search enters ``one_blas_thread()`` (:mod:`modeling.parallel`) once, not once per fit: entering it asks
every loaded library for its thread pools, 5-20 ms, as long as a linear model's fit on a few thousand rows.
"""

from __future__ import annotations

import numpy as np

from modeling.intervals.conformal import log_floor, to_log
from modeling.crossgen.ensemble import BASELINE, plan_fits, resolve_models
from modeling.crossgen.recommend import candidate_label, oof_scores
from modeling.parallel import one_blas_thread

#: One-sided confidence with which a dropped candidate is worse than the leader (shared among the candidates).
CONFIDENCE = 0.999
#: A candidate is dropped only when it is worse than the leader by more than this share of the leader's error.
MARGIN = 0.02
#: Fewest held-out units (workloads, or applications) before any candidate is dropped.
MIN_UNITS = 8
#: A bounded search stops a candidate only when its partial sum exceeds the best complete one's by this share
#: (sums in another order differ in the last bits; ties are kept, as the exhaustive search sorts them).
BOUND_SLACK = 1e-9


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
         exhaustive: bool = False, bound: bool = False, hint: dict | None = None, pick_only: bool = False,
         progress=None) -> tuple[list[dict], dict]:
    """Score the candidates (``models`` x ``transforms``, and the baseline) by a raced cross-validation.

    Same folds and fits as :func:`modeling.crossgen.recommend.score_candidates` (``cv``/``folds`` as in
    :func:`~modeling.crossgen.ensemble.make_splits`); ``exhaustive=True`` fits every candidate in every fold;
    ``bound=True`` stops a candidate once it cannot be the best model any more (exact, see the module's
    docstring), in the order ``hint`` suggests (``{"male": {label: error}, "unit_errors": {label: {unit:
    sum}}}``, e.g. this function's ``info`` from another search; optional). ``pick_only`` (a bounded search
    with the baseline): only :func:`~modeling.crossgen.versus_baseline.pick` of the result is used (an outer
    fold's choice), so a model also stops once it cannot beat the baseline (:func:`_bounded`): fewer candidates
    may be scored in full, the pick is the same. The search enters ``one_blas_thread()`` once, not once a fit.

    Returns ``(scored, info)``: ``scored`` as :func:`~modeling.crossgen.recommend.score_candidates` (the keys
    of :func:`~modeling.crossgen.recommend.oof_scores`), the candidates fitted in every fold first, best
    (lowest ``male``) first, then those dropped, with ``folds_scored`` < the number of folds and their scores on
    the workloads they were scored on; ``info``: ``folds``, ``fits`` (done), ``fits_exhaustive``, ``male`` and
    ``unit_errors`` (per candidate label, its |log errors| summed per application over the workloads it was
    scored on; None with random folds).
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
    n_models = sum(1 for c in cands if c[0] != BASELINE)
    grouped = not (cv == "kfold" or d["groups"] is None)

    def fit_one(c, k):
        m, t = c
        plan = plans[transforms[0] if m == BASELINE else t]
        test = splits[k][1]
        oof[c][test] = plan.fit_in_one_blas_thread(m, k)[0]
        done[c][test] = True
        scored_folds[c] += 1
        return float(np.abs(to_log(oof[c][test], floor) - logy[test]).sum())

    with one_blas_thread():  # entered once for the whole search (5-20 ms each time), not once a fit
        fits, alive = _fit_candidates(cands, alive, splits, units, grouped, seen, oof, floor, logy, n_models,
                                      fit_one, exhaustive, bound, hint, pick_only, progress)
    scored = []
    for c in cands:
        m, t = c
        rows = done[c]
        s = oof_scores(y[rows], oof[c][rows], floor)
        scored.append({"model": m, "transform": t, "label": candidate_label(m, t), **s,
                       "folds_scored": scored_folds[c]})
    complete = sorted((c for c in scored if c["folds_scored"] == len(splits)), key=lambda c: (c["male"], c["mean_ape"]))
    dropped = sorted((c for c in scored if c["folds_scored"] < len(splits)), key=lambda c: (c["male"], c["mean_ape"]))
    unit_errors = None
    if grouped:
        unit_names, inv = np.unique(units, return_inverse=True)
        unit_errors = {}
        for c in cands:
            e = np.zeros(len(y))
            e[done[c]] = np.abs(to_log(oof[c][done[c]], floor) - logy[done[c]])
            sums = np.bincount(inv, weights=e, minlength=len(unit_names))
            seen_u = np.bincount(inv, weights=done[c], minlength=len(unit_names)) > 0
            unit_errors[candidate_label(*c)] = {str(u): float(v) for u, v, ok in zip(unit_names, sums, seen_u) if ok}
    info = {"folds": len(splits), "fits": fits, "fits_exhaustive": len(cands) * len(splits),
            "male": {c["label"]: c["male"] for c in scored}, "unit_errors": unit_errors}
    return complete + dropped, info


def _fit_candidates(cands, alive, splits, units, grouped, seen, oof, floor, logy, n_models, fit_one, exhaustive,
                    bound, hint, pick_only, progress) -> tuple[int, list]:
    """The fits of :func:`race`: bounded, exhaustive or raced fold by fold. Returns (fits, candidates left)."""
    fits = 0
    if bound and not exhaustive:
        return _bounded(cands, splits, units if grouped else None, hint, fit_one, progress, pick_only), alive
    for k, (_, test) in enumerate(splits if not bound or exhaustive else ()):
        for i, (m, t) in enumerate(alive):
            fit_one((m, t), k)
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
    return fits, alive


def _bounded(cands, splits, units, hint, fit_one, progress, pick_only: bool = False) -> int:
    """The bounded search (branch and bound, see the module's docstring): ``fit_one(candidate, fold)`` fits
    one and returns its |log errors| summed over the fold's workloads. Returns the number of fits.

    ``pick_only``: the baseline is fitted first, and its sum bounds the models too. A model whose sum exceeds
    the baseline's cannot beat it (:func:`~modeling.crossgen.versus_baseline.beats` needs a lower mean |log
    error|), so stopping it cannot change :func:`~modeling.crossgen.versus_baseline.pick`: when the best
    model beats the baseline, its sum is below the baseline's and it is still fitted in every fold (and is
    still the best model fitted in every fold); when it does not, no model beats the baseline, a stopped
    model's mean over the workloads it was scored on is above the baseline's too, and the pick is the
    baseline either way. Only the list of candidates scored in full changes (an outer fold's choice does not
    show it)."""
    hint = hint or {}
    male = hint.get("male") or {}
    unit_err = hint.get("unit_errors") or {}
    n_folds = len(splits)
    sums = {c: 0.0 for c in cands}
    fitted = {c: set() for c in cands}
    fits = 0
    if male:
        order = sorted(cands, key=lambda c: male.get(candidate_label(*c), np.inf))
    else:  # every candidate on the first fold, then the lowest error first
        for c in cands:
            sums[c] += fit_one(c, 0)
            fitted[c].add(0)
            fits += 1
        order = sorted(cands, key=lambda c: sums[c])
    if pick_only:
        order = [c for c in order if c[0] == BASELINE] + [c for c in order if c[0] != BASELINE]
    best = np.inf
    for i, c in enumerate(order):
        per_unit = unit_err.get(candidate_label(*c))
        folds = list(range(n_folds))
        if per_unit and units is not None:  # the folds where this candidate erred most first
            folds.sort(key=lambda k: -sum(per_unit.get(str(u), 0.0) for u in np.unique(units[splits[k][1]])))
        is_model = c[0] != BASELINE
        for k in folds:
            if is_model and sums[c] > best * (1.0 + BOUND_SLACK):
                break  # its mean over all workloads would exceed the best model's: it cannot be chosen
            if k in fitted[c]:
                continue
            sums[c] += fit_one(c, k)
            fitted[c].add(k)
            fits += 1
        if (is_model or pick_only) and len(fitted[c]) == n_folds:
            best = min(best, sums[c])
        if progress:
            progress((i + 1) / len(order), f"{candidate_label(*c)}: {len(fitted[c])} of {n_folds} folds "
                                           f"(bounded search, {i + 1} of {len(order)} candidates)")
    return fits


def raced_note(scored: list[dict], folds: int, bound: bool = False) -> str:
    """One sentence on the candidates dropped by the race, or stopped by the bounded search (``bound``; "" when
    none was)."""
    out = [c for c in scored if c.get("folds_scored", folds) < folds]
    if not out:
        return ""
    if bound:
        return (f"{len(out)} of {len(scored)} candidates were stopped before the last of the {folds} inner folds: "
                f"their |log errors| on the workloads held out until then already summed to more than the best "
                f"model's over all workloads, so they could not be chosen (a bounded search: the choice is the "
                f"exhaustive search's); the candidates listed were scored on every fold.")
    return (f"{len(out)} of {len(scored)} candidates were dropped before the last of the {folds} inner folds: their "
            f"mean |log error| on the workloads held out until then was higher than the leader's with "
            f"{CONFIDENCE:.1%} confidence (racing); the candidates listed were scored on every fold.")


__all__ = ["BOUND_SLACK", "CONFIDENCE", "MARGIN", "MIN_UNITS", "beaten", "race", "raced_note"]
