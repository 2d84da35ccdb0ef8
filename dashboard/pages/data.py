"""Data: upload a workload table (CSV or Parquet), map its columns, save it as a dataset."""

from contextlib import ExitStack

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access.projects import refused
from dashboard.data_import import panel as profiler_panel, staged as profiler_files
from dashboard.data_import.saved import dataset_list as _dataset_list, next_steps
from dashboard.state import datasets, files, staging, uploads
from dashboard.state.files import StorageError
from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert, answer, card, fitted, grid, num_col, register_csv
from dashboard.ui.delete_confirm import delete_parts, register_delete
from dashboard.ui import form_project
from dashboard.ui.fields import dropdown, field
from dashboard.settings import MAX_UPLOAD_BYTES, TRASH_DAYS
from modeling.errors import DataError
from modeling.tables.workload import MISSING_RULES

dash.register_page(__name__, path="/data", name="Data", title="perfcast · data", order=6,
                   description=('Bring your own workload table: upload, map columns, save, and use it on every '
                                'page.'))

P = "data"


def layout(**_query):
    return html.Div([
        html.H1("Data: bring your own workload table"),
        html.P("One row per workload (or per run, with a repeat column): an id, optionally an application or "
               "group, numeric features measured on the host, and one or more target columns. CSV (any of , ; "
               "tab |) or Parquet, up to " f"{MAX_UPLOAD_BYTES // 2**20} MB. Nothing is saved until you press Save; "
               "files are stored under a generated id.", className="lead"),
        card(editor_only(dcc.Upload(id=f"{P}-upload", children=html.Div(["Drop a CSV or Parquet file here, or ",
                                                            html.A("choose one")]),
                        className="upload-zone", max_size=MAX_UPLOAD_BYTES, multiple=False), "upload"),
             html.Div(id=f"{P}-upload-status")),
        profiler_panel.card_layout(),
        html.Div(id=f"{P}-preview-box", style={"display": "none"}, children=[
            card(html.H2("Preview"), html.Div(id=f"{P}-preview-info", className="hint"),
                 grid(f"{P}-preview", [], height=260, file_name="preview.csv"),
                 html.H2("Columns"),
                 grid(f"{P}-columns", [{"field": "column", "minWidth": 200}, {"field": "kind"},
                                       num_col("missing", "missing", 0), {"field": "issues", "minWidth": 300}],
                      height=240, file_name="columns.csv")),
            card(html.H2("Map the columns"), html.Div([
                field("Dataset name", dcc.Input(id=f"{P}-name", className="text-input", maxLength=200)),
                field("Workload id", dropdown(f"{P}-id-col", [], None)),
                field("Application / group (optional)", dcc.Dropdown(id=f"{P}-group-col", options=[])),
                field("Targets", dcc.Dropdown(id=f"{P}-targets", options=[], multi=True),
                      "an empty cell is a workload not measured on that target: kept to predict, not trained on"),
                field("Target unit (optional)", dcc.Input(id=f"{P}-unit", className="text-input",
                                                          maxLength=uploads.UNIT_MAX,
                                                          placeholder="e.g. s, ms, cycles, J"),
                      "the unit of the target values, shown beside them on every page; leave it empty when they "
                      "have none"),
                field("Host's own metric (optional)", dcc.Dropdown(id=f"{P}-host-col", options=[]),
                      "the host's measure of the target metric: enables the baseline and speedups"),
                field("Repeat index (optional)", dcc.Dropdown(id=f"{P}-repeat-col", options=[]),
                      "rows of one workload are repeated runs: filtered at ±7 MAD, then averaged"),
                field("Host run time, s (optional)", dcc.Dropdown(id=f"{P}-host-time", options=[]),
                      "seconds to run a workload on the host: with simulator times, gives the speedup over "
                      "simulation on the Generations page"),
                field("Simulator time per target, s (optional)", dcc.Dropdown(id=f"{P}-sim-cols", options=[],
                                                                             multi=True),
                      "one column per target, its name ending with the target's, e.g. sim_time@GPU-B"),
                field("Features (empty = all other numeric columns)", dcc.Dropdown(id=f"{P}-features", options=[],
                                                                                    multi=True)),
            ], className="form-grid"),
                html.Div(id=f"{P}-target-info"),
                html.P(id=f"{P}-host-info", className="hint"),
                html.Div(id=f"{P}-missing-info", className="hint"),
                field("Missing feature values", dcc.RadioItems(
                    id=f"{P}-missing", options=[{"label": t, "value": k} for k, t in MISSING_RULES.items()],
                    value=None, className="radio-list"),
                      "no choice is made for you: with missing values, Save asks for one"),
                html.Div(editor_only(html.Button("Save dataset", id=f"{P}-save", className="btn btn-primary",
                                                 n_clicks=0), "save"), className="run-row"),
                html.Div(id=f"{P}-save-status")),
        ]),
        card(html.H2("Saved datasets"), *delete_parts(P), html.Div(_dataset_list(), id=f"{P}-datasets"),
             html.P(["A deleted dataset stays in ", dcc.Link("the trash", href="/trash", className="inline-link"),
                     f" for {TRASH_DAYS:g} days, where it can be restored."], className="hint")),
        dcc.Store(id=f"{P}-token"), form_project.store(P),
    ])


