"""Background jobs: keys, the runner, the job panel of a page, and the backend that keeps their state.

Layout:

* :mod:`dashboard.jobs.keys`: result keys and job kinds (what makes a key, what computes it);
* :mod:`dashboard.jobs.runner`: what a job process does (one computation per key, slots, abandonment);
* :mod:`dashboard.jobs.panel`: a page's Run/Cancel/progress panel and its callbacks;
* :mod:`dashboard.jobs.quotas`: running and queued jobs per person and per project, and whose jobs a
  queued job waits for;
* :mod:`dashboard.jobs.backend`: which backend keeps the jobs' state:
  :mod:`dashboard.jobs.local` (one machine: diskcache, fork, flock, pid) or
  :mod:`dashboard.jobs.distributed` (Celery workers and Redis, when ``PERFCAST_REDIS_URL`` is set).

The names below are what pages and views use; each asks the active backend.
"""

from dashboard.jobs.backend import active
from dashboard.jobs.keys import InvalidKey, JobKind, check_key, key_of, result_key
from dashboard.jobs.local import pid_alive
from dashboard.jobs.outage import JobServiceUnavailable, is_outage
from dashboard.jobs.runner import run_job


def background_manager():
    return active().background_manager()


def get_result(key: str):
    return active().get_result(key)


def result_for(ref):
    """The result named by a page store's ``{"key": …}`` (a request or a ready store), or None (also for a
    store that is not well formed). Reading is safe: a key only ever holds the result of the inputs it was
    derived from.

    While the job service is unreachable (and this process does not hold the result in memory): None when a
    page is being laid out (it is laid out as not computed yet, and its job panel says the service is down),
    but :class:`JobServiceUnavailable` inside a callback, so that the app's error handler shows the service
    notice and the page keeps what it shows, instead of a callback answering as if nothing were computed
    (Save saying "run first", a view going blank)."""
    key = key_of(ref)
    if not key:
        return None
    try:
        return get_result(key)
    except Exception as exc:
        if not is_outage(exc):
            raise
        if _in_callback():
            raise JobServiceUnavailable(str(exc)) from exc
        return None


def _in_callback() -> bool:
    from flask import has_request_context, request

    return has_request_context() and request.path.endswith("/_dash-update-component")


def has_result(key: str) -> bool:
    return active().has_result(key)


def put_result(key: str, value: dict) -> None:
    active().put_result(key, value)


def status(key: str):
    return active().status(key)


def job_failed(key: str, run: str | None = None) -> bool:
    """Has the job for ``key`` died (only run ``run`` is judged when given: see :mod:`dashboard.jobs.runs`)?"""
    return active().job_failed(key, run)


def run_submitted(run: str | None) -> None:
    active().run_submitted(run)


def beat(key: str) -> None:
    active().beat(key)


def reap_finished() -> None:
    active().reap_finished()


def job_started(run: str | None = None) -> None:
    active().job_started(run)


def job_ended(run: str | None = None) -> None:
    active().job_ended(run)


__all__ = ["InvalidKey", "JobKind", "JobServiceUnavailable", "background_manager", "beat", "check_key",
           "get_result", "has_result", "is_outage", "job_ended", "job_failed", "job_started", "key_of", "pid_alive",
           "put_result", "reap_finished", "result_for", "result_key", "run_job", "run_submitted", "status"]
