"""The "Save this prediction" callback body /counts and /phases share: role checked on the server, the
result the page's ready store names (read through the ``result`` the caller gives, so this page furniture
never imports the jobs), the method's table and summary, and the sentence to show."""

from __future__ import annotations

from dash import dcc, html, no_update

from collections.abc import Callable

from dashboard.ui.components import alert


def save_message(n, result: Callable[[], tuple], name, method: str, table_of, summary_of, default_name_of):
    """Save the page's result as a prediction of ``method``; the alert to show (or no_update). ``result()`` is
    ``(the result or None, its cache key)``, called only once the role allows the save."""
    from dashboard.access.projects import refused
    from dashboard.state import predictions as saved
    from dashboard.state.files import StorageError

    if not isinstance(n, int) or n <= 0:
        return no_update
    if why := refused("editor", "save"):
        return alert(why)
    res, key = result()
    if not res:
        return alert("Predict first; then save the table.", "info")
    try:
        rec = saved.save_prediction(res, key, table_of(res), summary_of(res),
                                    name if isinstance(name, str) else None, method=method,
                                    default_name=default_name_of(res))
    except StorageError as exc:
        return alert(str(exc))
    said = "Already saved as " if rec.get("existing") else "Saved as "
    return alert([said, html.Strong(rec["name"]), f" ({rec['id']}); it is listed on ",
                  dcc.Link("/predict", href="/predict"), "."], "success")
