"""The last line of defence for callbacks: an exception becomes a message, never an HTTP 500.

Every callback validates what the browser sends (``url_state.parse``, the job
kinds, the store checks); a callback that still raises is a defect. Its
traceback goes to the server log, marked so that the callback fuzzer
(``tests/integration/test_callback_fuzz.py``) fails on it, and the page keeps
its state (no update) instead of breaking. One exception is not a defect: the
job service (Redis) not answering; the page then shows the service notice
(:mod:`dashboard.ui.service_notice`) until it answers again. Nor is a write that found the disk full: the
same notice then says so (a save or delete that answers it itself shows its own message in place).
"""

from __future__ import annotations

import logging

log = logging.getLogger("perfcast.callbacks")

#: The log line the fuzzer looks for.
MARK = "perfcast: callback raised"


def on_callback_error(exc: Exception):
    from dash import ctx

    from dashboard.jobs.outage import is_outage

    if is_outage(exc):  # not a defect: the job service does not answer; the page says so (service_notice)
        from dashboard.ui import service_notice

        log.warning("job service unreachable in a callback: %s: %s", type(exc).__name__, exc)
        service_notice.show()
        return None
    from dashboard.state.files import is_disk_full

    if is_disk_full(exc):  # not a defect either: a write found the disk full; the page says so
        from dashboard.ui import service_notice

        log.error("a callback's write found the disk full: %s: %s", type(exc).__name__, exc)
        service_notice.show_disk_full()
        return None

    where = ""
    try:
        where = ", ".join(f"{o['id']}.{o['property']}" for o in (ctx.outputs_list if isinstance(ctx.outputs_list, list)
                                                                  else [ctx.outputs_list]) if isinstance(o, dict))
    except Exception:  # noqa: BLE001 - describing the failure must not fail
        pass
    log.error("%s (%s): %s: %s", MARK, where or "?", type(exc).__name__, exc, exc_info=exc)
    return None  # Dash turns None into "no update" for every output
