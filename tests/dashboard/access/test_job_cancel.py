"""Cancel ends a job only for the person who started it (dashboard/jobs/local.py; the redis backend's sibling is
tests/integration/scaleout/test_hostile_jobs.py). Dash signs a job's handle for the page load that started it, not
for its person: the handle replayed from another member's session used to end the job."""

from diskcache import Cache
from flask import Flask

from dashboard import settings
from dashboard.access import accounts, database, sessions
from dashboard.jobs import launcher, local

SECRET = "s" * 64


def _cookie(name: str, project: str) -> str:
    accounts.add_user(name, None)
    with database.session() as db:
        accounts.ensure_project(db, project)
    accounts.set_member(project, name, "editor")
    with database.session() as db:
        session_id = sessions.create(db, accounts.find_user(db, name).id, 1)
    return sessions.cookie_value(session_id, SECRET)


def test_a_replayed_job_handle_stops_only_its_starters_job(url, tmp_path, monkeypatch):
    stopped = []
    monkeypatch.setattr(launcher, "start", lambda *a, **k: 424242)
    monkeypatch.setattr(launcher, "supervised", lambda pid: True)
    monkeypatch.setattr(launcher, "stop", lambda pid: stopped.append(pid))
    manager = local.GroupManager(Cache(str(tmp_path / "cache")))
    job_fn = lambda: None  # noqa: E731 - what Dash's make_job_fn returns, as the manager reads it
    job_fn.perfcast_callback = ("bg-key", __name__)
    app = Flask(__name__)
    victim, rival = _cookie("victim", "alpha"), _cookie("rival", "beta")

    def as_(cookie):
        return app.test_request_context("/", headers={"Cookie": f"{settings.SESSION_COOKIE}={cookie}"})

    with as_(victim):
        job = manager.call_job_fn("cache-key", job_fn, [], {})
    with as_(rival):
        manager.terminate_job(job)
    assert stopped == []
    with as_(victim):
        manager.terminate_job(job)
    assert stopped == [424242]
