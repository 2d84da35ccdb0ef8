"""/new-app's result sections as Dash components: the summary cards and what each render callback returns,
assembled from views (the numbers) and figures (the charts); the page keeps the layout and the callbacks."""

from __future__ import annotations

from dash import html

from dashboard.newapp import views
from dashboard.newapp.figures import estimates, hypothetical, per_application
from dashboard.newapp.views import P
from dashboard.ui.components import alert, card, stat
from dashboard.ui.figures import empty
from dashboard.state import datasets
from modeling.newapp.results import ApplicationEstimate, HeldOutEvaluation


def shown_block(on: bool) -> dict:
    return {} if on else {"display": "none"}


def _warnings(ws: list[dict], id_: str):
    return html.Div([alert([html.Strong(w["title"] + " "), w["evidence"]], "warning") for w in ws], id=id_)


def _summary(res: dict, app: ApplicationEstimate):
    return card(html.Div([stat(label, value, i) for label, value, i in views.application_facts(app)],
                         className="stats"),
                _warnings(app.warnings, f"{P}-warnings"),
                html.P(views.scenario_text(res), className="hint"))


def measured_content(res: dict | None, cal, cal_time) -> tuple:
    """Summary, calibration status, estimates (grid columns and rows, chart), per-workload grid (columns,
    rows) and every application held out (chart, columns, rows)."""
    if not res or "application" not in res:
        return (None, None, views.method_columns(), [], empty("Press Estimate to see the estimates"), [], [],
                empty("Press Estimate to see every application held out"), [], [])
    app, said, refused = views.shown_application(res, cal, cal_time)
    status = alert(refused) if refused else (alert(said, "info") if said else None)
    allres = HeldOutEvaluation.from_dict(res["all"])
    unit = datasets.unit_of(res["params"])
    figure = estimates(app, res["params"]["metric"], unit)
    return (_summary(res, app), status, views.method_columns(app), views.method_rows(app), figure,
            views.workload_columns(app, unit), app.rows, per_application(allres),
            views.held_out_columns(allres), views.held_out_rows(allres))


def _hypo_summary(res: dict):
    h = res["hypothetical"]
    note, _, text = views.hypo_texts(res)
    return card(
        html.H2(["Spec roofline on ", html.Span(h["device"]["device"], id=f"{P}-hypo-device"),
                 " (from its specs only)"]),
        alert(note, "info") if note else None,
        html.Div([stat(label, value, i) for label, value, i in views.hypo_facts(res)], className="stats"),
        _warnings(h["warnings"], f"{P}-hypo-warnings"),
        html.P(text, className="hint"))


def hypo_content(res: dict | None) -> tuple:
    """Summary, record (columns, rows), figure, per-workload rows and columns of a never-measured GPU, and
    which view shows (the measured one's style, then the never-measured one's)."""
    if not res or "hypothetical" not in res:
        return (None, views.track_columns(), [], empty("Press Estimate to see the estimates"), [],
                views.hypo_columns("s"), shown_block(True), shown_block(False))
    h = res["hypothetical"]
    track = views.track_rows(h["track"])
    unit = datasets.unit_of(res["params"])
    return (_hypo_summary(res), views.track_columns(track), track, hypothetical(h, unit), h["rows"],
            views.hypo_columns(unit, h["rows"]), shown_block(False), shown_block(True))
