"""A delete button per saved item, a confirm dialog naming the item, and a line saying where it went (the trash).

One pattern for /data's datasets, /scenario's saved scenarios and /predict's saved predictions. Component ids
for a page prefix ``P``: ``{"type": "P-delete", "id": <item id>}`` (the buttons), ``P-confirm-delete``,
``P-delete-id`` and ``P-delete-status``. The id a button carries is checked by the store's own lookup before
the dialog opens and again by the delete (a forged or deleted id is "not found" and changes nothing).
"""

from __future__ import annotations

from collections.abc import Callable

from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update

from dashboard import settings
from dashboard.access.projects import refused
from dashboard.state.files import StorageError
from dashboard.ui.components import alert


def delete_button(prefix: str, item_id: str):
    """The item's delete button; disabled, with the reason as its title, for a role that may not delete (the
    delete itself is refused on the server whatever the button says)."""
    from dashboard.access.projects import can

    allowed = can("editor")
    return html.Button("delete", id={"type": f"{prefix}-delete", "id": item_id}, className="btn btn-small",
                       n_clicks=0, disabled=not allowed,
                       title=("move it to the trash (restore it from /trash)" if allowed else
                              "viewers cannot delete: an editor or owner of the project can"))


def delete_parts(prefix: str) -> list:
    """The dialog, the id it asks about and the status line: put them once in the page's layout."""
    return [dcc.Store(id=f"{prefix}-delete-id"), dcc.ConfirmDialog(id=f"{prefix}-confirm-delete"),
            html.Div(id=f"{prefix}-delete-status")]


def _clicked() -> bool:
    trig = ctx.triggered[0] if ctx.triggered else {}
    value = trig.get("value")
    return isinstance(ctx.triggered_id, dict) and isinstance(value, int) and not isinstance(value, bool) and value > 0


def register_delete(prefix: str, what: str, describe: Callable[[str], str], delete: Callable[[str], dict],
                    relist: Callable[[], object], list_id: str) -> None:
    """Callbacks of a page's delete buttons. ``describe(id)`` is the item as the dialog names it (``LookupError``
    when there is none), ``delete(id)`` moves it to the trash and returns its record, ``relist()`` is the
    children of ``list_id`` after the change."""

    @callback(Output(f"{prefix}-confirm-delete", "displayed"), Output(f"{prefix}-confirm-delete", "message"),
              Output(f"{prefix}-delete-id", "data"),
              Input({"type": f"{prefix}-delete", "id": ALL}, "n_clicks"), prevent_initial_call=True)
    def _asked(_clicks):
        if not _clicked():
            return no_update, no_update, no_update
        item_id = ctx.triggered_id.get("id")
        if refused("editor", "delete"):  # a viewer's (disabled) button: no dialog, the refusal is audited
            return no_update, no_update, no_update
        try:
            text = describe(item_id)
        except (LookupError, TypeError):
            return no_update, no_update, no_update
        return True, (f"Delete the {what} {text} for everyone? Links to it will say 'not found'. It stays in the "
                      f"trash for {settings.TRASH_DAYS:g} days, where it can be restored."), item_id

    @callback(Output(list_id, "children", allow_duplicate=True), Output(f"{prefix}-delete-status", "children"),
              Input(f"{prefix}-confirm-delete", "submit_n_clicks"), State(f"{prefix}-delete-id", "data"),
              prevent_initial_call=True)
    def _confirmed(_n, item_id):
        return delete_answer(what, delete, relist, item_id)


def delete_answer(what: str, delete: Callable[[str], dict], relist: Callable[[], object], item_id) -> tuple:
    """(the list's new children, the status line) after a confirmed delete of ``item_id``."""
    if why := refused("editor", "delete"):
        return no_update, alert(why)
    try:
        record = delete(item_id)
    except (LookupError, TypeError):
        return relist(), no_update
    except StorageError as exc:  # a full disk: the item stays where it was, and the message says so
        return no_update, alert(str(exc))
    return relist(), alert([f"Moved the {what} ", html.Strong(record["name"]), " to the trash: ",
                            dcc.Link("restore it there", href="/trash", className="inline-link"),
                            f" within {settings.TRASH_DAYS:g} days."], "info")
