"""Accelerometer: bounds, optimization regions, totem plots and the advisor for one accelerator."""

import time

import dash
from dash import Input, Output, callback, dcc, html

from dashboard.accelerators import sources
from dashboard.ui.components import alert, card, grid, num_col, register_csv, stat
from dashboard.ui.figures import empty
from dashboard.accelerators.fields import custom_accelerator_box
from dashboard.ui.fields import dropdown, field, number_field
from dashboard.ui import report_download
from dashboard.ui.share import register_url_sync, share_box
from dashboard.accelerators.report import build_accelerometer
from dashboard.accelerators.views import ACCEL_PARAMS, accelerometer_view
from dashboard.ui.url_state import InvalidParameter, parse_or_default, render_parsed
from dashboard.ui.format import message
from modeling.errors import ModelingError
from modeling.accelerators.advisor import fmt_bytes

dash.register_page(__name__, path="/accelerometer", name="Accelerometer", title="perfcast · Accelerometer",
                   order=8,
                   description=("What bounds an accelerator's speedup, which parameter to improve at which "
                                'granularity, and by how much to reach a target speedup?'))

P = "accel"
PARAMS = ACCEL_PARAMS
NAMES = [p.name for p in PARAMS]


def _num(name, value, label=None, hint=None):
    return number_field(P, name, value, label, hint)


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    # the first view is drawn by the layout itself (no second round trip before the charts); the callback
    # redraws when an input changes
    bounds, regions, totem, region_rows, cutoffs, advice, view_error, took = _outputs(v, time.perf_counter())
    return html.Div([
        html.H1("Accelerometer: what limits this accelerator, and what to improve"),
        html.P("Bounds and bottlenecks of a LogCA accelerator (thesis ch. 6): which ceiling the speedup runs "
               "into, which parameters pay off at which granularity (a parameter is in a region when improving "
               "it by the factor gains at least the threshold), totem plots for smaller and extreme changes, and "
               "the programmer's and architect's decision for a target speedup.", className="lead"),
        alert(error) if error else None,
        card(html.Div([
            field("Accelerator", dropdown(f"{P}-acc", sources.options(v["timing"]), v["acc"]),
                  html.Span(["the project's timing tables uploaded on ", dcc.Link("/logca", href="/logca"),
                             " are listed too, fitted"])),
            _num("factor", v["factor"], "improvement factor"),
            _num("threshold", v["threshold"], "gain threshold %"),
            _num("gmin", v["gmin"], "from (bytes)"), _num("gmax", v["gmax"], "to (bytes)"),
            _num("target", v["target"], "target speedup"),
            _num("g0", v["g0"], "operating granularity (bytes)"),
        ], className="form-grid"),
            custom_accelerator_box(P, v, v["acc"] == "custom"),
            dcc.Input(id=f"{P}-timing", type="hidden", value=v["timing"] or ""),
            share_box(P), report_download.controls(P)),
        html.Div(view_error, id=f"{P}-error"),
        html.Div(advice, id=f"{P}-advice"),
        card(dcc.Graph(id=f"{P}-bounds-graph", figure=bounds)),
        card(dcc.Graph(id=f"{P}-regions-graph", figure=regions),
             html.Div([
                 grid(f"{P}-regions-grid", [{"field": "params", "headerName": "region"},
                                            num_col("from", "from (B)", 1), num_col("to", "to (B)", 1),
                                            {"field": "from_text", "headerName": "from"},
                                            {"field": "to_text", "headerName": "to"}],
                      rows=region_rows, height=220, file_name="accelerometer-regions.csv"),
                 grid(f"{P}-cutoffs-grid", [{"field": "parameter"}, num_col("from", "from (B)", 1),
                                            num_col("to", "to (B)", 1), {"field": "from_text", "headerName": "from"},
                                            {"field": "to_text", "headerName": "to"}],
                      rows=cutoffs, height=220, file_name="accelerometer-cutoffs.csv"),
             ], className="two-grids"),
             html.Div(took, id=f"{P}-time", className="hint")),
        card(dcc.Graph(id=f"{P}-totem-graph", figure=totem)),
    ])


register_url_sync(P, NAMES, [f"{P}-{n}" for n in NAMES])
report_download.register(P, NAMES, PARAMS, "/accelerometer", build_accelerometer,
                         lambda v: f"perfcast_accelerometer_{v['acc']}")
register_csv(f"{P}-regions-grid")
register_csv(f"{P}-cutoffs-grid")


def _advice_card(a):
    f = a["min_factors"]
    rows = [html.Tr([html.Td(k), html.Td(f"{x['factor']:.3g}×" if x["reachable"] else "unreachable"),
                     html.Td(f"{x['bound']:.3g}")]) for k, x in f.items()]
    return card(
        html.H2(f"Advisor: target {a['target']:g}× at {fmt_bytes(a['granularity'])}"),
        html.Div([stat("speedup now", f"{a['speedup']:.3g}", f"{P}-speedup-now"),
                  stat("optimization region", a["region"] or "none", f"{P}-region-now"),
                  stat("smallest granularity for the target", fmt_bytes(a["min_granularity"]), f"{P}-gmin-target")],
                 className="stats"),
        html.Div([
            html.Div([html.H3("Programmer"), html.P(a["programmer"]["decision"], id=f"{P}-programmer"),
                      html.Ul([html.Li(n) for n in a["programmer"]["notes"]])], className="advice-col"),
            html.Div([html.H3("Architect"), html.P(a["architect"]["decision"], id=f"{P}-architect"),
                      html.Ul([html.Li(n) for n in a["architect"]["notes"][:1]])], className="advice-col"),
        ], className="advice"),
        html.Table([html.Thead(html.Tr([html.Th("parameter"), html.Th("smallest improvement reaching the target"),
                                        html.Th("speedup at its extreme")])), html.Tbody(rows)],
                   className="simple-table", id=f"{P}-factors"))


@callback(Output(f"{P}-bounds-graph", "figure"), Output(f"{P}-regions-graph", "figure"),
          Output(f"{P}-totem-graph", "figure"), Output(f"{P}-regions-grid", "rowData"),
          Output(f"{P}-cutoffs-grid", "rowData"), Output(f"{P}-advice", "children"),
          Output(f"{P}-error", "children"), Output(f"{P}-time", "children"),
          [Input(f"{P}-{n}", "value") for n in NAMES], prevent_initial_call=True)
def _render(*vals):
    return render_parsed(dict(zip(NAMES, vals)), PARAMS, _outputs, _invalid)


def _invalid(exc) -> tuple:
    e = empty("Invalid input")
    return e, e, e, [], [], None, alert(message(exc)), ""


def _outputs(v: dict, start: float) -> tuple:
    """Every view of the page for parsed settings ``v`` (an alert and empty views when they do not work)."""
    try:
        out = accelerometer_view(v)
    except (InvalidParameter, LookupError, ModelingError) as exc:
        return _invalid(exc)
    ms = (time.perf_counter() - start) * 1000
    return (out["bounds"], out["regions"], out["totem"], out["region_rows"], out["cutoffs"],
            _advice_card(out["advice"]), None, f"computed on the server in {ms:.0f} ms")
