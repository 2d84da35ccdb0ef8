"""Who started each job, and the one rule for its Cancel, on both job backends.

Dash signs a job's handle for the page load that started the job, not for its person: a handle replayed from
another session (copied from a shared screen, a log, a proxy) would end someone else's job. So each backend's
manager records the job's starter (:func:`dashboard.jobs.runs.requester`: ``user:<id>``, whether the person
signed in with a password, by single sign-on or by a trusted proxy's header) when it starts the job, in its
store, and its ``terminate_job`` asks :meth:`Owners.may_cancel` first:

* the request's person is the recorded starter: the job is cancelled;
* another person: refused, and the refusal audited (``refused: cancel``, ``why=not-the-starter``);
* no starter on record (a job started before starters were recorded, a record that could not be written or
  was lost with Redis's data): refused and audited (``why=no-starter-on-record``). Nobody can prove the job is
  theirs, so nobody's handle ends it; it ends by itself, when it finishes or when no page has watched it for
  ``JOB_ABANDON_SECONDS``.

The stores: the local backend's is a file per job under ``var/jobs/owners/<pid>`` (the job's supervisor pid;
a pid used again is recorded again by its own start, the old record removed first); the redis backend's is the
key ``perfcast:owner:<task id>``, kept for ``RECORD_SECONDS`` and renewed by the running job
(:mod:`dashboard.jobs.celery_job`), so a live job never loses its record.

The server's own stops never come here: abandonment (the local job's supervisor, the redis job's watchdog and
its pool's watcher) and the reap of a dead job's processes end jobs without a Cancel.
"""

from __future__ import annotations

from dashboard import settings

#: how long the redis backend keeps a job's starter: as long as its Celery result (Dash's answer to the page)
#: is kept, and renewed while the job runs (jobs have no run-time limit of their own: a job runs until it
#: finishes or no page watches it)
RECORD_SECONDS = int(settings.RESULT_TTL_SECONDS)
#: how often a running redis job renews its starter's record (far below RECORD_SECONDS)
RENEW_SECONDS = 3600.0


class FileStore:
    """The local backend's records: one file per job, named by the job's id (its supervisor's pid)."""

    def _path(self, job):
        return settings.var_path("jobs", "owners") / str(int(job))

    def write(self, job, who: str) -> None:
        path = self._path(job)
        path.unlink(missing_ok=True)  # a pid used again: the earlier job's starter never stands for this one
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(who)

    def read(self, job) -> str | None:
        try:
            return self._path(job).read_text()
        except (OSError, ValueError):
            return None


class RedisStore:
    """The redis backend's records: ``perfcast:owner:<task id>``, kept for :data:`RECORD_SECONDS`."""

    @staticmethod
    def key(job) -> str:
        from dashboard.jobs.redis_state import _k

        return _k("owner", job)

    def write(self, job, who: str) -> None:
        from dashboard.jobs.redis_state import client

        client().set(self.key(job), who, ex=RECORD_SECONDS)

    def read(self, job) -> str | None:
        from dashboard.jobs.redis_state import client

        raw = client().get(self.key(job))
        return None if raw is None else raw.decode()


class Owners:
    """A backend's records of its jobs' starters, and the rule of Cancel (the module docstring)."""

    def __init__(self, store):
        self.store = store

    def record(self, job) -> None:
        """Record this request's person as the starter of ``job``. A record that cannot be written leaves the
        job with none: its Cancel is then refused (the job ends by itself), never allowed to anyone."""
        from dashboard.jobs import runs

        try:
            self.store.write(job, runs.requester())
        except (OSError, ValueError):
            pass

    def may_cancel(self, job) -> bool:
        """May this request's person cancel ``job``? Only its recorded starter may; a refusal is audited."""
        from dashboard.jobs import runs

        starter = self.store.read(job)
        if starter is not None and starter == runs.requester():
            return True
        from dashboard import audit_log

        audit_log.record("refused: cancel", job=str(job)[:64],
                         why="no-starter-on-record" if starter is None else "not-the-starter")
        return False


LOCAL = Owners(FileStore())
REDIS = Owners(RedisStore())
