"""A new program's predicted target trace as a design-review report (dashboard/ui/report.py): the headline
numbers, what was predicted and how sure, the chart of the trace with its intervals, the table per phase, the
inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.phases.figures import new_program
from dashboard.phases.new_program_text import np_facts, np_rows, np_text
from dashboard.phases.results import NewProgramRun
from dashboard.ui.report import Report, Section, Table


def build_new_program(run: NewProgramRun, link: str) -> Report:
    pred = run.prediction
    unit = pred.unit
    table = Table([("phase", "phase"), ("start", "start (×10⁹ instructions)"), ("predicted", f"predicted ({unit})"),
                   ("lower", f"lower ({unit})"), ("upper", f"upper ({unit})"), ("fallback", "fall-back")],
                  np_rows(run), digits=6)
    return Report(
        title=f"Target trace of {pred.program}, never run on the target",
        facts=np_facts(run), sections=[Section("What was predicted, and how sure", [np_text(run)]),
                                       Section("Predicted target trace", figures=[new_program(run)], tables=[table])],
        inputs=dict(run.params),
        provenance=run.provenance_text,
        link=link,
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
