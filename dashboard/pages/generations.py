"""Generations side by side: one host, several targets (HALWPE Fig. 4, Tables 4-11)."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard import jobs
from dashboard.crossgen.figures import side_by_side, simulator_speedups, speedups
from dashboard.crossgen.generations import workload_sets_text
from dashboard.crossgen.kinds import GENERATIONS
from dashboard.crossgen.results import GenerationsRun
from dashboard.crossgen.params import register_dataset_dependents, register_folds_hint, scenario_controls
from dashboard.jobs.panel import job_panel, register_job
from dashboard.state import datasets
from dashboard.ui.components import alert, card, grid, num_col, register_csv
from dashboard.ui.fields import dropdown, field
from dashboard.ui.report_download import controls as report_controls
from dashboard.ui.figures import empty
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, Param, parse_or_default

dash.register_page(__name__, path="/generations", name="Generations", title="perfcast · generations", order=3,
                   description=('How much faster is each newer GPU per workload, and how well is each one predicted'
                                ' from the same host?'))

P = "generations"
JOB = list(GENERATIONS.params)
JOB_NAMES = GENERATIONS.names
VIEW = [Param("left", "choice", lambda v: v["targets"][0], lambda v: v["targets"]),
        Param("right", "choice", lambda v: v["targets"][-1], lambda v: v["targets"]),
        Param("order", "choice", lambda v: v["targets"][-1], lambda v: v["targets"])]
SIM_NOTE = ("No simulator times in this dataset, so the × vs simulator column is empty: it needs the host's "
            "run time and one simulator-time column per target, mapped when a table is uploaded on the Data "
            "page (the shipped Rodinia data has none).")
PARAMS = JOB + VIEW
FORM_IDS = [f"{P}-{n}" for n in JOB_NAMES]


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = GENERATIONS.request({k: v[k] for k in JOB_NAMES})
        except InvalidParameter as exc:
            error = str(exc)
    # a shared link whose result is cached is drawn in this response (no second round trip)
    res = jobs.result_for(request)
    speed_fig, rows, sim_fig, sim_style, sim_note = render_view(res, v["order"])
    return html.Div([
        html.H1("Generations side by side: one host, several targets"),
        html.P("How much faster is each newer GPU on every workload, and how well does the ensemble predict "
               "each one from the same host counters? Each target runs as its own scenario (cached and shared "
               "with the Scenario page).", className="lead"),
        alert(error) if error else None,
        card(html.Div(scenario_controls(P, v, target=False, multi_targets=v["targets"]), className="form-grid"),
             job_panel(P, request, "Compare generations"), share_box(P),
             report_controls(P, "the charts, the table, the inputs and the provenance")),
        card(field("Order workloads by the speedup of", dropdown(f"{P}-order", v["targets"], v["order"])),
             dcc.Graph(id=f"{P}-speedup-graph", figure=speed_fig)),
        card(html.H2("Best model per target"),
             grid(f"{P}-summary-grid", [
                 {"field": "target", "minWidth": 120},
                 {"field": "best_model", "headerName": "best model", "minWidth": 150},
                 num_col("e_out", "E_out %"), num_col("ir10", "IR@10 %", 1), num_col("ir20", "IR@20 %", 1),
                 {"field": "best_nnls", "headerName": "best NNLS", "minWidth": 160},
                 {**num_col("nnls_e_out", "NNLS E_out %"), "minWidth": 112},
                 {**num_col("baseline_e_out", "baseline E_out %"), "minWidth": 124},
                 {**num_col("n_workloads", "workloads", 0), "minWidth": 112},
                 {**num_col("n_excluded", "left out", 0), "minWidth": 100},
                 {**num_col("sim_speedup_mean", "× vs simulator (mean)", 0), "minWidth": 118}], rows=rows, height=260,
                 file_name="generations.csv"),
             html.Div(set_note(res), id=f"{P}-set-note"),
             html.P(sim_note, id=f"{P}-sim-note", className="hint")),
        html.Div(card(html.H2("Model vs simulator"),
                      html.P("Seconds a cycle-accurate simulator took per workload against the host run the model "
                             "needs (HALWPE Fig. 12). From the dataset's optional host run-time and simulator-time "
                             "columns.", className="hint"),
                      dcc.Graph(id=f"{P}-sim-graph", figure=sim_fig)),
                 id=f"{P}-sim-box", style=sim_style),
        card(html.H2("Two scenarios side by side"),
             html.Div([field("Left", dropdown(f"{P}-left", v["targets"], v["left"])),
                       field("Right", dropdown(f"{P}-right", v["targets"], v["right"]))], className="form-grid"),
             dcc.Graph(id=f"{P}-pair-graph", figure=pair_view(res, v["left"], v["right"]))),
    ])


register_folds_hint(P)
register_dataset_dependents(P, target=False, multi_targets=True)
register_url_sync(P, JOB_NAMES + ["left", "right", "order"], FORM_IDS + [f"{P}-left", f"{P}-right", f"{P}-order"])
register_job(P, GENERATIONS, FORM_IDS)
register_csv(f"{P}-summary-grid")


@callback(Output(f"{P}-left", "options"), Output(f"{P}-right", "options"), Output(f"{P}-order", "options"),
          Input(f"{P}-targets", "value"))
def _pair_options(targets):
    targets = [t for t in targets if isinstance(t, str)] if isinstance(targets, list) else []
    return targets, targets, targets


def set_note(run: GenerationsRun | None):
    text = workload_sets_text(run)
    return alert(text, "warning") if text else None


def render_view(run: GenerationsRun | None, order_by: str | None = None):
    """Speedup chart, summary rows, simulator chart, its box style and the simulator note."""
    hidden = {"display": "none"}
    if not run:
        return (empty("Compare generations to see per-workload speedups"), [], empty("Compare generations first"),
                hidden, None)
    fig = speedups(run, order_by) if run.speedup else empty("This dataset has no host metric column: no speedups")
    if not run.sim_speedup:
        return fig, run.table, empty("No simulator times in this dataset"), hidden, SIM_NOTE
    return fig, run.table, simulator_speedups(run), {"display": "block"}, None


def pair_view(run: GenerationsRun | None, left: str, right: str):
    """Two targets' scenarios side by side on shared axes."""
    if not run:
        return empty("Compare generations first")
    keys = run.scenario_keys
    if left not in keys or right not in keys:
        return empty("Choose two of the compared targets")
    a, b = jobs.get_result(keys[left]), jobs.get_result(keys[right])
    if a is None or b is None:
        return empty("A scenario result expired from the cache: compare again")

    def title(r, t):
        return f"{run.host} → {t}: {r.best.model} E_out {r.best.e_out:.2f} %"

    p = run.params or {}
    units = [datasets.unit_of({**p, "target": t}) for t in (left, right)]  # an upload's targets may differ
    return side_by_side(a.ensemble, b.ensemble, title(a, left), title(b, right),
                        units[0] if units[0] == units[1] else " / ".join(units))


