"""A computation that reports no progress at all (a fit that never calls the progress reporter): the job the
tests of Cancel and abandonment stop, on the local backend (tests/dashboard/jobs/test_job_process.py) and on a
Celery worker (tests/integration/scaleout/silent_worker.py)."""

import itertools
import time


def compute(seconds, in_c=False):
    """``seconds`` of computing with no progress report: in Python, or (``in_c``) in one call into C that neither
    signals nor asynchronous exceptions interrupt (a long fit inside a compiled library)."""
    if in_c:
        return {"n": sum(itertools.repeat(1, int(seconds * 5e7)))}
    t_end, n = time.time() + seconds, 0
    while time.time() < t_end:
        n += 1
    return {"n": n}
