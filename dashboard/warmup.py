"""Each page laid out once when a server worker starts, before it serves anyone.

A page's first layout in a fresh worker reads what it shows from disk: the shipped count tables, the
phase traces, the GPU profiles, the accelerator presets. Measured in a fresh process, that first layout
took 0.23 s for /counts, 0.15 s for /logca, 0.13 s for /new-app and 0.10 s for /apply, against 0.004-0.036 s
once loaded; and every worker of the server paid it on the first link a colleague opened there. gunicorn's
``post_worker_init`` (gunicorn.conf.py) calls :func:`lay_out_every_page` instead, while the worker is not yet
serving. A page that fails here is logged and left to fail, as it would, in front of its user.
"""

from __future__ import annotations

import logging
import time

_log = logging.getLogger("perfcast")


def lay_out_every_page(server) -> float:
    """Call every registered page's layout (its defaults) once inside a request to ``/``; returns seconds."""
    import dash

    t0 = time.perf_counter()
    with server.test_request_context("/"):
        for page in dash.page_registry.values():
            layout = page.get("layout")
            if not callable(layout):
                continue
            try:
                layout()
            except Exception:  # noqa: BLE001 - a warm-up never stops a worker
                _log.exception("warming up %s failed", page.get("path"))
    return time.perf_counter() - t0
