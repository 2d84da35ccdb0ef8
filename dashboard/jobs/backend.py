"""Which job backend this process uses: :mod:`dashboard.jobs.local` (one machine; the default) or
:mod:`dashboard.jobs.distributed` (Celery workers and Redis, when ``PERFCAST_REDIS_URL`` is set).

Both offer the same names: ``background_manager``, results (``get_result``, ``has_result``, ``put_result``),
status (``set_status``, ``status``, ``job_failed``), heartbeats (``beat``, ``last_beat``), ``KeyLock`` (one
computation per key), ``Slot`` (concurrent trainings per machine), the job process's ``job_started`` /
``job_ended`` / ``cancelled`` / ``lower_priority``, and ``reap_finished`` / ``reap_orphan_groups``.
"""

from __future__ import annotations

import importlib

from dashboard import settings

BACKENDS = {"local": "dashboard.jobs.local", "redis": "dashboard.jobs.distributed"}
_active = None


def use(name: str):
    """Switch this process to backend ``name`` (tests run the job layer against both)."""
    global _active
    _active = importlib.import_module(BACKENDS[name])
    return _active


def active():
    if _active is None:
        use("redis" if settings.REDIS_URL else "local")
    return _active


def name() -> str:
    return "redis" if active().__name__.endswith("distributed") else "local"
