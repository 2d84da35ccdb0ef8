"""The "Profiler output" card of /data: upload Nsight Compute, nvprof or rocprof files, see the workload
table they make, save it as a dataset.

Asks only what the files cannot tell: what a workload is (kernel, kernel x input, application run) and
which file is the target (its own upload). The format of each file is recognised and named; the host's
launches are turned into workloads and joined with the target (``dashboard.data_import.staged``); the
preview shows the pivoted table, the rows and metrics only one side has, and what the readers converted.
A file dropped on the page's main upload that turns out to be profiler output is taken as a host file here.
"""

from __future__ import annotations

from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access.projects import can, refused
from dashboard.data_import import saved, staged
from dashboard.state import datasets, uploads
from dashboard.state.files import StorageError
from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert, card, grid, register_csv
from dashboard.ui import form_project
from dashboard.ui.fields import field
from dashboard.settings import MAX_UPLOAD_BYTES
from modeling.errors import DataError

P = "data-prof"
PREVIEW_ROWS = 50


def card_layout():
    """The card, placed on /data under the table upload."""
    return card(
        html.H2("Profiler output (Nsight Compute, nvprof, rocprof)"),
        html.P("Drop the host's profiler CSV files (ncu --csv, details or --page raw; nvprof --csv --metrics / "
               "--events or --print-gpu-trace; rocprof / rocprofv3 counters, a rocprofv3 kernel trace or "
               "rocprof-compute pmc_perf.csv; a rocprof-compute run's folder: select all its files, "
               "pmc_perf.csv, SQ_*.csv and sysinfo.csv are read as one run), "
               "one per input if you have several; then the target's profile or a simulator's results table "
               "(workload key and cycles or time). The format is recognised from the file.", className="hint"),
        html.Div([
            field("Host profile(s)", editor_only(dcc.Upload(
                id=f"{P}-host", multiple=True, max_size=MAX_UPLOAD_BYTES, className="upload-zone",
                children=html.Div(["Drop profiler files, or ", html.A("choose")])), "upload")),
            field("Target: profile or simulator table (optional)", editor_only(dcc.Upload(
                id=f"{P}-target", multiple=True, max_size=MAX_UPLOAD_BYTES, className="upload-zone",
                children=html.Div(["Drop the target's file(s), or ", html.A("choose")])), "upload")),
        ], className="form-grid"),
        html.Div(id=f"{P}-host-status"), html.Div(id=f"{P}-target-status"),
        html.Div(id=f"{P}-sim-box", style={"display": "none"}, children=html.Div([
            field("The simulator's statistics are", dcc.RadioItems(
                id=f"{P}-sim-role", value="measured", className="radio-list",
                options=[{"label": t, "value": k} for k, t in staged.SIM_ROLES.items()]),
                  "as import-sim --features measured | simulated"),
            field("Target statistic(s)", dcc.Dropdown(id=f"{P}-sim-target", options=[], value=[], multi=True),
                  "a statistic of the output, or cycles, seconds, instructions, power (as import-sim --target)"),
        ], className="form-grid")),
        field("A workload is", dcc.RadioItems(id=f"{P}-key", value="kernel", className="radio-list",
                                             options=[{"label": t, "value": k}
                                                      for k, t in staged.KEY_LABELS.items()])),
        field("Input tag from (kernel × input, application run)",
              dcc.Dropdown(id=f"{P}-tag-col", options=[], placeholder="the file name", clearable=True)),
        html.Div(id=f"{P}-box", style={"display": "none"}, children=[
            html.Div(id=f"{P}-summary", className="hint"),
            grid(f"{P}-preview", [], height=280, file_name="profile_workloads.csv"),
            html.Div(id=f"{P}-sides", className="hint"),
            field("Dataset name", dcc.Input(id=f"{P}-name", className="text-input", maxLength=200)),
            html.Div(editor_only(html.Button("Save dataset", id=f"{P}-save", className="btn btn-primary",
                                             n_clicks=0), "save"), className="run-row"),
            html.Div(id=f"{P}-save-status"),
        ]),
        dcc.Store(id=f"{P}-host-tokens"), dcc.Store(id=f"{P}-target-tokens"), form_project.store(P),
    )


register_csv(f"{P}-preview")


