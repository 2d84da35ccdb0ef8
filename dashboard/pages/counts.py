"""Count prediction (BB-ML): basic-block and event counts of large inputs from runs on small ones."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard import jobs
from dashboard.counts import sources
from dashboard.counts.figures import NAMES, curve, heatmap, predicted_counts, programs_bar, ratios
from dashboard.counts.kinds import (COUNTS, MODEL_CHOICES, PREDICT, PREDICT_CHOICES, PROGRAMS, SETTING,
                                    program_params)
from dashboard.counts.results import CountsPredictionRun, CountsRun
from dashboard.counts.views import (
    block_choices,
    block_rows,
    export_bytes,
    leaderboard_rows,
    prediction_rows,
    saved_summary,
)
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.state.uploads import decode_upload
from dashboard.ui import prediction_panel as panel
from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert, card, grid, num_col, register_csv, register_stored_upload
from dashboard.ui.fields import dropdown, field
from dashboard.ui.figures import empty
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.summary_card import summary_card
from dashboard.ui.url_state import InvalidParameter, parse_or_default
from modeling.counts.models import ACTIVATIONS, preset_text
from modeling.counts.results import CountEvaluation
from modeling.counts.summary import (LEADERBOARD_COLUMNS, LEADERBOARD_DECIMALS, PREDICTION_COLUMNS,
                                     PREDICTION_DECIMALS)

dash.register_page(__name__, path="/counts", name="Counts", title="perfcast · counts", order=7,
                   description=("Predict how often each basic block (or GPU event) runs for large inputs from runs "
                                "on small ones: the Poisson network of BB-ML beside a Poisson GLM, exact "
                                "polynomial counts and the best model per block, with irregular blocks flagged."))

P = "counts"
PARAMS = list(COUNTS.params)
NAMES_ = COUNTS.names
FORM_IDS = [f"{P}-{n}" for n in NAMES_]
ALL_IDS = [f"{P}-{n}" for n in PROGRAMS.names]
VIEW = ["view", "pblock"]
PRED = "counts-pred"
PRED_NAMES = ["at", "pmodel"]  # the predict panel's own link parameters (source, program, seed are shared)
PRED_IDS = [f"{P}-{n}" for n in PREDICT.names]
#: the dropdowns' labels: the model names of modeling/counts/evaluate.py, with what the choice means here
MODEL_LABELS = {**NAMES, "pnn-paper": f"{NAMES['pnn-paper']}: {preset_text('paper')}",
                "pnn-tuned": f"{NAMES['pnn-tuned']}: {preset_text('tuned')}",
                "pnn": f"{NAMES['pnn']}: the network settings below",
                "poly": f"{NAMES['poly']}, exact where integers fit"}
PMODEL_LABELS = {**MODEL_LABELS,
                 "best": f"{NAMES['best']} (exact polynomial, else the lowest held-out error, baseline included)"}


#: the grids' column widths (their fields and headings: modeling/counts/summary.py, as the command line prints)
LEADERBOARD_WIDTHS = {"name": 190, "seed_range": 120}
PREDICTION_WIDTHS = {"inputs": 170, "block": 170, "how": 150, "baseline_scales": 130, "irregular": 170}
#: the grid's decimals of the errors and the distance beyond (the command line and the report: 6 significant digits)
PREDICTION_GRID_DECIMALS = {"error": 3, "beyond": 2, "baseline_error": 3}


def _columns(columns, decimals: dict, widths: dict, pinned: str | None = None) -> list[dict]:
    """A grid's column definitions of a summary table's (field, heading) pairs: numbers with their decimals."""
    out = []
    for f, h in columns:
        col = num_col(f, h, decimals[f]) if f in decimals else {"field": f, "headerName": h}
        if f in widths:
            col["minWidth"] = widths[f]
        if f == pinned:
            col["pinned"] = "left"
        out.append(col)
    return out


def _num(name, value, step=1):
    """A number box whose bounds are the link parameter's (dashboard/counts/kinds.py), so both agree."""
    param = SETTING[name]
    return dcc.Input(id=f"{P}-{name}", type="number", value=value, min=param.lo, max=param.hi, step=step,
                     debounce=True, className="num-input")


