"""LogCA: speedup of accelerators against offloaded granularity, energy, several accelerators, fits."""

import time

import dash
from dash import Input, Output, callback, dcc, html, no_update

from dashboard.access.projects import refused
from dashboard.accelerators import sources
from dashboard.state import files
from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert, card, grid, num_col, register_csv
from dashboard.ui.figures import empty
from dashboard.accelerators.fields import custom_accelerator_box
from dashboard.ui.fields import dropdown, field, number_field
from dashboard.ui import report_download
from dashboard.ui.share import register_url_sync, share_box
from dashboard.accelerators.report import build_logca
from dashboard.accelerators.views import LOGCA_PARAMS, MULTI_MODES, logca_view
from dashboard.state.uploads import decode_upload, parse_upload
from dashboard.ui.url_state import InvalidParameter, parse_or_default, render_parsed
from dashboard.ui.format import message
from modeling.errors import ModelingError

dash.register_page(__name__, path="/logca", name="LogCA", title="perfcast · LogCA", order=7,
                   description=('Is offloading a kernel to an accelerator worth it, from how many bytes on, and how'
                                ' close does it get to its peak? Presets, fits of measured timings, energy, several'
                                ' accelerators.'))

P = "logca"
PARAMS = LOGCA_PARAMS
NAMES = [p.name for p in PARAMS]


def _num(name, value, hint=None):
    return number_field(P, name, value, hint=hint)


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    opts = sources.options(v["timing"])
    # the first view is drawn by the layout itself (no second round trip before the chart); the callback
    # redraws when an input changes
    (speedup, rows, energy, energy_note, multi, fit_rows, fit_note, implications, view_error,
     took) = _outputs(v, time.perf_counter())
    return html.Div([
        html.H1("LogCA: when does offloading pay, and how much?"),
        html.P("Speedup of an accelerator over its host as a function of the bytes offloaded per call "
               "(LogCA, eq. 4.4 / 4.10): latency L, overhead o, computational index C, acceleration A and the "
               "kernel's complexity g^β. Compare thesis presets, accelerators fitted from timings measured on "
               "this machine or uploaded, and your own parameters.", className="lead"),
        alert(error) if error else None,
        card(html.Div([
            field("Accelerators", dropdown(f"{P}-acc", opts, v["acc"], multi=True)),
            field("Focus (tabs below)", dropdown(f"{P}-focus", [o for o in opts if o["value"] in v["acc"]],
                                                 v["focus"])),
            _num("gmin", v["gmin"], hint="smallest granularity, bytes"),
            _num("gmax", v["gmax"], hint="largest granularity, bytes"),
        ], className="form-grid"),
            custom_accelerator_box(P, v, "custom" in v["acc"]),
            html.Div([
                editor_only(dcc.Upload(html.Button("Upload a timing table (CSV/Parquet)", className="btn"),
                                       id=f"{P}-upload", max_size=-1), "upload"),
                html.Span("columns kernel, granularity_bytes, repeat, host_s, accel_s (optional host_j, "
                          "accel_j, clock_hz)", className="hint"),
                dcc.Input(id=f"{P}-timing", type="hidden", value=v["timing"] or ""),
            ], className="run-row"),
            html.Div(id=f"{P}-upload-status"),
            share_box(P), report_download.controls(P)),
        html.Div(view_error, id=f"{P}-error"),
        card(dcc.Graph(id=f"{P}-speedup-graph", figure=speedup, config={"toImageButtonOptions": {
            "filename": "logca-speedup"}}),
             html.Div(took, id=f"{P}-time", className="hint")),
        card(html.H2("Metrics (exact roots beside the thesis' closed forms; empty: does not exist)"),
             grid(f"{P}-grid", [{"field": "accelerator", "minWidth": 200}, {"field": "latency", "minWidth": 120},
                                {**num_col("L", "L", 4), "minWidth": 112}, num_col("o", "o", 1), num_col("C", "C", 3),
                                num_col("A", "A", 3), num_col("beta", "β", 3), num_col("g1", "g1 (B)", 1),
                                num_col("g1_thesis", "g1 closed form", 1), num_col("g_half", "g_A/2 (B)", 1),
                                num_col("g_half_thesis", "g_A/2 closed form", 1), num_col("bound", "bound", 3),
                                {"field": "bound_kind", "headerName": "bound kind", "minWidth": 104}],
                  rows=rows, height=200, file_name="logca-metrics.csv")),
        dcc.Tabs(id=f"{P}-tab", value=v["tab"], children=[
            dcc.Tab(label="Energy (LogCA^e)", value="energy", children=card(
                html.Div([_num(f"e{k}", v[f"e{k}"], hint=f"{k}^e (empty: default)") for k in "LoCA"],
                         className="form-grid"),
                html.Div(energy_note, id=f"{P}-energy-note", className="hint"),
                dcc.Graph(id=f"{P}-energy-graph", figure=energy))),
            dcc.Tab(label="Multiple accelerators", value="multi", children=card(html.Div([
                field("Arrangement", dropdown(f"{P}-mode", [{"label": t, "value": k} for k, t in MULTI_MODES.items()],
                                              v["mode"])),
                field("n", dcc.Checklist(id=f"{P}-n", options=[str(i) for i in range(1, 9)], value=v["n"],
                                         inline=True)),
            ], className="form-grid"), dcc.Graph(id=f"{P}-multi-graph", figure=multi))),
            dcc.Tab(label="Fitted parameters", value="fit", children=card(
                html.Div(fit_note, id=f"{P}-fit-note", className="hint"),
                grid(f"{P}-fit-grid", [{"field": "estimate", "minWidth": 240}, num_col("L", "L", 4),
                                       num_col("o", "o", 2), num_col("C", "C", 4), num_col("A", "A", 3),
                                       num_col("beta", "β", 4), num_col("aic", "AIC", 1),
                                       num_col("mape", "mean APE % (speedup)", 2)],
                     rows=fit_rows, height=230, file_name="logca-fit.csv"))),
            dcc.Tab(label="Implications", value="implications",
                    children=card(html.Ul(implications, id=f"{P}-implications"))),
        ]),
    ])