def _described(infos) -> list:
    """Each file with its description and every note its reader wrote (what was converted, divided by the XCD
    count, left empty and why): none is cut, the command line's JSON has them all too."""
    items = []
    for info in infos:
        notes = [n for n in info.get("notes", []) if isinstance(n, str) and n.strip()]
        items.append(html.Li([html.Strong(info["filename"]), f": {info['description']}",
                              html.Ul([html.Li(n, className="hint") for n in notes], className="reader-notes")
                              if notes else None]))
    return html.Ul(items, className="dataset-list")


def _files(contents, filenames) -> tuple[list, list]:
    """The uploads as lists (one file arrives as a string), their number bounded."""
    if isinstance(contents, str):
        contents, filenames = [contents], [filenames]
    if not isinstance(contents, list) or not contents:
        raise DataError("The upload did not arrive as files; try again.")
    if len(contents) > staged.MAX_FILES:
        raise DataError(f"{len(contents)} files: at most {staged.MAX_FILES} at once.")
    filenames = filenames if isinstance(filenames, list) and len(filenames) == len(contents) else [None] * len(contents)
    return contents, filenames


def _host_files(contents, filenames):
    contents, filenames = _files(contents, filenames)
    if staged.is_run_upload(filenames):  # one rocprof-compute run's folder, uploaded as its files
        try:
            token, info = staged.stage_run(contents, filenames, uploads.decode_upload)
        except DataError as exc:
            raise DataError(f"rocprof-compute run: {exc}") from None
        return [token], [info]
    tokens, infos = [], []
    for c, name in zip(contents, filenames):
        try:
            token, info = staged.stage_profile(uploads.decode_upload(c), name)
        except DataError as exc:
            raise DataError(f"{name if isinstance(name, str) else 'A file'}: {exc}") from None
        tokens.append(token)
        infos.append(info)
    return tokens, infos


def _read(tokens, infos, contents) -> str:
    """What an upload became: ``2 file(s) read``, or one rocprof-compute run read from its files."""
    if len(infos) == 1 and infos[0].get("run"):
        return f"one rocprof-compute run read from {len(contents) if isinstance(contents, list) else 1} files"
    return f"{len(tokens)} file(s) read"


def _tag_options(infos) -> list:
    return [{"label": c, "value": c} for c in staged.tag_columns(infos)]


@callback(Output(f"{P}-host-status", "children"), Output(f"{P}-host-tokens", "data"),
          Output(f"{P}-tag-col", "options"), Output(f"{P}-tag-col", "value"),
          Input(f"{P}-host", "contents"), State(f"{P}-host", "filename"), prevent_initial_call=True)
def _host_uploaded(contents, filenames):
    if why := refused("editor", "upload"):
        return alert(why), None, [], None
    try:
        tokens, infos = _host_files(contents, filenames)
    except DataError as exc:
        return alert(f"{exc} Nothing was imported."), None, [], None
    return (html.Div([html.P(f"Host: {_read(tokens, infos, contents)}.", className="hint"), _described(infos)]),
            tokens, _tag_options(infos), None)


@callback(Output(f"{P}-host-status", "children", allow_duplicate=True),
          Output(f"{P}-host-tokens", "data", allow_duplicate=True),
          Output(f"{P}-tag-col", "options", allow_duplicate=True),
          Output(f"{P}-tag-col", "value", allow_duplicate=True),
          Input("data-upload", "contents"), State("data-upload", "filename"), prevent_initial_call=True)
def _main_upload_was_a_profile(contents, filename):
    """A profiler file dropped on the page's table upload becomes the host file here."""
    if not can("editor"):  # the table upload's own callback says why
        return no_update, no_update, no_update, no_update
    try:
        raw = uploads.decode_upload(contents)
    except DataError:
        return no_update, no_update, no_update, no_update
    if not staged.profiler_format(raw):
        return no_update, no_update, no_update, no_update
    try:
        token, info = staged.stage_profile(raw, filename)
    except DataError as exc:  # the host files staged before stay staged, and the card says so
        return (alert(f"{filename if isinstance(filename, str) else 'The file'}: {exc} Nothing was imported; the "
                      "host files read before are kept (drop them again to see their list)."),
                no_update, no_update, no_update)
    return (html.Div([html.P("Host: read from the upload above.", className="hint"), _described([info])]),
            [token], _tag_options([info]), None)