register_csv(f"{P}-preview")
register_csv(f"{P}-columns")


# what reading an upload fills in, by name (Dash's dict form of outputs)
UPLOAD_OUTPUTS = {
    "status": Output(f"{P}-upload-status", "children"), "token": Output(f"{P}-token", "data"),
    "preview_box": Output(f"{P}-preview-box", "style"), "preview_info": Output(f"{P}-preview-info", "children"),
    "preview_rows": Output(f"{P}-preview", "rowData"), "preview_cols": Output(f"{P}-preview", "columnDefs"),
    "columns": Output(f"{P}-columns", "rowData"),
    "id_options": Output(f"{P}-id-col", "options"), "id_col": Output(f"{P}-id-col", "value"),
    "group_options": Output(f"{P}-group-col", "options"), "group_col": Output(f"{P}-group-col", "value"),
    "target_options": Output(f"{P}-targets", "options"), "host_options": Output(f"{P}-host-col", "options"),
    "repeat_options": Output(f"{P}-repeat-col", "options"), "repeat_col": Output(f"{P}-repeat-col", "value"),
    "feature_options": Output(f"{P}-features", "options"), "name": Output(f"{P}-name", "value"),
    "host_time_options": Output(f"{P}-host-time", "options"), "host_time": Output(f"{P}-host-time", "value"),
    "sim_options": Output(f"{P}-sim-cols", "options"), "sim_cols": Output(f"{P}-sim-cols", "value"),
    "missing_info": Output(f"{P}-missing-info", "children"),
}


def _upload_answer(**given) -> dict:
    """Every upload output: the given ones, the rest left as they are."""
    return answer(UPLOAD_OUTPUTS, **given)


def _not_read(note) -> dict:
    return _upload_answer(status=note, token=None, preview_box={"display": "none"})


#: a preview cell's number: integers as written, others to six significant digits (0.000123457, 3.456)
PREVIEW_NUMBER = ("params.value == null ? '' : params.value % 1 === 0 ? params.value "
                  ": d3.format('.6~g')(params.value)")


def _preview_text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.6g}"
    return str(v)


def preview_columns(rows: list[dict], cols: list[str], numeric: list[str]) -> list[dict]:
    """The preview grid's columns, each as wide as its header's longest word and its longest value shown
    (headers wrap between words; a long text past the widest column shows in its tooltip)."""
    out = []
    for c in cols:
        col = {"field": c, "headerName": c}
        if c in numeric:
            col.update(type="numericColumn", valueFormatter={"function": PREVIEW_NUMBER})
        out.append(fitted(col, [_preview_text(r.get(c)) for r in rows]))
    return out


@callback(output=UPLOAD_OUTPUTS, inputs={"contents": Input(f"{P}-upload", "contents"),
                                         "filename": State(f"{P}-upload", "filename")},
          prevent_initial_call=True)
