"""The Celery app a test worker runs (``celery -A counting_worker:celery_app``): the real app and job layer, with
every computation of a cross-generation scenario counted, one line per computation appended to the file named by
``PERFCAST_TEST_COMPUTE_LOG`` (the fits a fan-out shares out are not computations of the scenario: only its
job's own ``compute`` is counted). A computation then waits, reporting progress, until the file named by
``PERFCAST_TEST_COMPUTE_GATE`` exists: the test decides when the job may go on."""

import os
import time
from pathlib import Path

from app import celery_app  # noqa: F401 - the real app: its settings, its Celery app and the redis job backend
from dashboard.crossgen import kinds

_compute = kinds.SCENARIO.compute


def _counted(params, report):
    with open(os.environ["PERFCAST_TEST_COMPUTE_LOG"], "a") as fh:
        fh.write(f"{time.time():.1f} {os.getpid()} {params.get('seed')}\n")
    gate = Path(os.environ["PERFCAST_TEST_COMPUTE_GATE"])
    while not gate.exists():
        report(0.0, "computing")  # where Cancel and abandonment are noticed, as in a real fit
        time.sleep(0.2)
    return _compute(params, report)


object.__setattr__(kinds.SCENARIO, "compute", _counted)  # a frozen dataclass: the job kind the pages' jobs run
