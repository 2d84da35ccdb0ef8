"""The /predict result as a design-review report (dashboard/ui/report.py): its summary
(:meth:`dashboard.predict.results.PredictRun.summary`: the headline numbers, what the interval means, the notes
and details, the table of predictions with the baseline beside each and the candidates the nested
cross-validation compared, the provenance) with the chart beside the table, and the inputs."""

from __future__ import annotations

from dashboard.predict.figures import predictions
from dashboard.predict.results import PredictRun
from dashboard.ui import summary_report
from dashboard.ui.report import Report


def build(run: PredictRun, link: str, metric_label: str, unit: str) -> Report:
    return summary_report.report(run.summary(unit), run.params, link,
                                 {"predictions": [predictions(run, metric_label, unit)]})
