"""Predict what was not measured: a model fitted on every measured workload, its predictions for workloads
without a target, each with an interval, the baseline beside it and an applicability verdict."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access.projects import refused
from dashboard import jobs
from dashboard.crossgen.params import METRIC_LABELS, TRANSFORM_LABELS, register_dataset_dependents
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.predict import views
from dashboard.predict.inputs import SCENARIO_NAMES, store_upload
from dashboard.predict.figures import predictions
from dashboard.predict.kinds import PREDICT, transform_choices
from dashboard.predict.results import PredictRun
from dashboard.predict.work import restore_saved
from dashboard.state import datasets, predict_inputs
from dashboard.state import predictions as saved
from dashboard.ui.roles import editor_only
from dashboard.jobs.memo import derived
from dashboard.ui.components import alert, card
from dashboard.ui.paged_grid import paged_grid, register_paged
from dashboard.ui.summary_card import register_table, summary_card
from dashboard.ui import prediction_panel as panel
from dashboard.ui.delete_confirm import delete_button
from dashboard.ui.fields import dropdown, field
from dashboard.ui.figures import empty
from dashboard.ui.format import si_col
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, parse_or_default, to_query
from modeling.crossgen.ensemble import ALL_MODELS
from modeling.crossgen.situations import SITUATIONS
from modeling.intervals.conformal import LEVEL_MAX, LEVEL_MIN

dash.register_page(__name__, path="/predict", name="Predict", title="perfcast · predict", order=2,
                   description=("Predict the workloads the target never ran: a model fitted on every measured "
                                "workload, an interval at the level you choose, the baseline beside it, and a "
                                "verdict per workload on whether the model applies there."))

P = "predict"
PARAMS = list(PREDICT.params)
NAMES = PREDICT.names
FORM_IDS = [f"{P}-{n}" for n in NAMES]
MODEL_LABELS = {"recommended": "recommended (by cross-validation)"}
ROW_STYLE = {"styleConditions": [{"condition": "params.data && params.data.ok === false",
                                  "style": {"backgroundColor": "#fff4e6", "color": "#7a3b00"}}]}


def _interval_col(field_, header, unit):
    col = si_col(field_, header, unit)
    fmt = col["valueFormatter"]["function"]
    return {**col, "minWidth": 118,
            "valueFormatter": {"function": f"params.data && params.data.ok === false ? '{views.NOT_VALID}' : ({fmt})"}}


def _columns(unit: str) -> list[dict]:
    return [
        {"field": "id", "headerName": "workload", "minWidth": 250, "pinned": "left", "tooltipField": "id"},
        {"field": "applicable", "headerName": "applicable", "minWidth": 122, "maxWidth": 130, "pinned": "left",
         "cellStyle": {"styleConditions": [{"condition": "params.data && params.data.ok === false",
                                            "style": {"color": "#c92a2a", "fontWeight": "600"}}]}},
        # one line per workload (the whole reason in the cell's tooltip and in the exports), beside the verdict
        {"field": "why", "headerName": "why", "minWidth": 380, "tooltipField": "why"},
        {"field": "application", "headerName": "application", "minWidth": 120},
        {**si_col("predicted", "predicted", unit), "minWidth": 110},
        _interval_col("lower", "lower", unit), _interval_col("upper", "upper", unit),
        {**si_col("baseline", "baseline", unit), "minWidth": 110},
        _interval_col("baseline_lower", "baseline lower", unit),
        _interval_col("baseline_upper", "baseline upper", unit),
    ]


def _form(v, ds):
    return html.Div([
        field("Dataset", dropdown(f"{P}-dataset", datasets.options(), v["dataset"])),
        field("Host (counters measured on)", dropdown(f"{P}-host", [{"label": ds.host_label(h), "value": h}
                                                                  for h in ds.hosts], v["host"])),
        field("Target (predicted)", dropdown(f"{P}-target", [t for t in ds.targets if t != v["host"]], v["target"])),
        field("Metric", dropdown(f"{P}-metric", [{"label": METRIC_LABELS[m], "value": m} for m in ds.metrics],
                                 v["metric"])),
        field("Model", dropdown(f"{P}-model", [{"label": MODEL_LABELS.get(m, m), "value": m}
                                               for m in ["recommended", *ALL_MODELS]], v["model"]),
              "recommended: chosen among the models and the baseline by cross-validation"),
        field("Target transform", dropdown(f"{P}-transform", _transform_options(v), v["transform"])),
        field("Interval level", dcc.Input(id=f"{P}-level", type="number", min=LEVEL_MIN, max=LEVEL_MAX,
                                          step=0.01, value=v["level"], debounce=True, className="num-input"),
              f"{LEVEL_MIN:g} – {LEVEL_MAX:g}: the share of workloads whose value the interval should hold"),
        field("Situation", dropdown(f"{P}-situation", [{"label": t, "value": k} for k, t in SITUATIONS.items()],
                                    v["situation"]),
              "how the intervals are calibrated: random folds, or whole applications held out"),
        field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"], className="num-input")),
        html.Div(field("Workloads to predict", html.Div([
            dropdown(f"{P}-source", predict_inputs.options(), v["source"]),
            editor_only(dcc.Upload(html.Div(["Drop a CSV or Parquet table here, or ", html.A("choose a file")]),
                       id=f"{P}-upload", className="upload-area", multiple=False,
                       style={"border": "1px dashed #9aa7b4", "borderRadius": "6px", "padding": "8px 12px",
                              "marginTop": "6px", "cursor": "pointer"}), "upload")]),
              "an upload: one row per workload, the host's counters named as in the training data; a target "
              "column in it is never read"), style={"gridColumn": "span 2"}),
    ], className="form-grid")


def _transform_options(v):
    return [{"label": "auto (chosen by cross-validation)" if t == "auto" else TRANSFORM_LABELS[t], "value": t}
            for t in transform_choices(v)]


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = PREDICT.request(v)
        except (InvalidParameter, LookupError) as exc:
            error = message(exc)
    if request:
        restore_saved(request["key"])  # a saved prediction's link keeps its numbers after the cache let them go
    ds = datasets.get(v["dataset"])
    summary, cols, fig, shown = _content(result_of(request))
    return html.Div([
        html.H1("Predict workloads that were not measured"),
        html.P(["A model fitted on every workload measured on both GPUs predicts the target's value of workloads "
                "that only have host counters: the dataset's own workloads without a target, or a table you upload. "
                "Each prediction comes with an interval, the baseline (host × median target/host ratio) beside it, "
                "and a verdict on whether the workload lies inside the training data. How accurate the models are "
                "on measured workloads: ", dcc.Link("the scenario leaderboard", href="/scenario"),
                "; an application never run on the target: ", dcc.Link("/new-app", href="/new-app"), "."],
               className="lead"),
        html.Div(alert(error) if error else None, id=f"{P}-link-error"),
        card(_form(v, ds), html.Div(id=f"{P}-upload-status"), job_panel(P, request, "Predict"), share_box(P)),
        html.Div(summary, id=f"{P}-summary"),
        html.Div([
            card(html.H2("Predictions"),
                 panel.downloads(P, "with provenance (model, dataset fingerprint, code version, date); the report "
                                    "is one HTML file that opens offline, charts included"),
                 # the rows come a block at a time, sorted and filtered on the server (dashboard/ui/paged_grid.py)
                 paged_grid(f"{P}-table", cols, height=460, row_style=ROW_STYLE)),
            card(html.H2("Predictions with their intervals"),
                 dcc.Graph(id=f"{P}-graph", figure=fig)),
        ], id=f"{P}-results", style=None if shown else {"display": "none"}),
        card(html.H2("Saved predictions"), *panel.save_controls(P), *panel.saved_list(P, saved_items())),
    ])


register_dataset_dependents(P)
register_url_sync(P, NAMES, FORM_IDS)
register_job(P, PREDICT, FORM_IDS)


def _rows_of(ready):
    """Every row of the table of the result ``ready`` names, in the table's order, with its columns (None
    without a result): what the grid's blocks and its CSV are cut from."""
    run = result_of(ready)
    if run is None:
        return None
    return derived(run, views.table_rows), _columns(views.unit(run))


