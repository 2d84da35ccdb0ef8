"""A new program's predicted target trace as a design-review report (dashboard/ui/report.py): its summary
(:meth:`dashboard.phases.results.NewProgramRun.summary`: the headline numbers, what was predicted and how sure,
the notes, the table per phase, the provenance) with the chart of the trace beside the table, and the inputs."""

from __future__ import annotations

from dashboard.phases.figures import new_program
from dashboard.phases.results import NewProgramRun
from dashboard.ui import summary_report
from dashboard.ui.report import Report


def build_new_program(run: NewProgramRun, link: str) -> Report:
    return summary_report.report(run.summary(), run.params, link, {"phases": [new_program(run)]})
