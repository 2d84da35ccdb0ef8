"""Background jobs: keys, the runner, the job panel of a page, and the backend that keeps their state.

Layout:

* :mod:`dashboard.jobs.keys`: result keys and job kinds (what makes a key, what computes it);
* :mod:`dashboard.jobs.runner`: what a job process does (one computation per key, slots, abandonment);
* :mod:`dashboard.jobs.panel`: a page's Run/Cancel/progress panel and its callbacks;
* :mod:`dashboard.jobs.local`: the backend on one machine (diskcache, fork, flock, pid).

The names below are what pages and views use; they come from the active backend.
"""

from dashboard.jobs.keys import InvalidKey, JobKind, check_key, key_of, result_key
from dashboard.jobs.local import (background_manager, beat, get_result, has_result, job_failed, pid_alive, put_result,
                                  reap_finished, result_for, status)
from dashboard.jobs.runner import run_job

__all__ = ["InvalidKey", "JobKind", "background_manager", "beat", "check_key", "get_result", "has_result",
           "job_failed", "key_of", "pid_alive", "put_result", "reap_finished", "result_for", "result_key",
           "run_job", "status"]
