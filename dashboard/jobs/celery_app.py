"""The Celery application of the redis job backend (``./worker.sh`` runs ``celery -A app:celery_app worker``).

Broker and result backend are the Redis of ``PERFCAST_REDIS_URL``. Tasks are Dash's background callbacks,
named by a hash of each callback's source: web servers and workers must run the same code. A task is
acknowledged when a worker takes it and each worker process takes one at a time (prefetch 1), so a job
is never run twice by redelivery; a job whose worker dies is reported failed by its lease instead.
"""

from __future__ import annotations

from functools import lru_cache

from dashboard import settings


@lru_cache(maxsize=1)
def celery_app():
    from celery import Celery

    if not settings.REDIS_URL:
        raise RuntimeError("PERFCAST_REDIS_URL is not set: the redis job backend has no Redis")
    app = Celery("perfcast", broker=settings.REDIS_URL, backend=settings.REDIS_URL)
    app.conf.update(
        task_acks_late=False,
        worker_prefetch_multiplier=1,
        task_track_started=True,
        result_expires=int(settings.RESULT_TTL_SECONDS),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
        broker_transport_options={"visibility_timeout": 3600},
        # Redis unreachable or restarting: a worker keeps reconnecting (and its running jobs keep running);
        # a result-backend call fails within seconds instead of blocking a page's request for long (a job
        # waits for Redis itself before it returns: dashboard.jobs.outage)
        broker_connection_max_retries=None,
        worker_cancel_long_running_tasks_on_connection_loss=False,
        redis_socket_connect_timeout=3,
        redis_socket_timeout=10,
        result_backend_transport_options={"retry_policy": {"max_retries": 3, "interval_start": 0,
                                                           "interval_step": 0.5, "interval_max": 1}},
    )
    _allow_process_pools_in_jobs()
    return app


def _allow_process_pools_in_jobs() -> None:
    """A prefork pool process is marked daemonic, and Python refuses to start child processes from a
    daemonic one ("daemonic processes are not allowed to have children"), so the ensemble's and the tree
    sweep's fork pools (``modeling.parallel``) would fail inside a job. The pool process is a job runner
    here, not a daemon of anything: clear the mark when it starts. (Its forked workers still end with it:
    their task pipe reaches end of file.)"""
    from celery.signals import worker_process_init

    @worker_process_init.connect(weak=False)
    def _not_daemonic(**_kw):
        import multiprocessing

        multiprocessing.current_process()._config["daemon"] = False