@callback(Output(f"{P}-target-status", "children"), Output(f"{P}-target-tokens", "data"),
          Output(f"{P}-sim-box", "style"), Output(f"{P}-sim-target", "options"), Output(f"{P}-sim-target", "value"),
          Input(f"{P}-target", "contents"), State(f"{P}-target", "filename"), State(f"{P}-sim-target", "value"),
          prevent_initial_call=True)
def _target_uploaded(contents, filenames, chosen=None):
    """Stage the target's files; a simulator's own output shows the role fields, its statistics offered and
    the target statistic kept where the new output has it (else cycles)."""
    hidden = {"display": "none"}
    if why := refused("editor", "upload"):
        return alert(why), None, hidden, [], no_update
    try:
        tokens, infos = staged.stage_targets(*_files(contents, filenames), uploads.decode_upload)
    except DataError as exc:
        return alert(f"Target: {exc} Nothing was imported."), None, hidden, [], no_update
    opts = staged.sim_target_options(tokens)
    kept = [c for c in chosen if c in opts] if isinstance(chosen, list) else []
    return (html.Div([html.P(f"Target: {_read(tokens, infos, contents)}.", className="hint"), _described(infos)]),
            tokens, {"display": "block"} if opts else hidden, opts, (kept or ["cycles"]) if opts else [])


def _named(names: list, shown: int = 12) -> str:
    """``a, b, c`` -- the first ``shown`` names and how many more, or "none"."""
    if not names:
        return "none"
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _sides(joined) -> list:
    out = []
    if joined.host_only_rows:
        out.append(html.P(f"Host workloads without a target value (kept to predict): "
                          f"{_named(joined.host_only_rows)}", id=f"{P}-host-only"))
    if joined.target_only_rows:
        out.append(html.P(f"Target workloads the host never ran (left out): "
                          f"{_named(joined.target_only_rows)}", id=f"{P}-target-only"))
    if joined.host_only_metrics or joined.target_only_metrics:
        out.append(html.P(f"Metrics only the host has ({len(joined.host_only_metrics)}): "
                          f"{_named(joined.host_only_metrics)}. Only the target has "
                          f"({len(joined.target_only_metrics)}): {_named(joined.target_only_metrics)}. "
                          "The features are the host's metrics.", id=f"{P}-metrics-sides"))
    return out


@callback(Output(f"{P}-box", "style"), Output(f"{P}-summary", "children"), Output(f"{P}-preview", "rowData"),
          Output(f"{P}-preview", "columnDefs"), Output(f"{P}-sides", "children"),
          Input(f"{P}-host-tokens", "data"), Input(f"{P}-target-tokens", "data"), Input(f"{P}-key", "value"),
          Input(f"{P}-tag-col", "value"), Input(f"{P}-sim-role", "value"), Input(f"{P}-sim-target", "value"),
          prevent_initial_call=True)
def _preview(host_tokens, target_tokens, key, tag_column, role=None, sim_targets=None):
    if staged.target_kind(target_tokens):
        return _sim_preview(host_tokens, target_tokens, role, sim_targets)
    if not host_tokens:
        return {"display": "none"}, None, [], [], None
    try:
        joined, host = staged.joined_table(host_tokens, target_tokens, key, tag_column)
    except (DataError, LookupError) as exc:
        return {"display": "block"}, alert(str(exc)), [], [], None
    frame = joined.frame
    head = frame.head(PREVIEW_ROWS)
    rows = head.astype(object).where(head.notna(), None).to_dict("records")
    cols = [{"field": c, "headerName": c + (f" ({joined.units[c]})" if joined.units.get(c) else "")}
            for c in frame.columns]
    target = (f"targets: {', '.join(joined.targets)}" if joined.targets else
              "no target yet: add the target's profile or a simulator table to save a dataset")
    summary = (f"{len(frame)} workloads ({staged.KEY_EACH[key]}) from {host.repeats['launches']} launches "
               f"({host.repeats['outliers']} outlier launches dropped at ±7 MAD); {len(joined.features)} "
               f"features; {target}. {uploads.host_feature_text(joined.host_col, frame.columns)}").strip()
    return {"display": "block"}, html.P(summary, id=f"{P}-summary-text"), rows, cols, _sides(joined)