def _form(v):
    programs = sources.programs(v["source"])
    return html.Div([
        field("Counts", html.Div([
            dropdown(f"{P}-source", sources.options(), v["source"]),
            editor_only(dcc.Upload(html.Button("Upload a count table", className="btn btn-small"), id=f"{P}-upload",
                       max_size=60_000_000), "upload")]),
              "CSV or Parquet with program, one column per input size, block, count (whole numbers ≥ 0)"),
        field("Program", dropdown(f"{P}-program", programs, v["program"])),
        field("Split", dropdown(f"{P}-split", [
            {"label": "high-low: train on the lower 70 % of every size, test above", "value": "high-low"},
            {"label": "mixed: high-low plus inputs mixing low and high sizes", "value": "mixed"},
            {"label": "random 70 / 30", "value": "random"}], v["split"])),
        field("Models", dropdown(f"{P}-models", [{"label": MODEL_LABELS[m], "value": m} for m in MODEL_CHOICES],
                                 v["models"], multi=True)),
        field("Network: hidden units", _num("hidden", v["hidden"])),
        field("Network: activation", dropdown(f"{P}-activation", list(ACTIVATIONS), v["activation"])),
        field("Network: epochs", _num("epochs", v["epochs"])),
        field("Network: batch size", _num("batch", v["batch"])),
        field("Network: learning rate", _num("lr", v["lr"], "any"), "adam's initial step"),
        field("Seed", _num("seed", v["seed"])),
    ], className="form-grid")


