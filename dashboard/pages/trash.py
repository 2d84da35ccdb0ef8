"""Trash: deleted datasets, saved scenarios and saved predictions, restorable for ``PERFCAST_TRASH_DAYS`` days.

A page of its own rather than a section of /data: the trash holds what three pages delete (/data, /scenario,
/predict). It shows the current project's trash; editors restore, owners empty it (checked on the server; the
button is also disabled for others). The browser sends only an entry's name (checked against
``trash.ENTRY_ID``), never a path.
"""

import time

import dash
from dash import ALL, Input, Output, callback, ctx, dcc, html, no_update

from dashboard import settings
from dashboard.access import projects
from dashboard.state import files, predictions, scenarios, trash
from dashboard.ui.components import alert, card
from dashboard.ui.url_state import to_query

dash.register_page(__name__, path="/trash", name="Trash", title="perfcast · trash", order=9,
                   description="Deleted datasets, saved scenarios and saved predictions: restore them, or empty "
                               "the trash.")

P = "trash"
KIND_LABELS = {"dataset": "dataset", "scenario": "saved scenario", "prediction": "saved prediction"}


def _by(actor: dict) -> str:
    return str((actor or {}).get("user") or (actor or {}).get("from") or "–")


def trash_table():
    """The trash's items (expired ones purged first), newest first, each with its Restore button."""
    items = trash.list_trash()
    if not items:
        return html.P("The trash is empty.", className="hint", id=f"{P}-empty-note")
    head = html.Tr([html.Th(h) for h in ("kind", "name", "id", "deleted at", "by", "days left", "")])
    rows = [html.Tr([
        html.Td(KIND_LABELS[r["kind"]]), html.Td(html.Strong(r["name"])), html.Td(r["id"]),
        html.Td(time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(r["deleted_at"]))), html.Td(_by(r["deleted_by"])),
        html.Td(f"{r['days_left']:.0f}" if r["days_left"] >= 1 else "< 1"),
        html.Td(html.Button("Restore", id={"type": f"{P}-restore", "id": r["entry"]}, className="btn btn-small",
                            n_clicks=0)),
    ], className="trash-item") for r in items]
    return html.Table([html.Thead(head), html.Tbody(rows)], className="simple-table", id=f"{P}-table")


def layout(**_query):
    return html.Div([
        html.H1("Trash"),
        html.P(f"Deleted datasets, saved scenarios and saved predictions stay here for {settings.TRASH_DAYS:g} "
               "days, then they are removed for good. Restore puts an item back under its id, exactly as it was "
               "(its checksums are verified), and its links work again.", className="lead"),
        card(html.Div([html.Button("Empty the trash", id=f"{P}-empty", className="btn", n_clicks=0,
                                   disabled=not projects.can("owner"),
                                   title=None if projects.can("owner") else "only an owner of the project can")],
                      className="run-row"),
             html.Div(id=f"{P}-status"),
             html.Div(trash_table(), id=f"{P}-list")),
        dcc.ConfirmDialog(id=f"{P}-confirm-empty"),
    ])


def _link(kind: str, item_id: str) -> str | None:
    """Where a restored item opens."""
    try:
        if kind == "dataset":
            return f"/scenario?dataset={item_id}"
        if kind == "scenario":
            rec = scenarios.load_scenario(item_id)
            return f"/{rec.get('page', 'scenario')}?{(rec.get('summary') or {}).get('query', '')}"
        meta = predictions.load_meta(item_id)
        return f"{predictions.page_of(meta)}{to_query(meta['params'])}"
    except (LookupError, ValueError, TypeError):
        return None


def restore_message(entry) -> object:
    """Restore an entry (its name from the browser, checked on the server); the message to show."""
    if why := projects.refused("editor", "restore from the trash"):
        return alert(why)
    try:
        record = trash.restore(entry)
    except (trash.TrashError, files.StorageError) as exc:
        return alert(str(exc))
    except files.NotFound as exc:
        return alert(f"Not restored: {str(exc).strip(chr(39))}.")
    href = _link(record["kind"], record["id"])
    return alert([f"Restored the {KIND_LABELS[record['kind']]} ", html.Strong(record["name"]), f" ({record['id']}). ",
                  dcc.Link("Open it", href=href, id=f"{P}-restored-link", className="inline-link") if href else None],
                 "success")


@callback(Output(f"{P}-status", "children"), Output(f"{P}-list", "children"),
          Input({"type": f"{P}-restore", "id": ALL}, "n_clicks"), prevent_initial_call=True)
def _restore(_clicks):
    value = (ctx.triggered[0] if ctx.triggered else {}).get("value")
    if not isinstance(ctx.triggered_id, dict) or not isinstance(value, int) or value <= 0:
        return no_update, no_update
    return restore_message(ctx.triggered_id.get("id")), trash_table()


@callback(Output(f"{P}-confirm-empty", "displayed"), Output(f"{P}-confirm-empty", "message"),
          Output(f"{P}-status", "children", allow_duplicate=True),
          Input(f"{P}-empty", "n_clicks"), prevent_initial_call=True)
def _empty_asked(_n):
    if why := projects.refused("owner", "empty the trash"):
        return False, no_update, alert(why)
    n = len(trash.list_trash())
    if not n:
        return False, no_update, no_update
    return True, (f"Remove the {n} item{'s' if n != 1 else ''} in the trash for good, for everyone? "
                  "This cannot be undone."), no_update


@callback(Output(f"{P}-status", "children", allow_duplicate=True), Output(f"{P}-list", "children",
                                                                           allow_duplicate=True),
          Input(f"{P}-confirm-empty", "submit_n_clicks"), prevent_initial_call=True)
def _empty(_n):
    if why := projects.refused("owner", "empty the trash"):
        return alert(why), no_update
    try:
        n = trash.purge(everything=True)
    except OSError as exc:
        return alert(str(files.storage_error(exc, "The trash was not emptied", "Its items are as they were"))), \
            trash_table()
    return alert(f"Emptied the trash: {n} item{'s' if n != 1 else ''} removed for good.", "info"), trash_table()
