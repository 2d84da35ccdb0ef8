""""Download report" on a page whose view is computed from its settings (no job): the button, and the callback
that parses the settings on the server (as the page's own callback does), builds the report and sends it."""

from __future__ import annotations

from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.ui.components import alert
from dashboard.ui.format import message
from dashboard.ui.url_state import InvalidParameter, parse
from modeling.errors import ModelingError


def controls(prefix: str, contents: str = "the charts, tables, inputs and provenance"):
    """The "Download report" button, what the file holds, a status line and the download."""
    return html.Div([
        html.Button("Download report", id=f"{prefix}-download-report", className="btn btn-small", n_clicks=0),
        html.Span(f" one HTML file with {contents}; it opens offline", className="hint"),
        html.Div(id=f"{prefix}-report-status"),
        dcc.Download(id=f"{prefix}-report"),
    ], className="run-row")


def register(prefix: str, names: list[str], params, path: str, build, stem_of) -> None:
    """``build(v, link)`` makes the report of validated settings ``v``; ``stem_of(v)`` names its file."""

    @callback(Output(f"{prefix}-report", "data"), Output(f"{prefix}-report-status", "children"),
              Input(f"{prefix}-download-report", "n_clicks"), [State(f"{prefix}-{n}", "value") for n in names],
              prevent_initial_call=True)
    def _report(n, *vals):
        from dashboard.ui.report import file_name, view_link

        if not isinstance(n, int) or n <= 0:
            return no_update, no_update
        try:
            v = parse(dict(zip(names, vals)), params)
            report = build(v, view_link(path, v))
        except (InvalidParameter, LookupError, ModelingError, StopIteration) as exc:
            return no_update, alert(f"No report: {message(exc)}")
        return dcc.send_bytes(report.html(), file_name(stem_of(v))), None
