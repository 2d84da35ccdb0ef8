"""Redis unreachable or restarting (the redis job backend): how an outage is recognised, what the page
says, and how the job side waits for Redis to come back instead of losing what it computed.

An outage is a connection error, a timeout or Redis still loading its append-only file after a restart.
A job keeps its result and retries writing it (and its status, and Dash's answer) until Redis answers
again, for at most ``REDIS_OUTAGE_SECONDS``; the web servers say so on the page and keep polling.
"""

from __future__ import annotations

import logging
import time

from dashboard import settings

log = logging.getLogger("perfcast.jobs")

#: How long a finished job keeps retrying to write its result while Redis is unreachable.

UNREACHABLE = "The job service is unreachable; your job will be shown when it returns."
UNREACHABLE_NEW = "The job service is unreachable: run again in a moment."


class JobServiceUnavailable(RuntimeError):
    """Redis (the job service) does not answer."""


def is_outage(exc: BaseException) -> bool:
    """Is ``exc`` Redis being unreachable (rather than a defect)?"""
    if isinstance(exc, JobServiceUnavailable):
        return True
    try:
        from redis.exceptions import BusyLoadingError, ConnectionError, TimeoutError  # noqa: A004
    except ImportError:
        return False
    if isinstance(exc, (ConnectionError, TimeoutError, BusyLoadingError)):
        return True
    try:
        from kombu.exceptions import OperationalError
    except ImportError:
        return False
    return isinstance(exc, OperationalError)


def retrying(fn, *args, bound: float | None = None, **kwargs):
    """``fn(*args, **kwargs)``, tried again every half second while Redis is unreachable, for at most
    ``bound`` seconds (``REDIS_OUTAGE_SECONDS``); then the last error is raised."""
    deadline = time.time() + (settings.REDIS_OUTAGE_SECONDS if bound is None else bound)
    warned = False
    while True:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            if not is_outage(exc) or time.time() > deadline:
                raise
            if not warned:
                log.warning("Redis unreachable (%s): retrying %s until it returns", exc,
                            getattr(fn, "__name__", "a write"))
                warned = True
            time.sleep(0.5)