def _uploaded(contents, filename):
    if why := refused("editor", "upload"):
        return _not_read(alert(why))
    # one large upload's reading, staging and preview at a time in this process (small ones are not held up)
    with ExitStack() as large:
        try:
            raw = uploads.decode_upload(contents)
            if profiler_files.profiler_format(raw):  # read in the "Profiler output" card (dashboard.data_import)
                fmt = profiler_files.FORMATS[profiler_files.profiler_format(raw)][1]
                return _not_read(alert(f"This is {fmt}: it is read in \"Profiler output\" below.", "success"))
            cost = uploads.read_cost(raw)
            if cost >= uploads.LARGE_PARSE_BYTES:  # waits for its turn holding only the request's own text
                del raw
                large.enter_context(uploads.one_large_read(cost))
                raw = uploads.decode_upload(contents)
            table = uploads.parse_upload(raw, filename)
        except DataError as exc:
            return _not_read(alert(f"{exc} Nothing was imported."))
        df = table.frame
        cols = [str(c) for c in df.columns]
        numeric = [c for c in cols if df[c].dtype.kind in "fi"]
        info = {"filename": files.clean_name(filename, "upload"), "delimiter": table.delimiter,
                "conversions": table.conversions, "text_dropped": table.text_dropped}
        token = staging.stage_upload(df, info)
        guess = uploads.guess_mapping(table)
        delim = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe"}.get(table.delimiter,
                                                                             "Parquet (no delimiter)")
        desc = f"{len(df):,} rows × {len(cols)} columns; delimiter: {delim}."
        preview = df.head(10).astype(object).where(df.head(10).notna(), None).to_dict("records")
        return _upload_answer(
            status=alert(f"Read {info['filename']}: {desc} Map the columns below, then save.", "success"), token=token,
            preview_box={"display": "block"}, preview_info=desc, preview_rows=preview,
            preview_cols=preview_columns(preview, cols, numeric), columns=uploads.describe_columns(table),
            id_options=cols, id_col=guess["id_col"], group_options=cols, group_col=guess["group_col"],
            target_options=numeric, host_options=numeric, repeat_options=cols, repeat_col=guess["repeat_col"],
            feature_options=numeric, name=info["filename"].rsplit(".", 1)[0],
            host_time_options=numeric, host_time=guess["host_time_col"], sim_options=numeric,
            sim_cols=guess["sim_cols"],
            missing_info=uploads.missing_text(uploads.missing_preview(table, guess["id_col"]), len(df)))


@callback(Output(f"{P}-target-info", "children"), Output(f"{P}-missing-info", "children", allow_duplicate=True),
          Input(f"{P}-targets", "value"), Input(f"{P}-id-col", "value"), Input(f"{P}-token", "data"),
          prevent_initial_call=True)
def _targets_chosen(targets, id_col, token):
    """Before Save: which workloads have no value for a chosen target (kept to predict), or why a target
    would be refused; the missing-feature sentence no longer counts the targets' empty cells."""
    try:
        frame, info = staging.staged_upload(token)
    except (DataError, LookupError):
        return None, no_update
    missing = uploads.missing_after_targets(frame, targets, id_col)
    if not targets:
        return None, missing
    kind, text = uploads.target_preview(frame, info, targets, id_col)
    if kind == "error":
        return alert(f"{text} Save will refuse this target.", "warning"), missing
    return (html.P(text, className="hint", id=f"{P}-unmeasured") if text else None), missing


@callback(Output(f"{P}-host-info", "children"), Input(f"{P}-host-col", "value"), Input(f"{P}-token", "data"),
          prevent_initial_call=True)
def _host_chosen(host, token):
    """Before Save: a sentence when the host's own metric is also a feature (a chosen host column is)."""
    try:
        frame, _ = staging.staged_upload(token)
    except (DataError, LookupError):
        return None
    return uploads.host_feature_text(host, frame.columns) or None


