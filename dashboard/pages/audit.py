"""Audit: who did what in the current project, when and from which address — for its owners only.

The events are read from the database (dashboard/access/audit_trail.py), newest first, 100 at a time, with
filters by action and by account; the whole trail downloads as CSV. The hash chain's verdict
(dashboard/access/audit_chain.py) heads the page: an event edited or removed outside perfcast shows there.
"""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access import audit_chain, audit_trail, database, projects
from dashboard.ui.components import alert, card

dash.register_page(__name__, path="/audit", name="Audit", title="perfcast · audit trail", order=11,
                   description="Who did what in the project, when and from where (owners only).")

P = "audit"
PAGE = 100


def _owner_project():
    project = projects.current_project()
    return project if project is not None and project.role == "owner" else None


def _refusal(project):
    if project is None:
        return alert("You are not a member of any project.", "info")
    return alert(f"Only owners of {project.name} read its audit trail; you are {project.role}.", "info")


def _verdict():
    with database.session() as db:
        v = audit_chain.verify(db)
    return alert(v.sentence(site=False), "success" if v.intact else "error")


def events_table(project_id: int, action: str = "", user: str = "", before: int | None = None):
    rows = audit_trail.events(project_id, before=before, limit=PAGE, action=action, user=user)
    if not rows:
        return html.P("No events match." if (action or user or before) else "Nothing recorded yet.",
                      className="hint", id=f"{P}-empty"), None
    body = [html.Tr([html.Td(e.at.strftime("%Y-%m-%d %H:%M:%S")), html.Td(e.user or e.detail.get("account", "–")),
                     html.Td(e.address), html.Td(html.Strong(e.action)), html.Td(e.details_text(), className="wrap")],
                    className="audit-row") for e in rows]
    head = html.Tr([html.Th(h) for h in ("when (UTC)", "who", "from", "what", "details")])
    more = rows[-1].id if len(rows) == PAGE else None
    return html.Table([html.Thead(head), html.Tbody(body)], className="simple-table", id=f"{P}-table"), more


def layout(**_query):
    project = projects.current_project()
    if _owner_project() is None:
        return html.Div([html.H1("Audit trail"), _refusal(project)])
    table, more = events_table(project.id)
    return html.Div([
        html.H1(f"Audit trail of {project.name}"),
        html.P("Every upload, save, delete, restore, run, share-link open and membership change in this project, "
               "and its members' sign-ins, with the account and the client address the server saw. The trail is "
               "append-only and chained by SHA-256: the line below says whether it is intact.", className="lead"),
        html.Div(_verdict(), id=f"{P}-verdict"),
        card(html.Div([
            dcc.Dropdown(id=f"{P}-action", options=audit_trail.actions(project.id), placeholder="any action",
                         style={"minWidth": "16rem"}),
            dcc.Input(id=f"{P}-user", placeholder="any account", maxLength=64, debounce=True, className="text-input"),
            html.Button("Download CSV", id=f"{P}-download-csv", className="btn", n_clicks=0),
            dcc.Download(id=f"{P}-download"),
        ], className="run-row"),
            html.Div(table, id=f"{P}-list"),
            html.Button("Older events", id=f"{P}-older", className="btn btn-small", n_clicks=0,
                        style={} if more else {"display": "none"}),
            dcc.Store(id=f"{P}-before", data=more)),
    ])


def _filters(action, user) -> tuple[str, str]:
    action = action if isinstance(action, str) and len(action) <= 64 else ""
    user = user.strip() if isinstance(user, str) and len(user) <= 64 else ""
    return action, user


@callback(Output(f"{P}-list", "children"), Output(f"{P}-before", "data"), Output(f"{P}-older", "style"),
          Input(f"{P}-action", "value"), Input(f"{P}-user", "value"), Input(f"{P}-older", "n_clicks"),
          State(f"{P}-before", "data"), prevent_initial_call=True)
def _list(action, user, older, before):
    project = _owner_project()
    if project is None:
        return _refusal(projects.current_project()), None, {"display": "none"}
    action, user = _filters(action, user)
    page_on = dash.ctx.triggered_id == f"{P}-older" and isinstance(older, int) and older > 0
    start = before if page_on and isinstance(before, int) and not isinstance(before, bool) and before > 0 else None
    table, more = events_table(project.id, action, user, start)
    return table, more, {} if more else {"display": "none"}


@callback(Output(f"{P}-download", "data"), Output(f"{P}-verdict", "children"),
          Input(f"{P}-download-csv", "n_clicks"), prevent_initial_call=True)
def _download(n):
    project = _owner_project()
    if project is None or not isinstance(n, int) or n <= 0:
        return no_update, _refusal(projects.current_project()) if project is None else no_update
    from dashboard import audit_log

    audit_log.record("audit trail exported", project=project.name)
    return dcc.send_string(audit_trail.export_csv(project.id), f"perfcast-audit-{project.name}.csv"), _verdict()
