"""The summary of a new program's predicted target trace (:class:`modeling.results.Summary`): the headline
numbers, how it was predicted and how sure, the notes, the table per phase and the provenance. The command line
(``python -m modeling phases predict``), /phases' "Predict a new program" card and its report render this one
summary (:meth:`modeling.phases.prediction.PhasePrediction.summary`)."""

from __future__ import annotations

import math

from modeling.phases.names import NAMES
from modeling.results import Fact, Note, Summary, SummaryTable


def facts(pred) -> tuple[Fact, ...]:
    """The headline numbers: the total, its interval, the model, the phases and fall-backs, the two baselines."""
    t, unit = pred.total, pred.unit
    fmt = (lambda x: f"{x / 1e9:.3f} × 10⁹") if unit == "cycles" else (lambda x: f"{x:.3f}")
    what = "total cycles" if pred.target == "cycles" else "average power"
    exp = t.get("expected_error")
    interval = (f"{fmt(t['lower'])} – {fmt(t['upper'])} {unit}" if pred.total_supported
                else f"not supported ({pred.n_programs} programs)" + (
                    f"; expect ±{exp['median_ape']:.1f} % (median), up to {exp['max_ape']:.1f} %" if exp else ""))
    return (Fact(f"predicted {what}", f"{fmt(t['predicted'])} {unit}", key="total"),
            Fact(f"{pred.level * 100:g} % interval", interval, key="interval"),
            Fact("model", NAMES[pred.model], key="model-used"),
            Fact("phases / fall-back", f"{len(pred.phase)} / {sum(pred.fallback)}", key="counts"),
            Fact("host × median whole-program ratio", f"{fmt(t['program_ratio'])} {unit}"),
            Fact("host × median per-phase ratio", f"{fmt(t['baseline'])} {unit}"))


def lead(pred, trace_name: str) -> str:
    """What the prediction is, how the model was chosen and what its intervals reached."""
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
    return (f"{pred.program} ({trace_name}): {pred.host_freq:g} → {pred.target_freq:g} MHz, trained "
            f"on {pred.n_programs} programs of {pred.training} ({pred.n_phases} phases). "
            + (pred.selection or f"Model: {NAMES[pred.model]}.")
            + f" Intervals from the same CV's residuals: per phase, each training program's own "
            f"{pred.level * 100:g} % quantile of |log(measured / predicted)|, then the conformal rank over "
            f"programs (×/÷ {math.exp(pred.phase_half_width):.3f}); {total}. In that CV "
            f"{pred.cv_coverage['phases_percent']:.1f} % of phases and "
            f"{pred.cv_coverage['totals_percent']:.1f} % of program totals fell inside intervals built "
            "without their program." + whole)


def rows(pred) -> list[dict]:
    """The table's rows: one per phase."""
    return [{"phase": p["phase"], "start": p["start_instructions"] / 1e9, "predicted": p["predicted"],
             "lower": p["lower"], "upper": p["upper"], "fallback": "yes" if p["fallback"] else ""}
            for p in pred.phases]


def summarize(pred, trace_name: str = "", provenance=None, provenance_text: str = "") -> Summary:
    import pandas as pd

    unit = pred.unit
    columns = (("phase", "phase"), ("start", "start (×10⁹ instructions)"), ("predicted", f"predicted ({unit})"),
               ("lower", f"lower ({unit})"), ("upper", f"upper ({unit})"), ("fallback", "fall-back"))
    table = SummaryTable("Predicted target trace", pd.DataFrame(rows(pred), columns=[f for f, _ in columns]),
                         columns, key="phases", digits=6)
    return Summary(f"Target trace of {pred.program}, never run on the target", facts(pred),
                   lead(pred, trace_name or pred.program), tuple(Note(n) for n in pred.notes), (), (table,),
                   provenance, provenance_text)