register_paged(f"{P}-table", f"{P}-ready", _rows_of, "predictions_view.csv")


@callback(Output(f"{P}-transform", "options"), Output(f"{P}-transform", "value"),
          Input(f"{P}-dataset", "value"), State(f"{P}-transform", "value"), prevent_initial_call=True)
def _dataset_transforms(ds_id, current):
    try:
        opts = _transform_options({"dataset": datasets.get(ds_id).id})
    except (LookupError, TypeError):
        return no_update, no_update
    return opts, current if any(o["value"] == current for o in opts) else "auto"


@callback(Output(f"{P}-source", "options"), Output(f"{P}-source", "value"),
          Output(f"{P}-upload-status", "children"), Input(f"{P}-upload", "contents"),
          State(f"{P}-upload", "filename"), [State(f"{P}-{n}", "value") for n in SCENARIO_NAMES],
          prevent_initial_call=True)
def _uploaded(contents, filename, *scenario):
    """Check an upload against the chosen scenario and store it; it becomes the workloads to predict."""
    if why := refused("editor", "upload"):
        return no_update, no_update, alert(why)
    try:
        meta, text = store_upload(contents, filename, dict(zip(SCENARIO_NAMES, scenario)))
    except (InvalidParameter, LookupError) as exc:
        return no_update, no_update, alert(f"Not used: {message(exc)}")
    except (ValueError, TypeError) as exc:  # ModelingError is a ValueError
        return no_update, no_update, alert(f"Not used: {exc}")
    return predict_inputs.options(), meta["id"], alert(text, "info")


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-table", "columnDefs"),
          Output(f"{P}-graph", "figure"), Output(f"{P}-results", "style"), Output(f"{P}-link-error", "children"),
          Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render(ready):
    summary, cols, fig, shown = _content(result_of(ready))
    # a result replaces what the opened link said was wrong with it (the grid asks for its rows itself)
    return summary, cols, fig, None if shown else {"display": "none"}, None if shown else no_update