def layout(**query):
    view = {k: query.pop(k) for k in VIEW if k in query}
    pred_query = {k: query.pop(k) for k in PRED_NAMES if k in query}
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = COUNTS.request(v)
        except (InvalidParameter, LookupError) as exc:
            error = message(exc)
    pred_request, pred_error = None, None
    pv = {"source": v["source"], "program": v["program"], "seed": v["seed"], **pred_query}
    try:
        pv = PREDICT.request(pv)["params"] if not error else PREDICT.request({})["params"]
        if pred_query and not error:
            pred_request = PREDICT.request(pv)
    except (InvalidParameter, LookupError) as exc:
        pred_error = message(exc)
        pv = {**PREDICT.request({"source": v["source"], "program": v["program"]})["params"],
              **{k: val for k, val in pred_query.items() if isinstance(val, str)}}
    shown = view.get("view") if view.get("view") in MODEL_CHOICES else "best"
    # a cached result (a shared link) is drawn by the layout itself: no second round trip before the charts
    res = jobs.result_for(request)
    summary, board, blocks, curve_fig, total_cols, totals = _content(res)
    heat, rat = _figures(res, shown)
    pres = jobs.result_for(pred_request)
    p_summary, p_rows, p_opts, p_block, p_fig = _pred_content(pres, view.get("pblock"))
    return html.Div([
        html.H1("Count prediction: basic-block and event counts of large inputs"),
        html.P("Architects size simulations and predict event totals of inputs too big to simulate from counts "
               "measured on small ones. The Poisson network of BB-ML (one hidden layer of 10, Poisson loss) is "
               "shown beside a Poisson GLM on the log sizes, polynomial counts (exact for loop counts) and the best "
               "model per block, all on the same split. A block no model predicts within 5 % on held-back training "
               "inputs is flagged irregular, with the reason seen.", className="lead"),
        alert(error) if error else None,
        card(_form(v), html.Div(id=f"{P}-upload-status"), job_panel(P, request, "Train and test"), share_box(P)),
        html.Div(summary, id=f"{P}-summary"),
        card(html.H2("Leaderboard"),
             html.P("Test inputs only. Mean / max APE over non-zero measured counts; nMSE: each block scaled to "
                    "[0, 1] by its largest measured test count, squared error averaged over inputs and blocks "
                    "(BB-ML eq. 3); Pearson / Spearman on those scaled counts of blocks whose count varies. "
                    "Networks: median of 3 seeds, range beside. Last row: the baseline a careful user would use "
                    "(each block's count at the nearest training input scaled by the sizes it depends on); "
                    "'× baseline's error': below 1 the model beats it.", className="hint"),
             grid(f"{P}-leaderboard", _columns(LEADERBOARD_COLUMNS, LEADERBOARD_DECIMALS, LEADERBOARD_WIDTHS),
                  rows=board, height=280, file_name="counts_leaderboard.csv")),
        card(field("Model shown", dropdown(f"{P}-view", [{"label": NAMES[m], "value": m} for m in MODEL_CHOICES],
                                          shown)),
             dcc.Graph(id=f"{P}-heatmap", figure=heat), dcc.Graph(id=f"{P}-ratios", figure=rat)),
        card(html.H2("Blocks"),
             html.P("Per block: the model chosen on held-back training inputs, whether its counts are an exact "
                    "polynomial, and the test error of the best-per-block prediction. Irregular blocks first.",
                    className="hint"),
             grid(f"{P}-blocks", [{"field": "block", "headerName": "block", "minWidth": 160},
                                  {"field": "status", "headerName": "status", "minWidth": 260},
                                  {"field": "chosen", "headerName": "chosen model", "minWidth": 150},
                                  num_col("inner_error", "held-back error %", 2),
                                  num_col("test_ape", "test error %", 2)], rows=blocks, height=320,
                  file_name="counts_blocks.csv")),
        card(dcc.Graph(id=f"{P}-curve", figure=curve_fig)),
        card(html.H2("Totals over the test inputs"),
             html.P("Case study (BB-ML 5.3): each block's (or event's) count summed over the test inputs, predicted "
                    "against measured; 'all blocks' is every block execution.", className="hint"),
             grid(f"{P}-totals", total_cols, rows=totals, height=320, file_name="counts_totals.csv")),
        card(html.H2("Predict at new inputs", id=f"{P}-predict"),
             html.P("Every block's (or event's) count at inputs never run, from the model fitted on all measured "
                    "inputs. Exact blocks (an integer polynomial reproduced every measured count) give the count "
                    "itself; other blocks give the model's count, its error on held-out measured inputs and a "
                    "range at the level printed beside it (90 % when enough inputs can be held out), wider the "
                    "farther beyond the measured inputs. Beside each count: the size-scaling baseline.",
                    className="hint"),
             html.Div([
                 html.Div(field("Inputs", dcc.Input(id=f"{P}-at", type="text", value=pv.get("at"), debounce=True,
                                                    className="text-input", style={"width": "100%"}),
                                html.Span(_inputs_hint(v), id=f"{P}-at-hint")), style={"gridColumn": "span 2"}),
                 field("Model", dropdown(f"{P}-pmodel", [{"label": PMODEL_LABELS[m], "value": m}
                                                         for m in PREDICT_CHOICES], pv.get("pmodel", "best"))),
             ], className="form-grid"),
             alert(pred_error) if pred_error else None,
             job_panel(PRED, pred_request, "Predict"),
             html.Div(p_summary, id=f"{PRED}-summary"),
             panel.downloads(PRED, "the prediction table with provenance (table fingerprint, code version, date); "
                                   "the report is one HTML file that opens offline"),
             *panel.save_controls(PRED, listed_on="/predict"),
             field("Block shown", dropdown(f"{P}-pblock", p_opts, p_block)),
             dcc.Graph(id=f"{PRED}-graph", figure=p_fig),
             grid(f"{PRED}-table", _columns(PREDICTION_COLUMNS, {**PREDICTION_DECIMALS, **PREDICTION_GRID_DECIMALS},
                                            PREDICTION_WIDTHS, pinned="inputs"),
                  rows=p_rows, height=380, file_name="counts_predicted.csv")),
        card(html.H2("Every program of this table"),
             html.P("The same split, models and settings on every program (no training-size curve).",
                    className="hint"),
             job_panel(f"{P}-all", None, "Run every program"),
             dcc.Graph(id=f"{P}-all-graph", figure=empty("Run every program to compare them")),
             grid(f"{P}-all-grid", [{"field": "program", "headerName": "program", "minWidth": 170, "pinned": "left"},
                                    {"field": "name", "headerName": "model", "minWidth": 170},
                                    num_col("mape", "mean APE %", 3), num_col("max_ape", "max APE %", 2),
                                    num_col("vs_baseline", "× baseline's error", 2),
                                    num_col("nmse", "nMSE", 6), num_col("spearman", "Spearman", 4),
                                    num_col("irregular", "irregular blocks", 0),
                                    num_col("n_train", "train inputs", 0), num_col("n_test", "test inputs", 0)],
                  height=360, file_name="counts_programs.csv"),
             html.Div(id=f"{P}-all-skipped")),
    ])


