"""The output block of a job page's result, one for every page: Download CSV / Parquet, Download report, Save and
the saved list (/scenario, /predict, /counts, /phases, /new-app).

A page describes what its result becomes with a :class:`Panel` (small functions of the result: its table as
bytes, its report, its saved record) and lays the parts out where it wants them; :func:`register` adds the
callbacks. Element ids for a panel prefix ``P``: ``P-download-csv``, ``P-download-parquet`` and
``P-download-report`` (the buttons the out-of-date mark holds, dashboard/ui/stale.py), ``P-download`` and
``P-report`` (the downloads), ``P-save-name``, ``P-save``, ``P-save-status`` and ``P-saved-list``.

Every callback reads the result from the server's own ``ready`` key through the page's ``result_of`` (this page
furniture never imports the jobs), checks the click it was given, and the save checks the signed-in user's role
in the current project on the server before it reads anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dash import Input, Output, State, callback, ctx, dcc, html, no_update

from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert
from dashboard.ui.delete_confirm import delete_parts, register_delete

FORMATS = ("csv", "parquet")


@dataclass(frozen=True)
class Saving:
    """How a page saves its result. ``store(res, key, name)`` writes it and returns the record (``name``, ``id``,
    ``existing``), raising ``StorageError`` when the disk refuses; ``first`` is said when there is no result yet;
    ``listed_on``: the page that lists the saved items when this one does not."""
    store: Callable[[object, str | None, str | None], dict]
    first: str = "Predict first; then save the table."
    listed_on: str | None = None


@dataclass(frozen=True)
class Listing:
    """The saved list a page shows under its save button: ``items()`` its children, each item with its delete
    button; ``what`` names an item in the delete dialog, ``describe(id)`` and ``delete(id)`` as in
    dashboard/ui/delete_confirm.py."""
    items: Callable[[], list]
    what: str
    describe: Callable[[str], str]
    delete: Callable[[str], dict]


@dataclass(frozen=True)
class Panel:
    """One page's output block, under its job panel ``prefix``. ``result_of(ready)`` is the result the panel's
    ``P-ready`` store names (None when there is none, or it is not the signed-in user's project's);
    ``key_of(ready)`` its cache key. ``export(res, fmt)``: the table as (bytes, file name) in ``csv`` or
    ``parquet``; ``report(res)``: (report, file stem), or None when this result has no report."""
    prefix: str
    result_of: Callable[[object], object]
    key_of: Callable[[object], str | None] | None = None
    export: Callable[[object, str], tuple[bytes, str]] | None = None
    report: Callable[[object], tuple | None] | None = None
    saving: Saving | None = None
    listing: Listing | None = None


def prediction_store(method: str, table_of: Callable, summary_of: Callable,
                     default_name_of: Callable | None = None) -> Callable:
    """``Saving.store`` of a prediction of ``method`` (every method's table has the same leading columns): the
    table and the saved list's summary made from the result by the method's own functions."""
    def store(res, key, name):
        from dashboard.state import predictions

        return predictions.save_prediction(res, key, table_of(res), summary_of(res), name, method=method,
                                           default_name=default_name_of(res) if default_name_of else None)
    return store


def downloads(prefix: str, hint: str, *, table: bool = True) -> html.Div:
    """The download buttons (CSV and Parquet when ``table``, the report always), what the files hold, and the
    downloads themselves."""
    buttons = [html.Button(f"Download {fmt}", id=f"{prefix}-download-{fmt.lower()}", className="btn btn-small",
                           n_clicks=0) for fmt in (("CSV", "Parquet") if table else ())]
    return html.Div([*buttons,
                     html.Button("Download report", id=f"{prefix}-download-report", className="btn btn-small",
                                 n_clicks=0),
                     html.Span(f" {hint}", className="hint"),
                     *([dcc.Download(id=f"{prefix}-download")] if table else []),
                     dcc.Download(id=f"{prefix}-report")], className="run-row")


def save_controls(prefix: str, label: str = "Save this prediction", listed_on: str | None = None) -> list:
    """The name box, the save button (with where the saved item is listed, when that is another page; for a
    viewer disabled with the reason, :func:`dashboard.ui.roles.editor_only`) and the status line."""
    where = [html.Span([" listed with every saved prediction on ", dcc.Link(listed_on, href=listed_on)],
                       className="hint")] if listed_on else []
    return [html.Div([dcc.Input(id=f"{prefix}-save-name", placeholder="name (optional)", maxLength=120,
                                className="text-input"),
                      editor_only(html.Button(label, id=f"{prefix}-save", className="btn", n_clicks=0), "save"),
                      *where],
                     className="run-row"),
            html.Div(id=f"{prefix}-save-status")]


def saved_list(prefix: str, items: list) -> list:
    """The delete dialog's parts and the saved items (``items``: the listing's children now)."""
    return [*delete_parts(prefix), html.Ul(items, id=f"{prefix}-saved-list")]


def clicked(n) -> bool:
    """A real click count (a forged or missing one is not)."""
    return isinstance(n, int) and not isinstance(n, bool) and n > 0


def export_answer(panel: Panel, trigger, ready):
    """The download of the table in the format whose button was pressed (no update without a result)."""
    fmt = next((f for f in FORMATS if trigger == f"{panel.prefix}-download-{f}"), None)
    res = panel.result_of(ready) if fmt else None
    if not res:
        return no_update
    data, name = panel.export(res, fmt)
    return dcc.send_bytes(data, name)


def report_answer(panel: Panel, n, ready):
    """The report's download (no update without a click, a result or a report of it)."""
    from dashboard.ui.report import file_name

    if not clicked(n):
        return no_update
    res = panel.result_of(ready)
    made = panel.report(res) if res else None
    if not made:
        return no_update
    report, stem = made
    return dcc.send_bytes(report.html(), file_name(stem))