def _content(run: PredictRun | None) -> tuple:
    """Summary, table columns, chart, and whether there is a result to show (the table's rows are sent a block
    at a time: :func:`_rows_of`)."""
    if run is None:
        return None, _columns("s"), empty("Press Predict to see the predictions"), False
    unit = views.unit(run)
    return _summary(run, unit), _columns(unit), derived(run, _chart, unit), True


def _chart(run: PredictRun, unit: str) -> dict:
    """The page's chart of a result, packed (:func:`dashboard.predict.figures.predictions`); drawn once per
    result a worker remembers (:func:`dashboard.jobs.memo.derived`)."""
    return predictions(run, _values_label(run.params), unit, packed=True)


def result_of(ready) -> PredictRun | None:
    """The typed result the ready store names (None when there is none, or it is not this page's)."""
    run = jobs.result_for(ready)
    return run if isinstance(run, PredictRun) else None


def _values_label(p: dict) -> str:
    """What the predicted values are: "predicted time on GTX-980" on the shipped data; an upload's target
    column names both what and where ("predicted gpu__time_duration.sum@target")."""
    if p["metric"] == "value":
        return f"predicted {p['target']}"
    return f"predicted {METRIC_LABELS.get(p['metric'], p['metric']).split(' (')[0]} on {p['target']}"


def _summary(run: PredictRun, unit: str):
    # the summary holds the table of every prediction (for the report and the command line): made once per
    # result a worker remembers, not on every open of the link
    return summary_card(derived(run, PredictRun.summary, unit), P, tables=("candidates",))


register_table(P, "candidates")


def saved_items(limit=10) -> list:
    """The newest saved predictions with their provenance, as links that reopen them (a link is its params)."""
    out = []
    for s in saved.list_predictions()[:limit]:
        sm, pv = s.get("summary") or {}, s.get("provenance") or {}
        if sm.get("text"):  # counts and phase predictions say what they are themselves
            line = f" — {saved.METHOD_LABELS.get(s.get('method'), '')}: {sm['text']}"
        else:
            line = (f" — {sm.get('model')}, {sm.get('n_new')} workloads ({sm.get('n_applicable')} applicable), "
                    f"{(sm.get('level') or 0) * 100:g} % interval reached {sm.get('coverage', 0):.1f} %; dataset "
                    f"{pv.get('dataset')} ({pv.get('dataset_fingerprint')}), code {pv.get('code_version')}, "
                    f"{pv.get('date')}")
        out.append(html.Li([
            dcc.Link(s["name"], href=f"{saved.page_of(s)}{to_query(s['params'])}", className="saved-link"),
            html.Span(line, className="hint"), " ", delete_button(P, s["id"])]))
    return out or [html.Li("Nothing saved yet.", className="hint")]


def _describe(pr_id) -> str:
    return f"'{saved.load_meta(pr_id)['name']}' ({pr_id})"


def _report(run: PredictRun):
    """The report of a prediction and its file's stem."""
    from dashboard.predict.report import build
    from dashboard.ui.report import view_link

    p = run.params
    return (build(run, view_link("/predict", p), _values_label(p), views.unit(run)),
            f"perfcast_predict_{p['host']}_to_{p['target']}")


PANEL = panel.register(panel.Panel(
    P, result_of, key_of=lambda ready: jobs.key_of(ready), export=views.export_bytes,
    report=_report, saving=panel.Saving(panel.prediction_store("crossgen", views.export_frame, views.summary_of)),
    listing=panel.Listing(saved_items, "saved prediction", _describe, saved.delete_prediction)))
