"""Counts predicted at inputs never run, as a design-review report (dashboard/ui/report.py): its summary
(:meth:`dashboard.counts.results.CountsPredictionRun.summary`: how many counts are exact, model-predicted and
irregular, what the numbers mean, the range rule, every predicted count with its range, level and baseline, the
provenance), the charts of the total (and of the first blocks) against input size with the measured counts beside
the table, and the inputs."""

from __future__ import annotations

from dashboard.counts.figures import predicted_counts
from dashboard.counts.results import CountsPredictionRun
from dashboard.counts.views import block_choices
from dashboard.ui import summary_report
from dashboard.ui.report import Report
from modeling.counts.summary import PREDICTION_DECIMALS

MAX_CHARTS = 6  # the total and the first model-predicted blocks: a report, not every block of a program


def build(run: CountsPredictionRun, link: str) -> Report:
    p = run.prediction
    charts = [predicted_counts(run, b) for b in block_choices(run)[:MAX_CHARTS]]
    inputs = {"program": p.program, "model": p.model, "inputs": [p.inputs_of(i) for i in range(p.n_inputs)],
              **{k: v for k, v in run.params.items() if k not in ("program", "model")}}
    s = run.summary()
    report = summary_report.report(s, inputs, link, {"predictions": charts})
    table = next(t for sec in report.sections for t in sec.tables)
    table.rows = [whole_counts(r) for r in table.rows]
    return report


def whole_counts(row: dict) -> dict:
    """A row of the table with its counts whole and thousands separated, as the page's grid and the command line
    show them (the report's numbers are otherwise to 6 significant digits: 1e+08 for 100,000,066)."""
    return {**row, **{f: f"{row[f]:,.{d}f}" for f, d in PREDICTION_DECIMALS.items() if row.get(f) is not None}}
