"""Members: who belongs to the current project and with which role; owners add accounts, change roles and
remove members here (dashboard/access/members.py checks every change on the server: the acting user is the
signed-in one, the project the session's, never a value the browser sends).
"""

import dash
from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update

from dashboard.access import projects
from dashboard.access import members as team
from dashboard.access.accounts import AccessError
from dashboard.access.models import ROLES
from dashboard.ui.components import alert, card

dash.register_page(__name__, path="/members", name="Members", title="perfcast · members", order=10,
                   description="The project's members and their roles; owners manage them.")

P = "members"
ROLE_HELP = {"viewer": "reads, runs, shares and downloads",
             "editor": "also uploads, saves, deletes and restores from the trash",
             "owner": "also manages members, empties the trash and reads the audit trail"}


def _signed_in_name() -> str | None:
    from dashboard.access import current_user

    user = current_user()
    return user.name if user else None


def members_table(project, owner: bool):
    rows = []
    for m in team.members(project.id):
        remove = (html.Button("Remove", id={"type": f"{P}-remove", "name": m.name}, className="btn btn-small",
                              n_clicks=0) if owner else None)
        rows.append(html.Tr([html.Td(html.Strong(m.name)), html.Td(m.display_name if m.display_name != m.name else ""),
                             html.Td(m.role), html.Td("disabled" if m.disabled else "active"), html.Td(remove)],
                            className="member-row"))
    head = html.Tr([html.Th(h) for h in ("account", "name", "role", "account state", "")])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="simple-table", id=f"{P}-table")


def _no_project():
    return html.Div([html.H1("Members"),
                     alert("You are not a member of any project yet. An owner of a project adds you on this page "
                           "(or an administrator with 'python -m dashboard.admin member add PROJECT USER ROLE').",
                           "info")])


def layout(**_query):
    project = projects.current_project()
    if project is None:
        return _no_project()
    owner = project.role == "owner"
    form = html.Div([
        dcc.Input(id=f"{P}-name", placeholder="account name", debounce=False, maxLength=64, className="text-input",
                  style={"maxWidth": "20rem"}),
        dcc.Dropdown(id=f"{P}-role", options=list(ROLES), value="viewer", clearable=False,
                     style={"minWidth": "10rem"}),
        html.Button("Add or change role", id=f"{P}-set", className="btn", n_clicks=0),
    ], className="run-row") if owner else html.P(
        f"You are {project.role} of {project.name}. Only its owners manage members.", className="hint",
        id=f"{P}-read-only")
    return html.Div([
        html.H1(f"Members of {project.name}"),
        html.P(["A viewer ", ROLE_HELP["viewer"], "; an editor ", ROLE_HELP["editor"], "; an owner ",
                ROLE_HELP["owner"], ". Everything stored belongs to one project and is seen only by its members."],
               className="lead"),
        card(form, html.Div(id=f"{P}-status"), html.Div(members_table(project, owner), id=f"{P}-list")),
        dcc.ConfirmDialog(id=f"{P}-confirm-remove"),
        dcc.Store(id=f"{P}-to-remove"),
    ])


def _change(action) -> tuple:
    """Run ``action(project id, acting user)`` for the session's project and user; the message and the list."""
    project, user = projects.current_project(), _signed_in_name()
    if project is None or user is None:
        return alert("You are not a member of any project."), no_update
    try:
        message = alert(action(project.id, user), "success")
    except AccessError as exc:
        message = alert(str(exc))
    project = projects.current_project()
    return message, members_table(project, project.role == "owner")


@callback(Output(f"{P}-status", "children"), Output(f"{P}-list", "children"),
          Input(f"{P}-set", "n_clicks"), State(f"{P}-name", "value"), State(f"{P}-role", "value"),
          prevent_initial_call=True)
def _set_role(n, name, role):
    if not isinstance(n, int) or n <= 0:
        return no_update, no_update
    if not isinstance(name, str) or not name.strip():
        return alert("Type the account name of the person to add."), no_update
    if role not in ROLES:
        return alert(f"A role is one of {', '.join(ROLES)}."), no_update
    return _change(lambda pid, user: team.set_role(pid, user, name.strip(), role))


@callback(Output(f"{P}-confirm-remove", "displayed"), Output(f"{P}-confirm-remove", "message"),
          Output(f"{P}-to-remove", "data"), Input({"type": f"{P}-remove", "name": ALL}, "n_clicks"),
          prevent_initial_call=True)
def _remove_asked(_clicks):
    value = (ctx.triggered[0] if ctx.triggered else {}).get("value")
    name = ctx.triggered_id.get("name") if isinstance(ctx.triggered_id, dict) else None
    if not isinstance(value, int) or value <= 0 or not isinstance(name, str):
        return False, no_update, no_update
    project = projects.current_project()
    where = project.name if project else "the project"
    return True, f"Remove {name[:64]} from {where}? They lose access to its data at once.", name[:64]


@callback(Output(f"{P}-status", "children", allow_duplicate=True),
          Output(f"{P}-list", "children", allow_duplicate=True),
          Input(f"{P}-confirm-remove", "submit_n_clicks"), State(f"{P}-to-remove", "data"),
          prevent_initial_call=True)
def _remove(n, name):
    if not isinstance(n, int) or n <= 0 or not isinstance(name, str):
        return no_update, no_update
    return _change(lambda pid, user: team.remove(pid, user, name))
