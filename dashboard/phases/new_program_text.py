"""The words and rows /phases shows of a new program's prediction (its headline numbers, how it was made,
its phases), from the typed result (:class:`modeling.phases.prediction.PhasePrediction`)."""

from __future__ import annotations

import math

from dashboard.phases.figures import NAMES
from dashboard.phases.results import NewProgramRun


def np_facts(run: NewProgramRun) -> list[tuple[str, str]]:
    """The headline numbers of a new program's prediction: (label, value)."""
    pred = run.prediction
    t, unit = pred.total, pred.unit
    fmt = (lambda x: f"{x / 1e9:.3f} × 10⁹") if unit == "cycles" else (lambda x: f"{x:.3f}")
    what = "total cycles" if pred.target == "cycles" else "average power"
    exp = t.get("expected_error")
    interval = (f"{fmt(t['lower'])} – {fmt(t['upper'])} {unit}" if pred.total_supported
                else f"not supported ({pred.n_programs} programs)" + (
                    f"; expect ±{exp['median_ape']:.1f} % (median), up to {exp['max_ape']:.1f} %" if exp else ""))
    return [(f"predicted {what}", f"{fmt(t['predicted'])} {unit}"), (f"{pred.level * 100:g} % interval", interval),
            ("model", NAMES[pred.model]), ("phases / fall-back", f"{len(pred.phase)} / {sum(pred.fallback)}"),
            ("host × median whole-program ratio", f"{fmt(t['program_ratio'])} {unit}")]


def np_text(run: NewProgramRun) -> str:
    """What a new program's prediction is, how the model was chosen and what its intervals reached."""
    pred = run.prediction
    exp = pred.total.get("expected_error")
    total = (f"the total from the held-out programs' totals (×/÷ {math.exp(pred.total_half_width):.3f})"
             if pred.total_supported else
             f"no interval on the total: {pred.n_programs} programs are too few for {pred.level * 100:g} %"
             + (f"; the held-out training programs' whole runs were off by {exp['median_ape']:.1f} % (median), "
                f"{exp['mean_ape']:.1f} % (mean) and up to {exp['max_ape']:.1f} % over {exp['runs']} runs, the "
                "error to expect" if exp else ""))
    edges = pred.total.get("edges")
    whole = (f" The total is the whole run: the phases and the run's first and last samples "
             f"({edges['host_share'] * 100:.1f} % of the host run), which are not cut into phases."
             if edges and edges.get("rows") else "")
    return (f"{pred.program} ({run.trace_name}): {pred.host_freq:g} → {pred.target_freq:g} MHz, trained "
            f"on {pred.n_programs} programs of {pred.training} ({pred.n_phases} phases). "
            + (pred.selection or f"Model: {NAMES[pred.model]}.")
            + f" Intervals from the same CV's residuals: per phase, each training program's own "
            f"{pred.level * 100:g} % quantile of |log(measured / predicted)|, then the conformal rank over "
            f"programs (×/÷ {math.exp(pred.phase_half_width):.3f}); {total}. In that CV "
            f"{pred.cv_coverage['phases_percent']:.1f} % of phases and "
            f"{pred.cv_coverage['totals_percent']:.1f} % of program totals fell inside intervals built "
            "without their program." + whole + " "
            + ("Notes: " + "; ".join(pred.notes) + "." if pred.notes else ""))


def np_rows(run: NewProgramRun) -> list[dict]:
    """The table's rows: one per phase."""
    return [{"phase": p["phase"], "start": p["start_instructions"] / 1e9, "predicted": p["predicted"],
             "lower": p["lower"], "upper": p["upper"], "fallback": "yes" if p["fallback"] else ""}
            for p in run.prediction.phases]
