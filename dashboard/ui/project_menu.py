"""The project menu of the navigation bar: the current project and the role in it, and the user's other
projects to switch to. A plain form (``POST /project``, dashboard/access/projects.py ``switch_route``): the
server checks the membership, changes the session's project and sends the browser back to the page, which
loads again in the new project. No script: the Content-Security-Policy allows none inline."""

from __future__ import annotations

from dash import html

from dashboard.access import projects


def project_menu():
    """The menu, or None for a visitor without a session; a user without a project is told so."""
    mine = projects.my_projects()
    cur = projects.current_project()
    if cur is None:
        return html.Span("no project", className="project-current", id="project-current",
                         title="You are not a member of any project: ask an owner of a project for an invitation link.")
    label = html.Span([html.Strong(cur.name), f" · {cur.role}"], className="project-current", id="project-current",
                      title="the project you work in, and your role in it")
    if len(mine) < 2 or not projects.can_switch():
        return html.Div(label, className="project-menu")
    return html.Form([
        label,
        html.Select([html.Option("switch to…", value=""),
                     *[html.Option(f"{p.name} ({p.role})", value=p.name) for p in mine if p.id != cur.id]],
                    name="project", id="project-select", className="project-select", title="your other projects"),
        html.Button("Switch", type="submit", id="project-switch", className="btn btn-small"),
    ], action="/project", method="POST", className="project-menu")
