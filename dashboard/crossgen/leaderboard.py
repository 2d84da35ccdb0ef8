"""The scenario leaderboard as a user reads it: rows, the winner (the baseline included), and why a
number that looks broken is what it is. Pure functions over a scenario result
(:class:`~modeling.crossgen.ensemble.EnsembleResult`, whose properties hold the ★ and whether the baseline wins)."""

from __future__ import annotations

import numpy as np

from modeling.crossgen.ensemble import EnsembleResult, ModelResult

#: A model's error is "dominated by a few workloads" when at most this share of the workloads carries
#: more than half of its summed APE.
FEW_WORKLOADS = 0.10
SHOWN = 3
#: E_in above this (percent) is a poor fit even in sample.
POOR_IN_SAMPLE = 50.0


def model_notes(m: ModelResult, res: EnsembleResult) -> list[str]:
    """Plain-words reasons a model's numbers look as they do (empty when nothing stands out)."""
    notes = []
    train_rows = res.smallest_training_fold
    is_baseline = res.baseline is not None and m.model == res.baseline.model
    if not is_baseline and m.n_selected >= train_rows - 1 \
            and not m.model.startswith(("Lasso", "ElasticNet", "RandomForest")):
        notes.append(f"saturated: {m.n_selected} features for about {train_rows} training workloads, so it "
                     "interpolates each training fold and extrapolates wildly on the held-out one")
    if m.e_in is not None and m.e_in > POOR_IN_SAMPLE:
        notes.append(f"poor even in sample (E_in {m.e_in:.0f} %): it is fitted for squared error, which the "
                     "largest workloads dominate, so the small ones get large percentage errors")
    n = len(m.ape or [])
    k, share, order = m.error_carriers()  # the fewest workloads carrying half of its summed APE
    if n >= 2 * SHOWN and k and k <= max(SHOWN, FEW_WORKLOADS * n):
        ape = np.nan_to_num(np.asarray(m.ape, dtype=float), nan=0.0)
        worst = ", ".join(f"{res.workload_ids[i]} ({ape[i]:,.0f} %)" for i in order[:SHOWN])
        notes.append(f"{k} of {n} workloads carry {100 * share:.0f} % of its error (worst: {worst}); "
                     f"the median workload is off by {m.median_ape:,.1f} %")
    return notes


def leaderboard_rows(res: EnsembleResult) -> list[dict]:
    """Rows best first: ★ the lowest E_out (which may be the baseline), ◆ the best non-negative model."""
    star, _ = res.star
    nnls = res.best_nnls.model if res.best_nnls else None
    rows = []
    for m in res.entries.values():
        mark = "★" if m.model == star else ("◆" if m.model == nnls else "")
        rows.append({"mark": mark, "model": m.model, "e_out": m.e_out, "e_out_fold_mean": m.e_out_fold_mean,
                     "e_in": m.e_in, "ir10": m.ir(10), "ir20": m.ir(20), "features": f"{m.n_selected}/{m.n_available}",
                     "fit_seconds": m.fit_seconds, "note": "; ".join(model_notes(m, res))})
    return sorted(rows, key=lambda r: r["e_out"])
