"""The /predict result as a design-review report (dashboard/ui/report.py): the headline numbers, what the
interval means, the chart and the table of predictions with the baseline beside each, the candidates the
nested cross-validation compared, the inputs and the provenance."""

from __future__ import annotations

import time

from dashboard.predict import views
from dashboard.predict.figures import predictions
from dashboard.ui.format import unit_text, with_unit
from dashboard.ui.report import Report, Section, Table


def build(res: dict, link: str, metric_label: str, unit: str) -> Report:
    f, m = views.facts(res), views.model_facts(res)
    p = res["params"]
    rows = [{**r, "applicable": r["applicable"].split(" ", 1)[-1]} for r in views.table_rows(res)]
    table = Table([("id", "workload"), ("application", "application"), ("predicted", with_unit("predicted", unit)),
                   ("lower", with_unit("lower", unit)), ("upper", with_unit("upper", unit)),
                   ("baseline", with_unit("baseline", unit)),
                   ("baseline_lower", "baseline lower"), ("baseline_upper", "baseline upper"),
                   ("applicable", "applicable"), ("why", "why")], rows)
    notes = [f["versus_baseline"], f["supported"], *(res.get("notes") or [])]
    if res["n_applicable"] < res["n_new"]:
        notes.insert(0, f"{res['n_new'] - res['n_applicable']} of {res['n_new']} workloads are outside the training "
                        "data: their predictions are extrapolations and their intervals are not valid there.")
    cands = views.candidate_rows(res)
    sections = [
        Section("What the numbers mean", [f["interval"], *[n for n in notes if n],
                                          f"Model: {m['model']}: {m['why']}.",
                                          f"Interval: nominal {f['level']}; {f['coverage_detail']}.",
                                          f"Error: {f['error_detail']}.",
                                          f"Baseline: {f['baseline_detail']}." if f["baseline_detail"] else "",
                                          f"Stability: {m['folds']}." if m["folds"] else "",
                                          f"Workloads: {res['n_train']} measured ones trained the model; "
                                          f"{res['n_new']} predicted from {res['source_name']}, "
                                          f"{res['n_applicable']} of them inside the training data."]),
        Section("Predictions with their intervals", figures=[predictions(res, metric_label, unit)], tables=[table]),
    ]
    if cands:
        sections.append(Section("Candidates compared by nested cross-validation", tables=[Table(
            [("chosen", ""), ("rank", "#"), ("candidate", "candidate"), ("male", "mean |log error|"),
             ("mean_ape", "mean APE %"), ("median_ape", "median APE %"), ("ir10", "within 10 %")], cands)]))
    return Report(
        title=f"Predictions for {p['target']}: {res['n_new']} workloads never measured there",
        facts=[("model used", m["model"]), ("interval level (asked)", f["level"]),
               ("held-out coverage reached", f["coverage"]),
               ("held-out interval width (median upper / lower)", f["width"] or "–"),
               ("CV error (procedure)", f["error"]),
               ("CV error (baseline)", f["baseline_error"]), ("trained / predicted / applicable", f["counts"])],
        sections=sections, inputs=dict(p),
        provenance=(f"{res['dataset_name']}: {res['host_label']} → {p['target']}, {p['metric']} ({unit_text(unit)}). "
                    f"{res['how']}. {views.provenance_text(res)}"),
        link=link, generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
