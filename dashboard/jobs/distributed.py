"""The redis job backend: jobs on Celery workers, their state in Redis (``PERFCAST_REDIS_URL``).

The same guarantees as :mod:`dashboard.jobs.local`, across machines:

* Results: compressed JSON under ``perfcast:result:<key>@p<project id>`` (the project's name space,
  :func:`keys.stored_key`), with the same expiry; a page that finds its key renders at once, from any web
  server.
* Status (queued / running / done / error / cancelled / abandoned) and the pages' heartbeats in Redis.
* One computation per key: a Redis lock with a lease (``LEASE_SECONDS``) that the job renews every second.
  A job whose machine died stops renewing: its lease runs out, a waiting job takes the key over, and the
  page's watchdog reports "failed, run again" (the lease is how a dead job is told from a slow one).
* A per-machine cap of concurrent trainings: ``MAX_CONCURRENT_JOBS`` leased slots per host name.
* Cancel is a flag (``perfcast:cancel:<task id>``), set only for the job's starter (:mod:`dashboard.jobs.owners`);
  a task still queued is also revoked. A running job is
  watched for that flag and for abandonment, outside its progress reports, by a thread of its process
  (:class:`_Watchdog`, every ``WATCH_SECONDS``: it raises the runner's stop exception in the job's thread) and,
  on a prefork pool, by the pool process's watcher (dashboard/jobs/watcher.py: a job still running 0.6 s later, inside
  a long call into C, is killed with its pool process, its stop recorded and its leases released; Celery
  replaces the pool process). With the ``threads`` pool a job shares its process with others and is never
  killed: a call into C finishes first.
* Dash's ``CeleryManager`` carries each job's answer to its page. Its "is the job running" is also asked
  of the job's liveness lease, so a job whose worker died ends the page's polling instead of leaving an
  endless spinner.
* Runs: each run of a job has an id (:mod:`dashboard.jobs.runs`); the job records that it started and that it
  ended under it and holds a lease named by it, and the watchdog judges only the page's own run.
* Redis unreachable or restarting (:mod:`dashboard.jobs.outage`): the job keeps its result and writes it
  (and its status, and Dash's answer) when Redis answers again; leases lost in the outage are taken back;
  for a few seconds after a restart no job is judged dead; the page's poll keeps going meanwhile.

This module is Dash's Celery manager and :class:`RedisBackend`; the rest lives in :mod:`dashboard.jobs.redis_state`
(results, statuses, beats, runs), :mod:`dashboard.jobs.leases` (leases, a key's lock, a machine's slots) and
:mod:`dashboard.jobs.celery_job` (the job's side in its Celery task), and is imported here under its old names.
"""

from __future__ import annotations

import json
from functools import lru_cache

from dash import CeleryManager

from dashboard.jobs.backend import JobBackend
from dashboard import settings
from dashboard.jobs.celery_job import (_TASK, WATCH_SECONDS, _Guard, _JobRecord,  # noqa: F401
                                       _on_pool_process_start, _task_id, _Watchdog, cancelled, guard, job_ended,
                                       job_started, lower_priority, parent, reap_finished, reap_orphan_groups,
                                       start_watcher)
from dashboard.jobs.leases import _RENEWER, KeyLock, Lease, Slot, _token_prefix  # noqa: F401
from dashboard.jobs.outage import is_outage
from dashboard.jobs.redis_state import (FRESH_DATA_SECONDS, PREFIX, _k, _quiet, beat, client,  # noqa: F401
                                        data_age, get_result, has_result, job_failed, last_beat, ping, put_result,
                                        restarted_recently, run_failed, run_submitted, set_status, status)

# ------------------------------------------------------------------------ Dash's manager

