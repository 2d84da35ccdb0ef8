"""The Celery app a test worker runs (``celery -A silent_worker:celery_app``): the real app and job layer, plus
one task that runs a job through the real runner whose computation reports no progress at all (a fit that never
calls the progress reporter)."""

from app import celery_app  # the real app: its settings, its Celery app and the redis job backend
from dashboard import jobs
from dashboard.access import projects
from tests.silent_compute import compute


@celery_app.task(name="perfcast-tests.silent-job")
def silent_job(key, run, project, seconds, in_c=False):
    """What the page's job callback does on a worker (dashboard/jobs/panel.py ``JobPanel.run``)."""
    with projects.scope(project):
        jobs.job_started(run)
        try:
            return jobs.run_job(key, lambda report: compute(seconds, in_c), run=run)
        finally:
            jobs.job_ended(run)