# A cached result is drawn by the layout itself; these redraw on a new result or a changed pair.
@callback(Output(f"{P}-speedup-graph", "figure"), Output(f"{P}-summary-grid", "rowData"),
          Output(f"{P}-sim-graph", "figure"), Output(f"{P}-sim-box", "style"), Output(f"{P}-sim-note", "children"),
          Output(f"{P}-set-note", "children"),
          Input(f"{P}-ready", "data"), Input(f"{P}-order", "value"), prevent_initial_call=True)
def _render(ready, order_by):
    res = jobs.result_for(ready)
    return *render_view(res, order_by if isinstance(order_by, str) else None), set_note(res)


@callback(Output(f"{P}-pair-graph", "figure"), Input(f"{P}-ready", "data"), Input(f"{P}-left", "value"),
          Input(f"{P}-right", "value"), prevent_initial_call=True)
def _pair(ready, left, right):
    return pair_view(jobs.result_for(ready), left, right)


@callback(Output(f"{P}-report", "data"), Input(f"{P}-download-report", "n_clicks"), State(f"{P}-ready", "data"),
          State(f"{P}-order", "value"), prevent_initial_call=True)
def _report(n, ready, order_by):
    run = jobs.result_for(ready)
    if not isinstance(run, GenerationsRun) or not isinstance(n, int) or n <= 0:
        return no_update
    from dashboard.crossgen.generations_report import build
    from dashboard.ui.report import file_name, view_link

    params = run.params  # what the server parsed when it computed this result
    ds = datasets.get(params["dataset"])
    order_by = order_by if order_by in run.targets else None
    report = build(run, params, view_link("/generations", params), ds.name, ds.fingerprint, order_by)
    return dcc.send_bytes(report.html(), file_name(f"perfcast_generations_{run.host}"))
