"""A GPU never built or measured, as a design-review report (dashboard/ui/report.py): its summary
(:meth:`dashboard.newapp.results.UnbuiltGpuRun.summary`: what the estimates are and how far the same rule was on
measured GPUs, its record per pair, every workload's estimate, the provenance) with the chart beside the
estimates, and the inputs."""

from __future__ import annotations

from dashboard.newapp.figures import hypothetical
from dashboard.newapp.results import UnbuiltGpuRun
from dashboard.state import datasets
from dashboard.ui import summary_report
from dashboard.ui.report import Report


def build(run: UnbuiltGpuRun, link: str) -> Report:
    unit = datasets.unit_of(run.params)
    return summary_report.report(run.summary(unit), run.params, link,
                                 {"workloads": [hypothetical(run.estimate, unit)]})
