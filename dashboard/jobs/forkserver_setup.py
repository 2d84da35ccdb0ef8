"""Imported last by the local jobs' fork server (:mod:`dashboard.jobs.launcher`), after the app: the fork
server keeps no connection its children could share, and reaps what it is handed.

* The app's import opened the job manager's cache (SQLite) and perhaps the access database: closed here, by
  the process that opened them, so that every job opens its own (an SQLite connection must not be used, nor
  closed, by a forked child).
* The fork server becomes a subreaper: a job whose supervisor was SIGKILLed from outside leaves no
  ``<defunct>`` process behind (the fork server reaps every child; it warns about those it did not start).
"""

from __future__ import annotations

import contextlib
import warnings

from dashboard.jobs import launcher

warnings.filterwarnings("ignore", message="forkserver: waitpid returned unexpected pid")
launcher._set_subreaper()

with contextlib.suppress(Exception):
    from dashboard.jobs import local

    if local.background_manager.cache_info().currsize:
        local.background_manager().handle.close()
    from dashboard.jobs import local_results

    for cache in local_results._RESULTS.values():
        cache.close()
    local_results._RESULTS.clear()
with contextlib.suppress(Exception):
    from dashboard.access import database

    for engine, _ in database._ENGINES.values():
        engine.dispose()