register_url_sync(P, NAMES_ + VIEW + PRED_NAMES, FORM_IDS + [f"{P}-{n}" for n in VIEW + PRED_NAMES])
register_job(P, COUNTS, FORM_IDS)
register_job(f"{P}-all", PROGRAMS, ALL_IDS)
register_job(PRED, PREDICT, PRED_IDS)
for _g in ("leaderboard", "blocks", "totals", "all-grid", "pred-table"):
    register_csv(f"{P}-{_g}")


# an uploaded count table is validated, stored and becomes the page's data
register_stored_upload(P, lambda contents, name: sources.save_upload(decode_upload(contents), name),
                       sources.options,
                       lambda m: f"Stored a count table of {len(m['programs'])} programs ({m['rows']:,} rows). "
                                 f"{' '.join(m['notes'])}".strip())


@callback(Output(f"{P}-program", "options"), Output(f"{P}-program", "value"), Input(f"{P}-source", "value"),
          State(f"{P}-program", "value"), prevent_initial_call=True)
def _source_changed(source, program):
    progs = sources.programs(source) if isinstance(source, str) else []
    if not progs:
        return no_update, no_update
    return progs, program if program in progs else progs[0]


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-leaderboard", "rowData"), Output(f"{P}-blocks", "rowData"),
          Output(f"{P}-curve", "figure"), Output(f"{P}-totals", "columnDefs"), Output(f"{P}-totals", "rowData"),
          Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render(ready):
    return _content(jobs.result_for(ready))


def _content(run: CountsRun | None) -> tuple:
    """Summary, leaderboard, blocks, curve and totals of a result (empty views without one)."""
    if not run:
        return None, [], [], empty("Run to see the training-size curve"), [], []
    ev = run.evaluation
    summary = summary_card(run.summary(), P)
    return summary, leaderboard_rows(ev), block_rows(ev), curve(ev), _total_columns(ev), ev.totals


def _total_columns(ev: CountEvaluation) -> list[dict]:
    """Measured total, then each model's total and error, for the models of this result."""
    cols = [{"field": "block", "headerName": "block / event", "minWidth": 170, "pinned": "left"},
            num_col("actual", "measured total", 0)]
    for m in ev.test.models:
        cols += [num_col(m, f"{NAMES.get(m, m)} total", 0), num_col(f"{m}|error", f"{NAMES.get(m, m)} error %", 2)]
    return cols


@callback(Output(f"{P}-heatmap", "figure"), Output(f"{P}-ratios", "figure"), Input(f"{P}-ready", "data"),
          Input(f"{P}-view", "value"), prevent_initial_call=True)
def _views(ready, model):
    return _figures(jobs.result_for(ready), model)