def save_answer(panel: Panel, n, ready, name) -> tuple:
    """(the status line after Save, whether something is saved now)."""
    from dashboard.access.projects import refused
    from dashboard.state.files import StorageError

    s = panel.saving
    if not clicked(n):
        return no_update, False
    if why := refused("editor", "save"):
        return alert(why), False
    res = panel.result_of(ready)
    if not res:
        return alert(s.first, "info"), False
    try:
        rec = s.store(res, panel.key_of(ready) if panel.key_of else None, name if isinstance(name, str) else None)
    except StorageError as exc:
        return alert(str(exc)), False
    said = "Already saved as " if rec.get("existing") else "Saved as "
    where = ([f" ({rec['id']}); it is listed on ", dcc.Link(s.listed_on, href=s.listed_on), "."] if s.listed_on
             else [f" ({rec['id']})."])
    return alert([said, html.Strong(rec["name"]), *where], "success"), True


@dataclass(frozen=True)
class Callbacks:
    """The registered callbacks of a panel (plain functions: a test calls them as the page's own)."""
    download: Callable | None
    report: Callable | None
    save: Callable | None


def register(panel: Panel) -> Callbacks:
    """Register the callbacks of the parts ``panel`` has: downloads, report, save and its saved list."""
    P = panel.prefix
    ready = State(f"{P}-ready", "data")
    download = report = save = None
    if panel.export:
        @callback(Output(f"{P}-download", "data"), Input(f"{P}-download-csv", "n_clicks"),
                  Input(f"{P}-download-parquet", "n_clicks"), ready, prevent_initial_call=True)
        def download(_csv, _parquet, ready):
            return export_answer(panel, ctx.triggered_id, ready)

    if panel.report:
        @callback(Output(f"{P}-report", "data"), Input(f"{P}-download-report", "n_clicks"), ready,
                  prevent_initial_call=True)
        def report(n, ready):
            return report_answer(panel, n, ready)

    listing = panel.listing
    if panel.saving and listing:
        register_delete(P, listing.what, listing.describe, listing.delete, listing.items, f"{P}-saved-list")

        @callback(Output(f"{P}-save-status", "children"), Output(f"{P}-saved-list", "children"),
                  Input(f"{P}-save", "n_clicks"), ready, State(f"{P}-save-name", "value"), prevent_initial_call=True)
        def save(n, ready, name):
            status, saved = save_answer(panel, n, ready, name)
            return status, listing.items() if saved else no_update
    elif panel.saving:
        @callback(Output(f"{P}-save-status", "children"), Input(f"{P}-save", "n_clicks"), ready,
                  State(f"{P}-save-name", "value"), prevent_initial_call=True)
        def save(n, ready, name):
            return save_answer(panel, n, ready, name)[0]
    return Callbacks(download, report, save)
