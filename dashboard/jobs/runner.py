"""Running one job: one computation per key, a slot among the concurrent jobs, abandonment.

``run_job`` is what a job process does (the Dash job wrapper calls it); it never raises. A job whose
key another process is computing waits for that result (and takes over if that process dies); a job
no page has watched for ``JOB_ABANDON_SECONDS`` stops, as does a cancelled one: at its next progress report,
and in any case within a second through the backend's ``guard`` (which ends the job's processes)."""

from __future__ import annotations

import time

from dashboard import settings
from dashboard.jobs.backend import active
from dashboard.jobs.outage import is_outage, retrying
from dashboard.ui.url_state import InvalidParameter
from modeling.errors import ModelingError
from modeling.version import code_version


class JobAbandoned(Exception):
    """No browser has watched the job for ``JOB_ABANDON_SECONDS``: it stops itself."""


class JobCancelled(Exception):
    """The page cancelled the job (the redis backend's cooperative cancel)."""


class StopCancelled(JobCancelled):
    """Raised into a job by its watch (the supervisor's signal, the watchdog's asynchronous exception) on Cancel,
    so that the job ends the way it does at a progress report, its answer reaching the page."""

    def __init__(self, *args):
        super().__init__("cancelled")


class StopAbandoned(JobAbandoned):
    """Raised into a job by its watch when no page has watched it for ``JOB_ABANDON_SECONDS``."""

    def __init__(self, *args):
        super().__init__(f"no page has waited for this result for more than {settings.JOB_ABANDON_SECONDS:.0f} s")


class _Reporter:
    """Progress for the job of ``key``; also where an unwatched job notices it is
    abandoned (the user navigated away or closed the tab) or cancelled, and stops."""

    def __init__(self, key: str, progress=None):
        self.key, self.progress = key, progress
        self.started = time.time()
        self.checked = 0.0
        self.unreachable = 0.0  # when Redis last did not answer: pages could not beat then

    def __call__(self, frac, label):
        now = time.time()
        if now - self.checked >= 1.0:
            self.checked = now
            b = active()
            if b.cancelled():
                raise JobCancelled("cancelled")
            try:
                beat = b.last_beat(self.key) or 0.0
            except Exception as exc:
                if not is_outage(exc):
                    raise
                beat = self.unreachable = now
            seen = max(self.started, beat, self.unreachable)
            if now - seen > settings.JOB_ABANDON_SECONDS:
                raise JobAbandoned(f"no page has waited for this result for {now - seen:.0f} s")
        if self.progress:
            self.progress(frac, label)


def compute_once(key: str, compute, report=None):
    """The result for ``key``: from the cache, or computed by ``compute(report)`` under the key's lock
    and stored, so that another process with the same key waits for this one instead of computing it
    too. For results a job computes on the way (the generations job's per-target scenarios); it takes
    no slot, since the job already holds one."""
    report = report or (lambda frac, label: None)
    b = active()
    with b.KeyLock(key, on_wait=lambda: report(0.0, "waiting for another user's identical computation")):
        value = b.get_result(key)
        if value is None:
            value = compute(report)
            retrying(b.put_result, key, value)
    return value


def run_job(key: str, compute, progress=None, run: str | None = None) -> dict:
    """Compute (or fetch) the result for ``key``; never raises.

    ``compute(report)`` returns a typed result (:class:`modeling.results.Result`, stamped with its provenance by
    :meth:`dashboard.jobs.keys.JobKind.run`) or a JSON-ready dict, stored through :mod:`dashboard.jobs.codec`;
    ``report(fraction, label)``
    forwards progress. Returns ``{"key": key}`` or ``{"key": key, "error": msg}``.
    One process computes a key at a time: a job whose key another process is
    computing waits for that result. A job that no page has watched for
    ``JOB_ABANDON_SECONDS`` stops (status ``abandoned``). ``run`` names this run in its status
    (:mod:`dashboard.jobs.runs`). A computed result and the statuses are written when the job service answers
    (retried while it is unreachable, :mod:`dashboard.jobs.outage`).
    """
    b = active()

    def set_status(state, **extra):
        retrying(b.set_status, key, state, run=run, **extra)

    b.reap_orphan_groups()  # workers of jobs that died while no page watched them
    if retrying(b.has_result, key):
        return {"key": key}
    report = _Reporter(key, progress)
    try:
        # the backend's watch over the job, outside the progress reporter: Cancel and abandonment end the job's
        # processes whatever it is doing (local: its supervisor; redis: a watchdog thread in the pool process)
        with b.guard(key, run), b.KeyLock(key, on_wait=lambda: report(0.0, "the same inputs are being computed "
                                                                          "for another user: waiting for that "
                                                                          "result")):
            if retrying(b.has_result, key):
                return {"key": key}
            set_status("queued")
            with b.Slot(on_wait=lambda: report(0.0, "queued: other jobs are training, waiting for a free slot")):
                set_status("running")
                value = compute(report)
            retrying(b.put_result, key, value)
            set_status("done", code_version=code_version())  # which code computed the result
        return {"key": key}
    except JobCancelled:
        set_status("cancelled")
        return {"key": key, "error": "Cancelled. Change the inputs or run again."}
    except JobAbandoned as exc:
        set_status("abandoned", message=str(exc))
        return {"key": key, "error": f"Stopped: {exc}. Run again."}
    except (ModelingError, InvalidParameter, LookupError) as exc:
        set_status("error", message=str(exc))
        return {"key": key, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - shown to the user in place of the spinner
        set_status("error", message=f"{type(exc).__name__}: {exc}")
        return {"key": key, "error": f"The job failed: {type(exc).__name__}: {exc}"}
