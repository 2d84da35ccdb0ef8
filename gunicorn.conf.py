"""gunicorn settings of the perfcast server (``./run.sh``, the Procfile and benchmarks/load.py).

Two worker processes, each serving requests from several threads: a cached
view is several small requests, and threads keep one slow request (an upload,
a job poll) from holding up the others. Long work runs in job processes, not
in these threads.
"""

import os
import time

bind = f"127.0.0.1:{os.environ.get('PORT', '8050')}"
workers = int(os.environ.get("PERFCAST_WORKERS", 2))
threads = int(os.environ.get("PERFCAST_THREADS", 4))
timeout = 300
control_socket_disable = True


def post_worker_init(worker):
    """Let Dash finish its one-time set-up (done on the first request, and not
    thread-safe) with one request before the worker's threads serve any; then lay
    out every page once, so the data pages read is loaded before the first user
    (dashboard/warmup.py), and compress the pages' scripts once (dashboard/ui/compression.py)."""
    from dashboard.ui.compression import compress_bundles
    from dashboard.warmup import lay_out_every_page

    app = worker.wsgi
    with app.test_client() as client:
        client.get("/")
    worker.log.info("pages laid out in %.2f s", lay_out_every_page(app))
    t0 = time.perf_counter()
    n = compress_bundles(app)
    worker.log.info("%d scripts and style sheets compressed in %.2f s", n, time.perf_counter() - t0)
