"""A /compare result as a design-review report (dashboard/ui/report.py): the comparison's summary
(:meth:`dashboard.crossgen.results.CompareRun.summary`: each run's ★, what the numbers mean, the two saved scenarios'
inputs with the ones that differ, both leaderboards merged by model, the baseline included, and the per-workload
errors of the two ★ entries with their chart), the two saved scenarios' names and the share link."""

from __future__ import annotations

from dashboard.crossgen.figures import ape_pair
from dashboard.crossgen.results import CompareRun
from dashboard.ui import summary_report
from dashboard.ui.report import Report


def build(run: CompareRun, link: str) -> Report:
    w = run.comparison.workloads
    sa, sb = run.comparison.star_a[0], run.comparison.star_b[0]
    figures = {"workloads": [ape_pair(w.rows, sa, sb, f"APE per workload: {sa} in A against {sb} in B")]}
    return summary_report.report(run.summary(), {"A": run.a.name, "B": run.b.name}, link, figures)
