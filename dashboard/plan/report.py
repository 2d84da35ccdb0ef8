"""The /plan result as a design-review report (dashboard/ui/report.py): the plan's summary
(:meth:`dashboard.plan.results.PlanPage.summary`, the facts, notes and tables the page's card and the command line
say) with the replay chart beside its table, the inputs and the link."""

from __future__ import annotations

from dashboard.plan import views
from dashboard.plan.figures import replay
from dashboard.ui.report import Report
from dashboard.ui.summary_report import report


def build(page: views.PlanPage, link: str) -> Report:
    chart = replay(views.replay_series(page), "simulator hours spent", views.replay_title(page))
    return report(page.summary(), page.params, link, figures={"replay": [chart]})
