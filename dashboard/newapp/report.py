"""A GPU never built or measured, as a design-review report (dashboard/ui/report.py): its summary
(:meth:`dashboard.newapp.results.UnbuiltGpuRun.summary`: what the estimates are and how far the same rule was on
measured GPUs, its record per pair, every workload's estimate, the provenance) with the chart beside the
estimates, the four held-out splits before the estimates, and the inputs."""

from __future__ import annotations

from dashboard.newapp.figures import hypothetical
from dashboard.newapp.results import UnbuiltGpuRun
from dashboard.newapp.views import (SPLIT_COLUMNS, SPLIT_SUMMARY_COLUMNS, kernel_table, resembled_split, split_rows,
                                    split_summary_rows)
from dashboard.state import datasets
from dashboard.ui import summary_report
from dashboard.ui.report import Report, Section, Table


def build(run: UnbuiltGpuRun, link: str) -> Report:
    unit = datasets.unit_of(run.params)
    report = summary_report.report(run.summary(unit), run.params, link,
                                   {"workloads": [hypothetical(run.estimate, unit)]})
    split, said = resembled_split(run)
    if split is not None:
        cols = [*SPLIT_COLUMNS, ("note", "note")]
        report.sections.insert(len(report.sections) - 1, Section(
            "How it held with measured GPUs held out: four splits", [said],
            tables=[Table(list(SPLIT_SUMMARY_COLUMNS), split_summary_rows(run.splits), "All four splits"),
                    *[Table(cols, split_rows(s), s.label) for s in run.splits.splits],
                    Table(*kernel_table(split), "Mean APE % per kernel and held-out GPU")]))
    return report