# what Save reads, by name (the mapping as the form holds it)
SAVE_STATES = {"token": State(f"{P}-token", "data"), "name": State(f"{P}-name", "value"),
               "id_col": State(f"{P}-id-col", "value"), "group": State(f"{P}-group-col", "value"),
               "targets": State(f"{P}-targets", "value"), "unit": State(f"{P}-unit", "value"),
               "host": State(f"{P}-host-col", "value"), "repeat": State(f"{P}-repeat-col", "value"),
               "features": State(f"{P}-features", "value"), "host_time": State(f"{P}-host-time", "value"),
               "sim_cols": State(f"{P}-sim-cols", "value"), "missing": State(f"{P}-missing", "value"),
               "shown_in": form_project.state(P)}


@callback(Output(f"{P}-save-status", "children"), Output(f"{P}-datasets", "children"),
          inputs={"_n": Input(f"{P}-save", "n_clicks"), **SAVE_STATES}, prevent_initial_call=True)
def _save(_n, token, name, id_col, group, targets, unit, host, repeat, features, host_time, sim_cols, missing,
          shown_in=None):
    if why := refused("editor", "save") or form_project.moved(shown_in):
        return alert(why), no_update
    try:
        unit = uploads.checked_unit(unit)
        frame, info = staging.staged_upload(token)
        table, raw, mapping, notes = uploads.build_dataset(frame, {
            "id_col": id_col, "group_col": group, "targets": targets, "host_col": host,
            "repeat_col": repeat, "features": features, "host_time_col": host_time, "sim_cols": sim_cols,
            "missing": missing}, text_dropped=info.get("text_dropped"))
    except (DataError, LookupError) as exc:
        return alert(f"Not saved: {str(exc).strip(chr(39))}"), no_update
    notes["conversions"] = info.get("conversions", {})
    try:
        meta = datasets.save_dataset(table, name if isinstance(name, str) and name.strip() else info.get("filename"),
                                     mapping, notes, raw, unit)
    except StorageError as exc:  # a full disk: nothing saved, the upload stays staged for another try
        return alert(str(exc)), no_update
    extra = [f"target values in {unit}" if unit else "no unit given for the target values: pages show them "
             "without one"]
    if notes.get("constant"):
        extra.append(f"constant columns (left out of models): {', '.join(notes['constant'][:8])}")
    if notes.get("dropped_empty"):
        extra.append(f"empty columns dropped: {', '.join(notes['dropped_empty'][:8])}")
    if mapping.get("sim_time_cols"):
        extra.append("simulator times for " + ", ".join(f"{t} ({c})" for t, c in mapping["sim_time_cols"].items()))
    if notes.get("missing"):
        m = notes["missing"]
        what = {"rows": f"{m['rows']} workloads with a missing feature value dropped",
                "columns": f"{len(m['columns'])} feature columns with missing values dropped: "
                           + ", ".join(list(m["columns"])[:8]),
                "median": f"missing values of {len(m['columns'])} columns filled with the column median"}[m["rule"]]
        extra.append(what)
    if notes.get("unmeasured"):
        extra.append(uploads.unmeasured_text(notes["unmeasured"]).rstrip("."))
    if notes.get("repeats"):
        extra.append(f"{notes['repeats']['runs']} runs → {meta['rows']} workloads, "
                     f"{notes['repeats']['outliers']} outlier runs dropped")
    of = f" of {len(frame)}" if meta["rows"] != len(frame) and not notes.get("repeats") else ""
    msg = [f"Saved {meta['rows']}{of} workloads as ", html.Strong(meta["name"]), f" ({meta['id']}). ",
           *next_steps(meta, notes, P),
           html.Div("; ".join(extra), className="hint") if extra else None]
    return alert(msg, "success"), _dataset_list()


def _describe(ds_id) -> str:
    meta = datasets.dataset_meta(ds_id)
    return f"'{meta['name']}' ({meta['id']}, {meta['rows']} workloads)"


register_delete(P, "dataset", _describe, datasets.delete_dataset, _dataset_list, f"{P}-datasets")
