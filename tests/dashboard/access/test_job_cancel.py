"""Cancel ends a job only for the person who started it (dashboard/jobs/local.py; the redis backend's sibling is
tests/integration/scaleout/test_hostile_jobs.py). Dash signs a job's handle for the page load that started it, not
for its person: the handle replayed from another member's session used to end the job."""

import pytest
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


def _as(cookie: str):
    """A request of the person whose session cookie is ``cookie``."""
    return Flask(__name__).test_request_context("/", headers={"Cookie": f"{settings.SESSION_COOKIE}={cookie}"})


def test_a_replayed_job_handle_stops_only_its_starters_job(url, tmp_path, monkeypatch):
    stopped = []
    monkeypatch.setattr(launcher, "start", lambda *a, **k: 424242)
    monkeypatch.setattr(launcher, "supervised", lambda pid: True)
    monkeypatch.setattr(launcher, "stop", lambda pid: stopped.append(pid))
    manager = local.GroupManager(Cache(str(tmp_path / "cache")))
    job_fn = lambda: None  # noqa: E731 - what Dash's make_job_fn returns, as the manager reads it
    job_fn.perfcast_callback = ("bg-key", __name__)
    victim, rival = _cookie("victim", "alpha"), _cookie("rival", "beta")
    with _as(victim):
        job = manager.call_job_fn("cache-key", job_fn, [], {})
    with _as(rival):
        manager.terminate_job(job)
    assert stopped == []
    with _as(victim):
        manager.terminate_job(job)
    assert stopped == [424242]


# ---------------------------------------------------------------- both backends: no starter on record, proxy sign-in

def _local_manager(tmp_path, monkeypatch):
    """The local manager with its job start and stop recorded instead of run: (manager, job_fn, stopped(): the
    jobs stopped)."""
    stopped = []
    monkeypatch.setattr(launcher, "start", lambda *a, **k: 424242)
    monkeypatch.setattr(launcher, "supervised", lambda pid: True)
    monkeypatch.setattr(launcher, "stop", lambda pid: stopped.append(str(pid)))
    job_fn = lambda: None  # noqa: E731 - what Dash's make_job_fn returns, as the manager reads it
    job_fn.perfcast_callback = ("bg-key", __name__)
    return local.GroupManager(Cache(str(tmp_path / "cache"))), job_fn, lambda: stopped


def _redis_manager(redis_url, monkeypatch):
    """The redis manager on a real Redis, its task's queueing and revoke recorded instead of sent to Celery:
    (manager, job_fn, stopped(): the jobs whose task was revoked and whose cancel flag is set)."""
    import types
    import uuid

    from dashboard.jobs import distributed

    monkeypatch.setattr(settings, "REDIS_URL", redis_url)
    revoked = []
    manager = distributed.LeasedCeleryManager.__new__(distributed.LeasedCeleryManager)
    manager.handle = types.SimpleNamespace(control=types.SimpleNamespace(revoke=lambda ids, **kw: revoked.extend(ids)))
    manager.cache_by, manager.expire = None, None
    job_fn = types.SimpleNamespace(delay=lambda *a: types.SimpleNamespace(task_id=str(uuid.uuid4())))

    def stopped():
        return [j for j in revoked if distributed.client().exists(distributed._k("cancel", j))]

    return manager, job_fn, stopped


@pytest.fixture(params=["local", "redis"])
def manager(request, tmp_path, monkeypatch):
    if request.param == "local":
        return _local_manager(tmp_path, monkeypatch)
    return _redis_manager(request.getfixturevalue("redis_url"), monkeypatch)


def _forget_starter(job) -> None:
    """The job's starter is not on record (a job started before records were kept, a record lost with Redis's
    data or that could not be written)."""
    from dashboard.jobs import distributed

    if str(job) == "424242":
        (settings.VAR_DIR / "jobs" / "owners" / "424242").unlink()
    else:
        distributed.client().delete(distributed._k("owner", job))


def test_a_job_with_no_starter_on_record_is_cancelled_by_nobody(url, manager, caplog):
    """Nobody can show the job is theirs: every handle's Cancel is refused and audited (the job ends by itself,
    finished or abandoned). It used to be cancelled by any handle Dash signed for it."""
    mgr, job_fn, stopped = manager
    victim, rival = _cookie("victim", "alpha"), _cookie("rival", "beta")
    with _as(victim):
        job = mgr.call_job_fn("cache-key", job_fn, [], {})
    _forget_starter(job)
    caplog.set_level("INFO", logger="perfcast.audit")
    for cookie in (rival, victim):
        with _as(cookie):
            mgr.terminate_job(job)
    with Flask(__name__).test_request_context("/"):  # signed out
        mgr.terminate_job(job)
    mgr.terminate_job(job)  # no request at all
    assert stopped() == []
    refusals = [line for line in caplog.text.splitlines() if "refused: cancel" in line]  # (repeats counted)
    assert len(refusals) >= 2 and all("why=no-starter-on-record" in line for line in refusals)


def test_a_proxy_signed_in_users_job_is_cancelled_by_them_only(url, manager, monkeypatch):
    """A person signed in by a trusted proxy's header has no session row: their job is recorded under their
    account, their Cancel ends it, another proxy user's replayed handle does not."""
    mgr, job_fn, stopped = manager
    monkeypatch.setattr(settings, "PROXY_USER_HEADER", "X-Forwarded-User")
    monkeypatch.setattr(settings, "TRUSTED_PROXIES", ["10.9.8.7"])
    for name, project in (("pat", "alpha"), ("sam", "beta")):
        _cookie(name, project)
    app = Flask(__name__)

    def as_(name):
        return app.test_request_context("/", headers={"X-Forwarded-User": name},
                                        environ_base={"REMOTE_ADDR": "10.9.8.7"})

    with as_("pat"):
        job = mgr.call_job_fn("cache-key", job_fn, [], {})
    with as_("sam"):
        mgr.terminate_job(job)
    assert stopped() == []
    with app.test_request_context("/", headers={"X-Forwarded-User": "pat"},
                                  environ_base={"REMOTE_ADDR": "10.1.1.1"}):  # the header from elsewhere: ignored
        mgr.terminate_job(job)
    assert stopped() == []
    with as_("pat"):
        mgr.terminate_job(job)
    assert stopped() == [str(job)]


def test_a_running_redis_job_keeps_its_starter_on_record(redis_url, monkeypatch):
    """The redis backend's record of a job's starter expires (``RECORD_SECONDS``); the running job renews it, so
    a job that runs longer than the record would last never loses its starter (and its Cancel)."""
    from dashboard import jobs
    from dashboard.jobs import celery_job, distributed, owners
    from testkit.waiting import until

    monkeypatch.setattr(settings, "REDIS_URL", redis_url)
    monkeypatch.setattr(celery_job, "_task_id", lambda: "task-long")  # as in a Celery task
    monkeypatch.setattr(celery_job, "RENEW_SECONDS", 0.0)  # renewed at the watchdog's next look
    owners.REDIS.store.write("task-long", "user:3")
    key, c = owners.RedisStore.key("task-long"), distributed.client()
    celery_job.job_started()
    try:
        c.expire(key, 60)  # about to run out
        with celery_job.guard(jobs.result_key("scenario", {"test": "starter-renewed"}, "fp")):
            assert until(lambda: c.ttl(key) > 3600, 30)
        assert owners.REDIS.store.read("task-long") == "user:3"
    finally:
        celery_job.job_ended()
