"""Counts predicted at inputs never run, as a design-review report (dashboard/ui/report.py): how each count
was obtained, the chart of the total (and of each block with a model) against input size with the measured
counts, the table with ranges, their level and the baseline, the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.counts.figures import predicted_counts
from dashboard.counts.results import CountsPredictionRun
from dashboard.counts.views import block_choices, prediction_facts, prediction_rows, provenance_text
from dashboard.ui.report import Report, Section, Table

MAX_CHARTS = 6  # the total and the first model-predicted blocks: a report, not every block of a program


def build(run: CountsPredictionRun, link: str) -> Report:
    p = run.prediction
    f = prediction_facts(run)
    shown = block_choices(run)[:MAX_CHARTS]
    table = Table([("inputs", "inputs"), ("block", "block / event"), ("how", "how"), ("predicted", "predicted count"),
                   ("lower", "lower"), ("upper", "upper"), ("level", "range level %"), ("error", "held-out error %"),
                   ("beyond", "× beyond measured"), ("baseline", "baseline (size scaling)"),
                   ("baseline_scales", "baseline scales with"), ("baseline_error", "baseline held-out error %"),
                   ("irregular", "irregular: reason")],
                  prediction_rows(run), digits=6)
    return Report(
        title=f"Counts of {p.program} at inputs never run",
        facts=[("exact blocks (the count itself)", f["exact"]), ("model-predicted blocks", f["model"]),
               ("irregular blocks", f["irregular"]), ("range level", f["level"])],
        sections=[Section("How each count was obtained", [f["text"], *f["notes"], f"Range rule: {p.rule}."]),
                  Section("Predicted against input size", figures=[predicted_counts(run, b) for b in shown]),
                  Section("Every predicted count", tables=[table])],
        inputs={"program": p.program, "model": p.model, "inputs": [p.inputs_of(i) for i in range(p.n_inputs)],
                **{k: v for k, v in run.params.items() if k not in ("program", "model")}},
        provenance=provenance_text(run), link=link,
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
