"""A form saves into the project it was shown in, or not at all.

The project a session works in can change after a page was laid out (the project menu in another tab, a share
link's question, an accepted invitation). A form that saves (an upload's Save) carries the id of the project
its page was laid out in (:func:`store`, rendered on the server: the navbar showed that project's name beside
it); the save compares it with the session's project (:func:`moved`) and refuses a difference, so nothing is
saved into a project the person did not see on the form. A forged or missing value is a difference too.
"""

from __future__ import annotations

from dash import State, dcc

from dashboard.access import projects


def store(prefix: str) -> dcc.Store:
    """The hidden store of the page's project id (laid out on the server for the request's session)."""
    return dcc.Store(id=f"{prefix}-form-project", data=projects.current_id())


def state(prefix: str) -> State:
    return State(f"{prefix}-form-project", "data")


def moved(form_project) -> str | None:
    """None when ``form_project`` (the store's value) is the session's project; else the sentence to answer
    with (nothing is saved)."""
    cur = projects.current_project()
    if cur is None:
        return None  # the role check that follows refuses, with its own sentence
    if isinstance(form_project, int) and not isinstance(form_project, bool) and form_project == cur.id:
        return None
    shown = next((p.name for p in projects.my_projects() if p.id == form_project), None)
    was = f"in project {shown}" if shown else "in another project"
    return (f"Not saved: this page was opened {was}, and you now work in project {cur.name} (changed in another "
            f"tab or window). Reload the page to save into {cur.name}, or switch back to save there.")
