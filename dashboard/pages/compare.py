"""Compare: two saved scenarios side by side (their inputs, leaderboards and per-workload errors)."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard import jobs
from dashboard.crossgen.compare_views import (INPUT_COLUMNS, MODEL_COLUMNS, STAR, model_choices, model_options,
                                              saved_options, summary, workload_columns, workload_view)
from dashboard.crossgen.kinds import COMPARE
from dashboard.crossgen.results import CompareRun
from dashboard.jobs.panel import job_panel, register_job
from dashboard.ui.components import alert, card, grid, register_csv
from dashboard.ui.fields import dropdown, field
from dashboard.ui.report_download import controls as report_controls
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, Param, parse_or_default

dash.register_page(__name__, path="/compare", name="Compare", title="perfcast · compare scenarios", order=1.5,
                   description=("Two saved scenarios side by side: which inputs differ, how every model's E_out "
                                "moved, and the workloads the two predict most differently."))

P = "compare"
VIEW = [Param("model_a", "choice", STAR, lambda v: [STAR, *model_choices()]),
        Param("model_b", "choice", STAR, lambda v: [STAR, *model_choices()])]
PARAMS = list(COMPARE.params) + VIEW
FORM_IDS = [f"{P}-{n}" for n in COMPARE.names]
HOW = ("To compare a scenario with its re-run on another host, target or cross-validation: open it from the "
       "Scenario page's saved list, change that field, run and save it, then choose both here.")


def _shown(flag) -> dict | None:
    return None if flag else {"display": "none"}


def layout(**query):
    options = saved_options()
    n = len(options)
    if n < 2:
        return html.Div([
            html.H1("Compare two saved scenarios"),
            html.Div(card(html.P([f"This project has {n} saved scenario{'s' if n != 1 else ''}; a "
                         "comparison needs two. Run a scenario on the ",
                         dcc.Link("Scenario page", href="/scenario"), ", press Save this scenario, and do the same "
                         "for the second one."]), html.P(HOW, className="hint")), id=f"{P}-too-few")])
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = COMPARE.request({n: v[n] for n in COMPARE.names})
        except InvalidParameter as exc:
            error = str(exc)
    res = jobs.result_for(request)  # a shared link whose result is cached is drawn in this response
    head, inputs, models = summary(res)
    fig, rows, verdict = workload_view(res, v["model_a"], v["model_b"])
    return html.Div([
        html.H1("Compare two saved scenarios"),
        html.P("Two cross-generation runs side by side: the inputs that differ, every model's out-of-fold error "
               "in both (the baseline included), and the workloads the two predict most differently. Nothing is "
               "refitted: each scenario's cached result is used, or computed once.", className="lead"),
        alert(error) if error else None,
        card(html.Div([field("Scenario A", dropdown(f"{P}-a", options, v["a"])),
                       field("Scenario B", dropdown(f"{P}-b", options, v["b"]))], className="pair-grid"),
             html.P(HOW, className="hint"),
             job_panel(P, request, "Compare"), share_box(P),
             report_controls(P, "both leaderboards, the inputs that differ, the per-workload chart and the "
                                "provenance")),
        html.Div(card(html.H2("Choose two saved scenarios and press Compare"), html.P(
            "You will see the inputs that differ, the two leaderboards merged by model with the E_out that moved "
            "marked, and the per-workload errors of both on one scale.", className="hint")),
            id=f"{P}-before", style=_shown(not res)),
        html.Div([
            html.Div(head, id=f"{P}-summary"),
            card(html.H2("Inputs"), grid(f"{P}-inputs", INPUT_COLUMNS, rows=inputs, height=330,
                                         file_name="compared_inputs.csv")),
            card(html.H2("Leaderboards side by side"),
                 html.P("E_out: mean APE of out-of-fold predictions (RastSim eq. 3), in each run. B − A in "
                        "percentage points: negative (green) where B predicts better, positive (red) where A does; "
                        "marked only when the two differ by ≥ 1 point and ≥ 10 % of the smaller. ★ each run's "
                        "lowest E_out (the baseline when no model beats it). Rank 1 is a run's best.",
                        className="hint"),
                 grid(f"{P}-models", MODEL_COLUMNS, rows=models, height=520, file_name="compared_leaderboards.csv")),
            card(html.H2("Per-workload errors on one scale"),
                 html.Div([field("Model in A", dropdown(f"{P}-model_a", model_options(), v["model_a"])),
                           field("Model in B", dropdown(f"{P}-model_b", model_options(), v["model_b"]))],
                          className="pair-grid"),
                 html.P(verdict, id=f"{P}-verdict", className="situation"),
                 dcc.Graph(id=f"{P}-ape-graph", figure=fig),
                 html.H3("Where the two disagree most"),
                 grid(f"{P}-workloads", workload_columns(res), rows=rows, height=420,
                      file_name="compared_workloads.csv")),
        ], id=f"{P}-results", style=_shown(res)),
    ])


register_url_sync(P, COMPARE.names + ["model_a", "model_b"], FORM_IDS + [f"{P}-model_a", f"{P}-model_b"])
register_job(P, COMPARE, FORM_IDS)
for g in ("inputs", "models", "workloads"):
    register_csv(f"{P}-{g}")


# A cached result is drawn by the layout itself; these redraw when a job finishes or a model choice changes.
@callback(Output(f"{P}-summary", "children"), Output(f"{P}-inputs", "rowData"), Output(f"{P}-models", "rowData"),
          Output(f"{P}-workloads", "columnDefs"), Output(f"{P}-results", "style"), Output(f"{P}-before", "style"),
          Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render(ready):
    res = jobs.result_for(ready)
    return *summary(res), workload_columns(res), _shown(res), _shown(not res)


@callback(Output(f"{P}-ape-graph", "figure"), Output(f"{P}-workloads", "rowData"), Output(f"{P}-verdict", "children"),
          Input(f"{P}-ready", "data"), Input(f"{P}-model_a", "value"), Input(f"{P}-model_b", "value"),
          prevent_initial_call=True)
def _workloads(ready, model_a, model_b):
    return workload_view(jobs.result_for(ready), model_a, model_b)


@callback(Output(f"{P}-report", "data"), Input(f"{P}-download-report", "n_clicks"), State(f"{P}-ready", "data"),
          prevent_initial_call=True)
def _report(n, ready):
    run = jobs.result_for(ready)
    if not isinstance(run, CompareRun) or not isinstance(n, int) or n <= 0:
        return no_update
    from dashboard.crossgen.compare_report import build
    from dashboard.ui.report import file_name, view_link

    params = run.params  # what the server parsed when it computed this result
    report = build(run, view_link("/compare", params))
    return dcc.send_bytes(report.html(), file_name(f"perfcast_compare_{run.a.name}_{run.b.name}"))