def _sim_preview(host_tokens, target_tokens, role, sim_targets):
    """The dataset ``import-sim --join HOST --target ... --features ROLE`` would write, its join report and
    notes (a simulator's output as the target)."""
    try:
        ds, report = staged.sim_dataset(host_tokens, target_tokens, role, sim_targets)
    except (DataError, LookupError) as exc:
        return {"display": "block"}, alert(str(exc)), [], [], None
    head = ds.frame.head(PREVIEW_ROWS)
    rows = head.astype(object).where(head.notna(), None).to_dict("records")
    cols = [{"field": c} for c in ds.frame.columns]
    summary = (f"{len(ds.frame)} workloads keyed app/args--kernel--N; target {', '.join(ds.targets)} from the "
               f"simulator; {len(ds.features)} features from the {ds.features_from} side; each row names the "
               "file#dump its target and features came from.")
    sides = [html.P(line, className="hint") for line in (report.text().splitlines() if report is not None else [])]
    sides += [html.P(f"note: {n}", className="hint") for n in ds.notes]
    return {"display": "block"}, html.P(summary, id=f"{P}-summary-text"), rows, cols, html.Div(sides,
                                                                                            id=f"{P}-sim-join")


def _sim_parts(host_tokens, target_tokens, role, sim_targets):
    """``(table, raw, mapping, notes, unit, units)`` of a simulator-output dataset, its provenance in the notes
    (``simulator_import``: the role, the targets, the join report, and per workload ``target_from`` and
    ``features_from``, which the table keeps as columns too)."""
    ds, report = staged.sim_dataset(host_tokens, target_tokens, role, sim_targets)
    table, raw, mapping, notes = staged.sim_dataset_parts(ds)
    notes["simulator_import"] = {**ds.to_dict(), "role": staged.checked_sim_role(role),
                                 "join": report.to_dict() if report is not None else None,
                                 "target_from": dict(zip(ds.frame["workload"], ds.frame["target_from"])),
                                 "features_from": dict(zip(ds.frame["workload"], ds.frame["features_from"]))}
    return table, raw, mapping, notes, "", None


@callback(Output(f"{P}-save-status", "children"), Output(saved.LIST_ID, "children", allow_duplicate=True),
          Input(f"{P}-save", "n_clicks"),
          State(f"{P}-host-tokens", "data"), State(f"{P}-target-tokens", "data"), State(f"{P}-key", "value"),
          State(f"{P}-tag-col", "value"), State(f"{P}-name", "value"), State(f"{P}-sim-role", "value"),
          State(f"{P}-sim-target", "value"), form_project.state(P), prevent_initial_call=True)
def _save(_n, host_tokens, target_tokens, key, tag_column, name, role=None, sim_targets=None, shown_in=None):
    if why := refused("editor", "save") or form_project.moved(shown_in):
        return alert(why), no_update
    try:
        if staged.target_kind(target_tokens):
            table, raw, mapping, notes, unit, units = _sim_parts(host_tokens, target_tokens, role, sim_targets)
        else:
            joined, host = staged.joined_table(host_tokens, target_tokens, key, tag_column)
            table, raw, mapping, notes = staged.dataset_parts(joined)
            notes["profiler_import"] = {"formats": host.formats, "workload_key": key,
                                        "tag_column": staged.checked_tag_column(tag_column, key),
                                        **joined.to_dict()}
            unit, units = staged.target_unit(joined), staged.target_units(joined)
    except (DataError, LookupError) as exc:
        return alert(f"Not saved: {str(exc).strip(chr(39))}"), no_update
    try:
        meta = datasets.save_dataset(table, name if isinstance(name, str) and name.strip() else "profiler import",
                                     mapping, notes, raw, unit, units)
    except StorageError as exc:  # a full disk: nothing saved, the staged files stay for another try
        return alert(str(exc)), no_update
    extra = []
    if notes.get("missing", {}).get("columns"):
        left_out = list(notes["missing"]["columns"])[:8]
        extra.append("feature columns with missing values left out: " + ", ".join(left_out))
    if notes.get("unmeasured"):
        extra.append(uploads.unmeasured_text(notes["unmeasured"]).rstrip("."))
    n = meta["rows"]
    return alert([f"Saved {n} workload{'s' if n != 1 else ''} as ", html.Strong(meta["name"]), f" ({meta['id']}). ",
                  *saved.next_steps(meta, notes, P),
                  html.Div("; ".join(extra), className="hint") if extra else None], "success"), saved.dataset_list()