def _figures(run: CountsRun | None, model) -> tuple:
    """The density and per-block ratio charts of ``model`` (or the best one the result has)."""
    if not run:
        return empty("Run to see predicted against measured counts"), empty("Run to see each block beyond the "
                                                                            "training inputs")
    ev = run.evaluation
    if model not in ev.test.models:
        model = "best" if "best" in ev.test.models else ev.test.models[0]
    return heatmap(ev, model), ratios(ev, model)


@callback(Output(f"{P}-all-graph", "figure"), Output(f"{P}-all-grid", "rowData"),
          Output(f"{P}-all-skipped", "children"), Input(f"{P}-all-ready", "data"))
def _all(ready):
    run = jobs.result_for(ready)
    if not run:
        return empty("Run every program to compare them"), [], None
    skipped = [f"{s.program}: {s.reason}" for s in run.skipped]
    rows = [r.grid_row for r in run.rows]
    return (programs_bar(run), rows,
            alert("Not evaluated on this split: " + " · ".join(skipped), "info") if skipped else None)


# ------------------------------------------------------------------ predict at new inputs

def _inputs_hint(v) -> str:
    try:
        params = program_params(v["source"], v["program"])
    except (LookupError, ValueError):
        return "e.g. N=4096,M=2048"
    return (f"this program's inputs: {', '.join(params)}. One input per ';' (e.g. "
            f"{','.join(f'{p}=4096' for p in params)}), a grid with x ("
            f"{' x '.join(f'{p}=1024,2048' for p in params[:2])}); positive numbers, at most 1,000 inputs")


@callback(Output(f"{P}-at", "value"), Output(f"{P}-at-hint", "children"), Input(f"{P}-program", "value"),
          State(f"{P}-source", "value"), State(f"{P}-at", "value"), prevent_initial_call=True)
def _program_changed(program, source, at):
    """Inputs that do not fit the newly chosen program become its default (twice and 8× its largest sizes)."""
    try:
        req = PREDICT.request({"source": source, "program": program})
    except (InvalidParameter, LookupError, TypeError):
        return no_update, no_update
    v = req["params"]
    hint = _inputs_hint(v)
    try:
        PREDICT.request({**v, "at": at})
    except (InvalidParameter, LookupError, TypeError):
        return v["at"], hint
    return no_update, hint


def _pred_content(res: CountsPredictionRun | None, block) -> tuple:
    """Summary, table rows, block options, block shown and chart of a prediction (empty views without one)."""
    if not res:
        return None, [], [], None, empty("Press Predict to see the counts at the inputs")
    opts = block_choices(res)
    block = block if block in opts else opts[0]
    summary = summary_card(res.summary(), PRED)
    return summary, prediction_rows(res), opts, block, predicted_counts(res, block)


@callback(Output(f"{PRED}-summary", "children"), Output(f"{PRED}-table", "rowData"),
          Output(f"{P}-pblock", "options"), Output(f"{P}-pblock", "value"), Output(f"{PRED}-graph", "figure"),
          Input(f"{PRED}-ready", "data"), Input(f"{P}-pblock", "value"), prevent_initial_call=True)
def _pred_render(ready, block):
    return _pred_content(jobs.result_for(ready), block if isinstance(block, str) else None)


def _pred_report(res):
    """The report of a count prediction and its file's stem."""
    from dashboard.counts.report import build
    from dashboard.ui.report import view_link

    return build(res, view_link("/counts", res.params)), f"perfcast_counts_{res.prediction.program}"


def _pred_name(res) -> str:
    return f"{res.prediction.program} counts"


panel.register(panel.Panel(
    PRED, lambda ready: jobs.result_for(ready), key_of=lambda ready: jobs.key_of(ready), export=export_bytes,
    report=_pred_report, saving=panel.Saving(panel.prediction_store("counts", CountsPredictionRun.to_frame,
                                                                    saved_summary, _pred_name),
                                             listed_on="/predict")))
