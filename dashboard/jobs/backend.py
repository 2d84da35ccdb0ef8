"""Which job backend this process uses, and what every backend offers.

:class:`JobBackend` is the interface (as Dash defines its background-callback managers by one base class):
:class:`dashboard.jobs.local.LocalBackend` (one machine; the default) and
:class:`dashboard.jobs.distributed.RedisBackend` (Celery workers and Redis, when ``PERFCAST_REDIS_URL`` is set)
implement every name of it in their class bodies, each a method that calls its module's function (or class) of
that name, so that go-to-definition leads from ``active().job_failed`` to the code; every name is abstract here, so
a backend that leaves one out cannot be made (``TypeError`` at :func:`use`).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import ClassVar

from dashboard import settings

BACKENDS = {"local": ("dashboard.jobs.local", "LocalBackend"), "redis": ("dashboard.jobs.distributed", "RedisBackend")}
_active: JobBackend | None = None


class JobBackend(ABC):
    """Where jobs run and where their results, statuses, heartbeats and locks are kept.

    The job runner (:mod:`dashboard.jobs.runner`), the pages' job panel and :mod:`dashboard.jobs` ask the active
    backend only through these names."""

    name: ClassVar[str]

    # -- Dash's side
    @abstractmethod
    def background_manager(self):
        """Dash's background-callback manager that starts (and cancels) this backend's jobs."""

    # -- results and statuses, by result key
    @abstractmethod
    def get_result(self, key: str):
        """The stored result of ``key`` (a typed result or a plain dict), or None."""

    @abstractmethod
    def has_result(self, key: str) -> bool:
        """Is a result stored under ``key``?"""

    @abstractmethod
    def put_result(self, key: str, value) -> None:
        """Store ``value`` under ``key`` (through :mod:`dashboard.jobs.codec`)."""

    @abstractmethod
    def set_status(self, key: str, state: str, **extra) -> None:
        """Record the job's state (queued, running, done, error, cancelled, abandoned) and who wrote it."""

    @abstractmethod
    def status(self, key: str) -> dict | None:
        """The last recorded state of ``key``'s job, or None."""

    @abstractmethod
    def job_failed(self, key: str, run: str | None = None) -> bool:
        """Has the job of ``key`` (of run ``run``, when given) died without a result or a final state?"""

    @abstractmethod
    def run_submitted(self, run: str | None) -> None:
        """A page submitted run ``run`` (what the backend must remember to judge it later)."""

    # -- the pages' heartbeats
    @abstractmethod
    def beat(self, key: str) -> None:
        """A page still waits for ``key``."""

    @abstractmethod
    def last_beat(self, key: str) -> float | None:
        """When a page last waited for ``key`` (epoch seconds), or None."""

    # -- one computation per key, and the machine's slots (context managers)
    @abstractmethod
    def KeyLock(self, key: str, on_wait=None):  # noqa: N802 - a class in each backend
        """Held while ``key`` is computed: a second job of the same key waits for the first one's result."""

    @abstractmethod
    def Slot(self, on_wait=None):  # noqa: N802 - a class in each backend
        """One of the machine's (or worker's) concurrent trainings, held while a job computes."""

    @abstractmethod
    def guard(self, key: str, run: str | None = None):
        """The watch over a running job outside its progress reports (Cancel and abandonment)."""

    # -- the job process
    @abstractmethod
    def job_started(self, run: str | None = None) -> None:
        """Called first in a job process."""

    @abstractmethod
    def job_ended(self, run: str | None = None) -> None:
        """Called last in a job process."""

    @abstractmethod
    def cancelled(self) -> bool:
        """Has Cancel been pressed for the job this process runs?"""

    @abstractmethod
    def lower_priority(self) -> None:
        """Run this job process below the web servers' priority (where the backend does it per job)."""

    @abstractmethod
    def reap_finished(self) -> None:
        """Collect this web process's finished job processes."""

    @abstractmethod
    def reap_orphan_groups(self) -> None:
        """End the workers of jobs that died while no page watched them."""

    @abstractmethod
    def ping(self) -> bool:
        """Does the job service answer? A backend with a service to lose (Redis) asks it and raises the
        outage error when it does not answer; the local backend always answers."""


def use(name: str) -> JobBackend:
    """Switch this process to backend ``name`` (tests run the job layer against both)."""
    global _active
    module, cls = BACKENDS[name]
    _active = getattr(importlib.import_module(module), cls)()
    return _active


def active() -> JobBackend:
    if _active is None:
        use("redis" if settings.REDIS_URL else "local")
    return _active


def name() -> str:
    return active().name
