"""Members: who belongs to the current project and with which role; owners invite people (a one-time link the
invited person accepts: nobody joins a project without consenting), change members' roles and remove members
here (dashboard/access/members.py and invitations.py check every change on the server: the acting user is the
signed-in one, the project the session's, never a value the browser sends).
"""

import dash
from dash import ALL, Input, Output, State, callback, ctx, dcc, html, no_update

from dashboard.access import invitations, projects
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
                     alert("You are not a member of any project yet. Ask an owner of a project for an invitation "
                           "link: you join when you open it and accept (or an administrator adds you with "
                           "'python -m dashboard.admin member add PROJECT USER ROLE').", "info")])


def waiting_table(project_id: int):
    """The project's invitations that can still be accepted, each with Withdraw."""
    rows = [html.Tr([html.Td(w.role), html.Td(w.created_by), html.Td(f"{w.created:%Y-%m-%d %H:%M} UTC"),
                     html.Td(f"{w.expires:%Y-%m-%d %H:%M} UTC"),
                     html.Td(html.Button("Withdraw", id={"type": f"{P}-withdraw", "id": w.id},
                                         className="btn btn-small", n_clicks=0))], className="invitation-row")
            for w in invitations.waiting(project_id)]
    if not rows:
        return html.P("No invitation is waiting.", className="hint", id=f"{P}-no-invitations")
    head = html.Tr([html.Th(h) for h in ("role", "invited by", "created", "valid until", "")])
    return html.Table([html.Thead(head), html.Tbody(rows)], className="simple-table", id=f"{P}-invitations")


def invite_form(project):
    return html.Div([
        html.H2("Invite someone"),
        html.P("Create a one-time link and send it to the person: they see this project and the role, and join "
               "only when they accept (someone without an account creates one there). The link works once and "
               f"for {invitations_days()} days.", className="hint"),
        html.Div([dcc.Dropdown(id=f"{P}-invite-role", options=list(ROLES), value="viewer", clearable=False,
                               style={"minWidth": "10rem"}),
                  html.Button("Create invitation link", id=f"{P}-invite", className="btn", n_clicks=0)],
                 className="run-row"),
        html.Div(id=f"{P}-invite-status"),
        html.Div(waiting_table(project.id), id=f"{P}-waiting"),
    ])


def invitations_days() -> str:
    from dashboard import settings

    return f"{settings.INVITATION_HOURS / 24:g}"


def layout(**_query):
    project = projects.current_project()
    if project is None:
        return _no_project()
    owner = project.role == "owner"
    form = html.Div([
        dcc.Input(id=f"{P}-name", placeholder="member's account name", debounce=False, maxLength=64,
                  className="text-input", style={"maxWidth": "20rem"}),
        dcc.Dropdown(id=f"{P}-role", options=list(ROLES), value="viewer", clearable=False,
                     style={"minWidth": "10rem"}),
        html.Button("Change role", id=f"{P}-set", className="btn", n_clicks=0),
    ], className="run-row") if owner else html.P(
        f"You are {project.role} of {project.name}. Only its owners manage members.", className="hint",
        id=f"{P}-read-only")
    return html.Div([
        html.H1(f"Members of {project.name}"),
        html.P(["A viewer ", ROLE_HELP["viewer"], "; an editor ", ROLE_HELP["editor"], "; an owner ",
                ROLE_HELP["owner"], ". Everything stored belongs to one project and is seen only by its members."],
               className="lead"),
        card(form, html.Div(id=f"{P}-status"), html.Div(members_table(project, owner), id=f"{P}-list")),
        card(invite_form(project)) if owner else None,
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


def _owner_action(action):
    """Run ``action(project id, acting user)`` as an owner's change of invitations; (message, waiting table)."""
    project, user = projects.current_project(), _signed_in_name()
    if project is None or user is None:
        return alert("You are not a member of any project."), no_update
    try:
        message = action(project.id, user)
    except AccessError as exc:
        return alert(str(exc)), waiting_table(project.id)
    return message, waiting_table(project.id)


def _site() -> str:
    from flask import request

    from dashboard import settings

    return settings.SITE_URL or request.host_url


@callback(Output(f"{P}-invite-status", "children"), Output(f"{P}-waiting", "children"),
          Input(f"{P}-invite", "n_clicks"), State(f"{P}-invite-role", "value"), prevent_initial_call=True)
def _invite(n, role):
    if not isinstance(n, int) or n <= 0:
        return no_update, no_update
    if role not in ROLES:
        return alert(f"A role is one of {', '.join(ROLES)}."), no_update

    def create(pid, user):
        link = invitations.link(invitations.create(pid, user, role), _site())
        return html.Div([
            html.P(f"Send this link to the person you invite as {role} (it is shown once; it works once):"),
            html.Div([html.Code(link, id=f"{P}-invite-link"),
                      dcc.Clipboard(target_id=f"{P}-invite-link", title="copy link", className="share-copy")],
                     className="share-row")], className="alert alert-success", role="status")

    return _owner_action(create)


@callback(Output(f"{P}-invite-status", "children", allow_duplicate=True),
          Output(f"{P}-waiting", "children", allow_duplicate=True),
          Input({"type": f"{P}-withdraw", "id": ALL}, "n_clicks"), prevent_initial_call=True)
def _withdraw(_clicks):
    value = (ctx.triggered[0] if ctx.triggered else {}).get("value")
    which = ctx.triggered_id.get("id") if isinstance(ctx.triggered_id, dict) else None
    if not isinstance(value, int) or value <= 0 or not isinstance(which, int) or isinstance(which, bool):
        return no_update, no_update
    return _owner_action(lambda pid, user: alert(invitations.withdraw(pid, user, which), "success"))
