"""The /predict result as a design-review report (dashboard/ui/report.py): the headline numbers, what the
interval means, the chart and the table of predictions with the baseline beside each, the candidates the
nested cross-validation compared, the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.predict import views
from dashboard.predict.figures import predictions
from dashboard.predict.results import PredictRun
from dashboard.ui.format import with_unit
from dashboard.ui.report import Report, Section, Table


def build(run: PredictRun, link: str, metric_label: str, unit: str) -> Report:
    f, m = views.facts(run), views.model_facts(run)
    p, pred = run.params, run.prediction
    rows = [{**r, "applicable": r["applicable"].split(" ", 1)[-1]} for r in views.table_rows(run)]
    table = Table([("id", "workload"), ("application", "application"), ("predicted", with_unit("predicted", unit)),
                   ("lower", with_unit("lower", unit)), ("upper", with_unit("upper", unit)),
                   ("baseline", with_unit("baseline", unit)),
                   ("baseline_lower", "baseline lower"), ("baseline_upper", "baseline upper"),
                   ("applicable", "applicable"), ("why", "why")], rows)
    notes = [views.outside_sentence(run), f["versus_baseline"], f["supported"], *pred.notes]
    cands = views.candidate_rows(run)
    sections = [
        Section("What the numbers mean", [f["interval"], *[n for n in notes if n],
                                          f"Model: {m['model']}: {m['why']}.",
                                          f"Interval: nominal {f['level']}; {f['coverage_detail']}.",
                                          f"Error: {f['error_detail']}.",
                                          f"Baseline: {f['baseline_detail']}." if f["baseline_detail"] else "",
                                          f"Stability: {m['folds']}." if m["folds"] else "",
                                          f"Workloads: {views.workloads_sentence(run)}"]),
        Section("Predictions with their intervals", figures=[predictions(run, metric_label, unit)], tables=[table]),
    ]
    if cands:
        sections.append(Section("Candidates compared by nested cross-validation", tables=[Table(
            [("chosen", ""), ("rank", "#"), ("candidate", "candidate"), ("male", "mean |log error|"),
             ("mean_ape", "mean APE %"), ("median_ape", "median APE %"), ("ir10", "within 10 %")], cands)]))
    return Report(
        title=f"Predictions for {p['target']}: {pred.n_new} workloads never measured there",
        facts=[("model used", m["model"]), ("interval level (asked)", f["level"]),
               ("held-out coverage reached", f["coverage"]),
               ("held-out interval width (median upper / lower)", f["width"] or "–"),
               ("CV error (procedure)", f["error"]),
               ("CV error (baseline)", f["baseline_error"]), ("trained / predicted / applicable", f["counts"])],
        sections=sections, inputs=dict(p),
        provenance=views.scenario_sentence(run, unit),
        link=link, generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