register_url_sync(P, NAMES, [f"{P}-{n}" for n in NAMES])
report_download.register(P, NAMES, PARAMS, "/logca", build_logca, lambda v: f"perfcast_logca_{v['focus']}")
register_csv(f"{P}-grid")
register_csv(f"{P}-fit-grid")


@callback(Output(f"{P}-focus", "options"), Output(f"{P}-focus", "value"), Input(f"{P}-acc", "value"),
          Input(f"{P}-timing", "value"), dash.State(f"{P}-focus", "value"), prevent_initial_call=True)
def _focus_choices(acc, timing, focus):
    try:
        timing = sources.TimingParam("timing", "choice").parse(timing, {})
    except (InvalidParameter, LookupError):
        return no_update, no_update
    acc = [a for a in acc if isinstance(a, str)] if isinstance(acc, list) else []
    opts = [o for o in sources.options(timing) if o["value"] in acc]
    values = [o["value"] for o in opts]
    return opts, (focus if focus in values else (values[0] if values else None))


@callback(Output(f"{P}-timing", "value"), Output(f"{P}-acc", "options"), Output(f"{P}-acc", "value"),
          Output(f"{P}-upload-status", "children"), Input(f"{P}-upload", "contents"),
          dash.State(f"{P}-upload", "filename"), dash.State(f"{P}-acc", "value"), prevent_initial_call=True)
def _uploaded(contents, filename, acc):
    if why := refused("editor", "upload"):
        return no_update, no_update, no_update, alert(why)
    name = files.clean_name(filename, "timing table")
    try:
        meta = sources.save_timing_upload(parse_upload(decode_upload(contents), name).frame, name)
    except ModelingError as exc:
        return no_update, no_update, no_update, alert(f"{name}: {exc} Nothing was saved.")
    kernels = meta["kernels"]
    new = [f"upload:{k}" for k in kernels]
    keep = [a for a in (acc if isinstance(acc, list) else []) if isinstance(a, str) and not a.startswith("upload:")]
    return (meta["id"], sources.options(meta["id"]), keep + new,
            alert(f"{name}: {meta['rows']} rows, kernels {', '.join(kernels)}; fitted and added.", "success"))


@callback(Output(f"{P}-speedup-graph", "figure"), Output(f"{P}-grid", "rowData"),
          Output(f"{P}-energy-graph", "figure"), Output(f"{P}-energy-note", "children"),
          Output(f"{P}-multi-graph", "figure"), Output(f"{P}-fit-grid", "rowData"),
          Output(f"{P}-fit-note", "children"), Output(f"{P}-implications", "children"),
          Output(f"{P}-error", "children"), Output(f"{P}-time", "children"),
          [Input(f"{P}-{n}", "value") for n in NAMES], prevent_initial_call=True)
def _render(*vals):
    return render_parsed(dict(zip(NAMES, vals)), PARAMS, _outputs, _invalid)


def _invalid(exc) -> tuple:
    msg = message(exc)
    e = empty("Invalid input")
    return e, [], e, "", e, [], "", [], alert(msg), ""


def _outputs(v: dict, start: float) -> tuple:
    """Every view of the page for parsed settings ``v`` (an alert and empty views when they do not work)."""
    try:
        if not v["acc"]:
            raise InvalidParameter("acc", "choose at least one accelerator")
        out = logca_view(v)
    except (InvalidParameter, LookupError, ModelingError) as exc:
        return _invalid(exc)
    # each item names the thesis' implication it evaluates (4 and 7 apply only to some accelerators, so the
    # numbers may skip); a list's own numbering would suggest a missing item
    items = [html.Li([html.B(f"Implication {i['id']}: "), i["text"]], className="" if i["applies"] else "muted")
             for i in out["implications"]]
    ms = (time.perf_counter() - start) * 1000
    return (out["speedup"], out["rows"], out["energy"], out["energy_note"], out["multi"], out["fit_rows"],
            out["fit_note"], items, None, f"computed on the server in {ms:.0f} ms")
