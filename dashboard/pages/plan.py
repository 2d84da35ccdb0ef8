"""Plan what to simulate next: the batch of workloads that teaches the model most under a budget of
simulations or simulator hours, why each, the expected effect, and the replay it was chosen by; then the
batch's results merged in and the next round."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard import jobs
from dashboard.access.projects import refused
from dashboard.crossgen.params import METRIC_LABELS, register_dataset_dependents
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.plan import views
from dashboard.plan.figures import replay
from dashboard.plan.kinds import BUDGET_KINDS, PLAN, RETRY, cost_choices
from dashboard.plan.work import SLOWDOWN, is_sim_upload, merge_sim_upload, merge_upload
from dashboard.state import datasets
from dashboard.state.files import StorageError
from dashboard.state.uploads import decode_upload, parse_upload
from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert, card, grid, num_col, register_csv
from dashboard.ui.fields import dropdown, field
from dashboard.ui.figures import empty
from dashboard.ui.format import si_col
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.summary_card import summary_card
from dashboard.ui.url_state import InvalidParameter, parse, parse_or_default
from modeling.crossgen.situations import SITUATIONS
from modeling.plan.planner import STRATEGY_CHOICES
from modeling.plan.strategies import LABELS

dash.register_page(__name__, path="/plan", name="Plan", title="perfcast · plan simulations", order=2.5,
                   description=("Which workloads to simulate next: a batch under a budget of simulations or "
                                "simulator hours, why each, the expected effect, and the replay of the strategies "
                                "on what is already simulated."))

P = "plan"
PARAMS = list(PLAN.params)
NAMES = PLAN.names
FORM_IDS = [f"{P}-{n}" for n in NAMES]
BUDGET_LABELS = {"workloads": "workloads (a count)", "hours": "simulator hours"}
STRATEGY_TEXT = {"auto": "auto (chosen by a replay on the simulated workloads)",
                 **{k: f"{k}: {v}" for k, v in LABELS.items()}}


def _cost_options(v):
    return [{"label": "host time × simulator slowdown" if c == SLOWDOWN else f"column {c} (hours)", "value": c}
            for c in cost_choices(v)]


def _batch_columns(unit: str) -> list[dict]:
    return [
        {"field": "rank", "headerName": "#", "maxWidth": 70, "pinned": "left", "type": "numericColumn"},
        {"field": "id", "headerName": "workload", "minWidth": 200, "pinned": "left", "tooltipField": "id"},
        {"field": "group", "headerName": "application", "minWidth": 130},
        {**num_col("cost_hours", "cost (h)", 3), "minWidth": 100},
        {**num_col("width", "interval width (×)", 2), "minWidth": 110},
        {**num_col("distance", "distance to simulated", 2), "minWidth": 120},
        {**si_col("predicted", "predicted now", unit), "minWidth": 130},
        {"field": "calibration", "headerName": "calibration slice", "minWidth": 120},
        {"field": "why", "headerName": "why", "minWidth": 520, "tooltipField": "why"},
    ]


def _round_columns(unit: str) -> list[dict]:
    return [{"field": "id", "headerName": "workload", "minWidth": 200},
            {**si_col("predicted", "predicted before", unit), "minWidth": 130},
            {**si_col("lower", "lower", unit), "minWidth": 120}, {**si_col("upper", "upper", unit), "minWidth": 120},
            {**si_col("simulated", "simulated", unit), "minWidth": 130},
            num_col("ratio", "simulated / predicted", 3),
            {"field": "inside", "headerName": "inside the interval before", "minWidth": 130}]


def _form(v, ds):
    return html.Div([
        field("Dataset", dropdown(f"{P}-dataset", datasets.options(), v["dataset"]),
              "uploaded on /data (rows with an empty target are the candidates) or shipped"),
        field("Host (counters measured on)", dropdown(f"{P}-host", [{"label": ds.host_label(h), "value": h}
                                                                  for h in ds.hosts], v["host"])),
        field("Target (simulated)", dropdown(f"{P}-target", [t for t in ds.targets if t != v["host"]], v["target"])),
        field("Metric", dropdown(f"{P}-metric", [{"label": METRIC_LABELS[m], "value": m} for m in ds.metrics],
                                 v["metric"])),
        field("Cost of one simulation", dropdown(f"{P}-cost", _cost_options(v), v["cost"]),
              "a column of simulator hours, or the host's time × the slowdown below"),
        field("Simulator slowdown", dcc.Input(id=f"{P}-slowdown", type="number", min=1, step="any",
                                              value=v["slowdown"], debounce=True, className="num-input",
                                              disabled=v["cost"] != SLOWDOWN),
              "simulator time / host time (hours = host seconds × slowdown / 3600); used only with the host "
              "time as the cost"),
        field("Budget in", dropdown(f"{P}-budget_kind", [{"label": BUDGET_LABELS[k], "value": k}
                                                         for k in BUDGET_KINDS], v["budget_kind"])),
        field("Budget", dcc.Input(id=f"{P}-budget", type="number", min=0, step="any", value=v["budget"],
                                  debounce=True, className="num-input"),
              "how many workloads, or how many simulator hours, the next batch may spend"),
        field("Situation", dropdown(f"{P}-situation", [{"label": t, "value": k} for k, t in SITUATIONS.items()],
                                    v["situation"]),
              "how the intervals are calibrated: new inputs of known applications, or new applications"),
        field("Strategy", dropdown(f"{P}-strategy", [{"label": STRATEGY_TEXT[s], "value": s}
                                                     for s in STRATEGY_CHOICES], v["strategy"])),
        field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"],
                                className="num-input")),
        field("Last batch's missing runs", dcc.Checklist(
            id=f"{P}-retry", options=[{"label": " run again first", "value": RETRY}], value=v["retry"],
            inputStyle={"marginRight": "4px"}),
              "the workloads of the last batch whose simulation failed or did not come back head the next "
              "batch; the strategy spends the rest of the budget (as plan --retry-missing)"),
    ], className="form-grid")


def _shown(flag):
    return None if flag else {"display": "none"}


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = PLAN.request(v)
        except (InvalidParameter, LookupError) as exc:
            error = message(exc)
    ds = datasets.get(v["dataset"])
    page = views.plan_page(jobs.result_for(request))
    summary, rows, unit, fig, rnd, rrows = _content(page)
    return html.Div([
        html.H1("Plan what to simulate next"),
        html.P(["Which of the workloads not simulated yet (rows with an empty target) teach the model most per "
                "simulator hour: a batch under your budget, ranked, each with why (its interval width now, how "
                "unlike the simulated ones it is, its cost), the expected effect, and the strategies replayed on "
                "the workloads already simulated. Upload the batch's results below and plan again. Predictions "
                "for the rest: ", dcc.Link("/predict", href="/predict"), "; tables: ",
                dcc.Link("/data", href="/data"), "."], className="lead"),
        html.Div(alert(error) if error else None, id=f"{P}-link-error"),
        card(_form(v, ds), job_panel(P, request, "Plan"), share_box(P),
             html.Div([html.Button("Download batch CSV", id=f"{P}-download-csv", className="btn btn-small",
                                   n_clicks=0),
                       html.Button("Download report", id=f"{P}-download-report", className="btn btn-small",
                                   n_clicks=0),
                       html.Span(" the batch as the list a simulation farm runs (rank, id, cost, why) with "
                                 "provenance; the report is one HTML file that opens offline", className="hint"),
                       dcc.Download(id=f"{P}-download"), dcc.Download(id=f"{P}-report")], className="run-row")),
        html.Div(summary, id=f"{P}-summary"),
        html.Div([
            html.Div(card(html.H2("What the last batch's simulations changed"),
                          html.P("Per workload the batch merged into this dataset version: the value the plan "
                                 "before predicted, with its interval, against the one simulated, largest moves "
                                 "first (what it changed in all: above).", className="hint"),
                          grid(f"{P}-round", _round_columns(unit), rows=rrows, height=320,
                               file_name="last_round.csv")), id=f"{P}-round-box", style=_shown(rnd)),
            card(html.H2("The batch to simulate, in order"),
                 grid(f"{P}-batch", _batch_columns(unit), rows=rows, height=420, file_name="batch.csv")),
            card(html.H2("Expected error against simulator hours, per strategy"),
                 html.P("Each strategy replayed on the workloads already simulated (pretend part is known, plan, "
                        "reveal, score): the mean |log error| on the workloads held back after each round, the "
                        "spread over seeds as bars.", className="hint"),
                 dcc.Graph(id=f"{P}-replay", figure=fig)),
        ], id=f"{P}-results", style=_shown(page)),
        card(html.H2("Second round: upload the batch's results"),
             html.P("A CSV or Parquet table with the workload id column (named as in the dataset) and the "
                    "simulated values (a column named as the target, or the only other column), or the farm's own "
                    "output: a zip of GPGPU-Sim / Accel-Sim logs or gem5 stats.txt files, or a long table, joined "
                    "to the dataset's workloads on their key (app/args--kernel--N). They are merged into a new "
                    "version of the dataset, which is then chosen above: press Plan again.",
                    className="hint"),
             editor_only(dcc.Upload(html.Div(["Drop the results here, or ", html.A("choose a file")]),
                        id=f"{P}-results-upload", className="upload-area", multiple=False,
                        style={"border": "1px dashed #9aa7b4", "borderRadius": "6px", "padding": "8px 12px",
                               "cursor": "pointer"}), "upload"),
             html.Div(id=f"{P}-results-status")),
    ])


def _content(page):
    """Summary, batch rows, unit, replay chart, whether a round was merged and its rows."""
    if page is None:
        return None, [], "", empty("Press Plan to see the batch and the replay"), False, []
    return (_summary(page), views.batch_rows(page), page.unit,
            replay(views.replay_series(page), "simulator hours spent", views.replay_title(page)),
            page.round is not None, views.round_rows(page))


def _summary(page):
    """The plan's summary as the page's card (the facts, the notes, the expected effect, why this strategy, what
    the last round changed, the provenance): what the command line prints and the report says."""
    return summary_card(page.summary(), P)


register_dataset_dependents(P)
register_url_sync(P, NAMES, FORM_IDS)
register_job(P, PLAN, FORM_IDS)
register_csv(f"{P}-batch")
register_csv(f"{P}-round")


@callback(Output(f"{P}-cost", "options"), Output(f"{P}-cost", "value"), Input(f"{P}-dataset", "value"),
          Input(f"{P}-host", "value"), Input(f"{P}-target", "value"), Input(f"{P}-metric", "value"),
          State(f"{P}-cost", "value"), prevent_initial_call=True)
def _costs(ds_id, host, target, metric, current):
    try:
        opts = _cost_options({"dataset": datasets.get(ds_id).id, "host": host, "target": target, "metric": metric})
    except (LookupError, TypeError):
        return no_update, no_update
    vals = [o["value"] for o in opts]
    return opts, current if current in vals else (vals[0] if vals else SLOWDOWN)


@callback(Output(f"{P}-slowdown", "disabled"), Input(f"{P}-cost", "value"))
def _slowdown_used(cost):
    return cost != SLOWDOWN


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-batch", "rowData"), Output(f"{P}-batch", "columnDefs"),
          Output(f"{P}-replay", "figure"), Output(f"{P}-round", "rowData"),
          Output(f"{P}-round", "columnDefs"), Output(f"{P}-round-box", "style"), Output(f"{P}-results", "style"),
          Output(f"{P}-link-error", "children"),
          Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render(ready):
    page = views.plan_page(jobs.result_for(ready))
    summary, rows, unit, fig, rnd, rrows = _content(page)
    return (summary, rows, _batch_columns(unit), fig, rrows, _round_columns(unit), _shown(rnd), _shown(page),
            None if page else no_update)


@callback(Output(f"{P}-download", "data"), Input(f"{P}-download-csv", "n_clicks"), State(f"{P}-ready", "data"),
          prevent_initial_call=True)
def _download(n, ready):
    page = views.plan_page(jobs.result_for(ready))
    if page is None or not isinstance(n, int) or n <= 0:
        return no_update
    data, name = views.export_bytes(page)
    return dcc.send_bytes(data, name)


@callback(Output(f"{P}-report", "data"), Input(f"{P}-download-report", "n_clicks"), State(f"{P}-ready", "data"),
          prevent_initial_call=True)
def _report(n, ready):
    page = views.plan_page(jobs.result_for(ready))
    if page is None or not isinstance(n, int) or n <= 0:
        return no_update
    from dashboard.plan.report import build
    from dashboard.ui.report import file_name, view_link

    report = build(page, view_link("/plan", page.params))
    return dcc.send_bytes(report.html(), file_name(f"perfcast_plan_{page.params.get('target')}"))


@callback(Output(f"{P}-dataset", "options"), Output(f"{P}-dataset", "value"),
          Output(f"{P}-results-status", "children"), Input(f"{P}-results-upload", "contents"),
          State(f"{P}-results-upload", "filename"), [State(i, "value") for i in FORM_IDS],
          State(f"{P}-ready", "data"), prevent_initial_call=True)
def _results_uploaded(contents, filename, *rest):
    """Merge a finished batch's values by id into a new version of the dataset and choose it."""
    *values, ready = rest
    if why := refused("editor", "upload"):
        return no_update, no_update, alert(why)
    try:
        params = parse(dict(zip(NAMES, values)), PARAMS)
        raw = decode_upload(contents)
        name = filename if isinstance(filename, str) else None
        shown = views.plan_page(jobs.result_for(ready))
        same = shown is not None and all(shown.params.get(k) == params[k] for k in ("dataset", "host", "target",
                                                                                      "metric"))
        if is_sim_upload(raw, name):
            meta = merge_sim_upload(params, raw, name, shown.plan if same else None)
        else:
            meta = merge_upload(params, parse_upload(raw, name).frame, shown.plan if same else None)
    except (InvalidParameter, LookupError) as exc:
        return no_update, no_update, alert(f"Not merged: {message(exc)}")
    except (ValueError, TypeError, StorageError) as exc:  # ModelingError is a ValueError
        return no_update, no_update, alert(f"Not merged: {exc}")
    text = (f"Merged {len(meta['merged_ids'])} simulated value(s) into a new version of the dataset, "
            f"{meta['name']!r} ({meta['rows']} workloads), now chosen above. Press Plan for the next round.")
    if meta.get("round") is not None:
        return datasets.options(), meta["id"], _round_report(meta["round"], text)
    if meta["already"]:
        text += f" {meta['already']} value(s) replaced workloads that were already simulated."
    if meta.get("missing"):
        shown = ", ".join(m.id for m in meta["missing"][:10]) + (" …" if len(meta["missing"]) > 10 else "")
        text += (f" {len(meta['missing'])} workload(s) of the batch got no value ({shown}): tick 'run again first' "
                 "to put them first in the next batch.")
    return datasets.options(), meta["id"], alert(text, "success" if not meta["already"] else "info")


def _round_report(res, text):
    """The farm output's join report under the merge's message: matched, not in the dataset, names that differ
    at the same position, the batch's workloads that did not come back (with why), files refused."""
    j = res.join
    items = [f"Joined on the workload key: {j['n_matched']} matched, {len(j['simulated_only'])} simulated "
             f"record(s) not in the dataset, {len(j['renamed'])} named differently at the same position; "
             f"{len(res.already)} already simulated (kept); target read as {res.statistic} of configuration "
             f"{res.configuration}."]
    items += [line[0].upper() + line[1:] for line in res.details()]
    if res.missing:
        items.append(f"Tick 'run again first' above to put the {len(res.missing)} missing workload(s) first in "
                     "the next batch.")
    return html.Div([alert(text, "success" if not res.missing else "info"),
                     html.Ul([html.Li(i) for i in items], id=f"{P}-join-report")])