class LeasedCeleryManager(CeleryManager):
    """Dash's Celery manager, with a cooperative cancel (a flag the job checks; a queued task is also
    revoked) and a job whose liveness lease ran out counted as not running."""

    def make_job_fn(self, fn, progress, key=None):
        from dashboard.jobs import prestart

        job_fn = super().make_job_fn(fn, progress, key)
        prestart.register(fn, job_fn)
        return job_fn

    def call_job_fn(self, key, job_fn, args, context):
        from plotly.utils import PlotlyJSONEncoder

        from dashboard.jobs import owners, prestart

        answer = prestart.answer_before_start(job_fn, args)  # refused here: no task is queued
        if answer is not None:
            self.handle.backend.set(key, json.dumps(answer, cls=PlotlyJSONEncoder))
            return prestart.NO_JOB
        job = super().call_job_fn(key, job_fn, args, context)
        c = client()
        c.set(_k("queued", job), "1", ex=7200)  # submitted: not started yet, not lost
        owners.REDIS.record(job)  # who may cancel it (terminate_job)
        return job

    def terminate_job(self, job):
        from dashboard.jobs import owners, prestart

        if job is None or prestart.no_job(job) or not owners.REDIS.may_cancel(job):
            return  # refused (dashboard/jobs/owners.py): another person's job, or nobody's on record
        c = client()
        c.set(_k("cancel", job), "1", ex=3600)  # the job and every helper it sent watch this flag
        helpers = [h.decode() for h in c.smembers(_k("helpers", job))]  # its fan-out's tasks still queued
        self.handle.control.revoke([job, *helpers])

    def job_running(self, job):
        # while Redis is unreachable the job is taken as running: the page keeps polling
        from dashboard.jobs import prestart

        if prestart.no_job(job):  # answered before start: no task
            return False
        try:
            if not super().job_running(job):
                return False
            c = client()
            if c.exists(_k("alive", job)):  # its liveness lease, renewed (or taken back) by the job itself
                return True
            if c.exists(_k("started", job)):
                return restarted_recently()
            return bool(c.exists(_k("queued", job))) or restarted_recently()  # queued, or lost with Redis
        except Exception as exc:
            if not is_outage(exc):
                raise
            return True

    # a poll while Redis is unreachable answers "still running", with no progress: the page keeps polling
    # (an error would end its polling for good)

    def get_progress(self, key):
        return _quiet(super().get_progress, key, default=None)

    def get_result(self, key, job):
        return _quiet(super().get_result, key, job, default=self.UNDEFINED)

    def get_updated_props(self, key):
        return _quiet(super().get_updated_props, key, default={})


@lru_cache(maxsize=1)
def background_manager():
    from dashboard.jobs.celery_app import celery_app

    app = celery_app()
    _on_pool_process_start()
    return LeasedCeleryManager(app, expire=int(settings.RESULT_TTL_SECONDS))



class RedisBackend(JobBackend):
    """Celery workers and Redis: jobs are Celery tasks, state and leases in Redis. Each name of the interface
    calls this module's function (or class) of that name."""

    name = "redis"

    def background_manager(self):
        return background_manager()

    def get_result(self, key: str):
        return get_result(key)

    def has_result(self, key: str) -> bool:
        return has_result(key)

    def put_result(self, key: str, value) -> None:
        put_result(key, value)

    def set_status(self, key: str, state: str, **extra) -> None:
        set_status(key, state, **extra)

    def status(self, key: str) -> dict | None:
        return status(key)

    def job_failed(self, key: str, run: str | None = None) -> bool:
        return job_failed(key, run)

    def run_submitted(self, run: str | None) -> None:
        run_submitted(run)

    def beat(self, key: str) -> None:
        beat(key)

    def last_beat(self, key: str) -> float | None:
        return last_beat(key)

    def KeyLock(self, key: str, on_wait=None) -> KeyLock:  # noqa: N802 - the interface's name
        return KeyLock(key, on_wait)

    def Slot(self, on_wait=None) -> Slot:  # noqa: N802 - the interface's name
        return Slot(on_wait)

    def guard(self, key: str, run: str | None = None) -> _Guard:
        return guard(key, run)

    def job_started(self, run: str | None = None) -> None:
        job_started(run)

    def job_ended(self, run: str | None = None) -> None:
        job_ended(run)

    def cancelled(self) -> bool:
        return cancelled()

    def lower_priority(self) -> None:
        lower_priority()

    def reap_finished(self) -> None:
        reap_finished()

    def reap_orphan_groups(self) -> None:
        reap_orphan_groups()

    def ping(self) -> bool:
        return ping()
