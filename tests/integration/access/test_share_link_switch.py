"""A GET never changes the session's project (issue 40, point 8): a top-level link from another site to
``/scenario?project=B`` used to switch a member of A and B into B, so their next uploads landed in B. Now such
a link asks (a page whose button POSTs to /project and comes back to the link); the project changes only by
that POST. A link to a project that is not yours changes nothing and asks nothing."""

import html
import secrets

from flask.testing import FlaskClient

from tests import signed_in

TAG = secrets.token_hex(3)
A, B, C = f"alpha-{TAG}", f"beta-{TAG}", f"gamma-{TAG}"


def _client(app, person):
    client = FlaskClient(app.server, use_cookies=True)
    client.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    client.set_cookie(*person.cookie())
    return client


def _current(person) -> str:
    """The project the person's session works in (the session row's choice, else the first by name)."""
    from sqlalchemy import select

    from dashboard.access import database, sessions
    from dashboard.access.models import Project, Session

    with database.session() as db:
        pid = db.scalar(select(Session.project_id).where(Session.digest == sessions.digest(person.session_id)))
        return db.scalar(select(Project.name).where(Project.id == pid)) if pid is not None else A


def test_a_link_to_another_project_asks_and_only_a_post_switches(perfcast_app):
    person = signed_in.member(f"mia-{TAG}", A, "editor")
    signed_in.member(person.name, B, "editor")
    client = _client(perfcast_app, person)
    assert _current(person) == A

    r = client.get(f"/scenario?project={B}&dataset=ds-0123456789abcdef", headers={"Sec-Fetch-Site": "cross-site"})
    page = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert f"This link is to project {B}; you are working in project {A}." in page
    assert 'action="/project"' in page and 'method="post"' in page
    assert f'name="project" value="{B}"' in page
    assert f'name="next" value="/scenario?project={B}&dataset=ds-0123456789abcdef"' in page
    assert _current(person) == A  # the GET changed nothing

    r = client.post("/project", data={"project": B, "next": f"/scenario?project={B}&dataset=ds-0123456789abcdef"},
                    headers={"Origin": "http://localhost", "Referer": f"http://localhost/scenario?project={B}"})
    assert r.status_code == 303 and r.headers["Location"] == f"/scenario?project={B}&dataset=ds-0123456789abcdef"
    assert _current(person) == B
    r = client.get(f"/scenario?project={B}")  # now the link opens the page itself
    assert r.status_code == 200 and "Open in another project?" not in r.get_data(as_text=True)

    # a POST's next is a path on this site only
    r = client.post("/project", data={"project": A, "next": "//evil.example/"}, headers={"Origin": "http://localhost"})
    assert r.headers["Location"] == "/" and _current(person) == A


def test_a_link_to_a_project_that_is_not_yours_asks_nothing(perfcast_app):
    person = signed_in.member(f"noa-{TAG}", A, "editor")
    signed_in.member(f"owner-{TAG}", C, "owner")
    client = _client(perfcast_app, person)
    r = client.get(f"/scenario?project={C}")
    assert "Open in another project?" not in r.get_data(as_text=True)
    assert _current(person) == A  # C exists: the link reads like one to a project that does not
