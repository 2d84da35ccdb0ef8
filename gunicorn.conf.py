"""gunicorn settings of the perfcast server (``./run.sh``, the Procfile and benchmarks/load.py).

Two worker processes, each serving requests from several threads: a cached
view is several small requests, and threads keep one slow request (an upload,
a job poll) from holding up the others. Long work runs in job processes, not
in these threads.
"""

import os
import time

from dashboard.settings import ACCESS_LOG, WEB_THREADS, make_files_private

make_files_private()  # the master, before it writes anything (the database it migrates, the access log)

# loopback unless PERFCAST_BIND_HOST says otherwise (deploy/front.py: behind the buffering front, always loopback)
bind = f"{os.environ.get('PERFCAST_BIND_HOST', '127.0.0.1')}:{os.environ.get('PORT', '8050')}"
workers = int(os.environ.get("PERFCAST_WORKERS", 2))
threads = WEB_THREADS  # PERFCAST_THREADS
timeout = 300
control_socket_disable = True
# one line per request with the client's address (%(h)s), to stderr unless PERFCAST_ACCESS_LOG names a file
accesslog = ACCESS_LOG


def on_starting(server):
    """In the master, before any worker is forked: a server that must not start stops here with the reason
    (dashboard/jobs/startup_checks.py), instead of workers failing to boot one after another; then the state of
    earlier versions moves into the first project (dashboard/state/upgrade.py), once."""
    from dashboard.settings import VAR_DIR
    from dashboard.jobs.startup_checks import check_before_workers
    from dashboard.state.files import remove_leftovers
    from dashboard.state.upgrade import move_into_first_project

    check_before_workers()
    moved = move_into_first_project()
    if moved:
        server.log.info("state of earlier versions moved into project default: %s", moved)
    n = remove_leftovers(VAR_DIR)  # temporary files of saves killed mid-way (a failed save removes its own)
    if n:
        server.log.info("removed %d temporary files left by interrupted saves", n)


def when_ready(server):
    """Once per start, in the master before it forks workers: apply the database migrations and, while there is
    no user, print the one-time first-start link (dashboard/access/first_start.py)."""
    from dashboard.access import first_start

    host, _, port = str(server.cfg.bind[0]).rpartition(":")
    # behind the buffering front (deploy/front.py) the link names the front's address, not gunicorn's
    host = os.environ.get("PERFCAST_FRONT_HOST", host)
    port = os.environ.get("PERFCAST_FRONT_PORT", port)
    first_start.announce(f"http://{host or '127.0.0.1'}:{port}")
    os.environ[first_start.ANNOUNCED] = "1"


def post_worker_init(worker):
    """Let Dash finish its one-time set-up (done on the first request, and not
    thread-safe) with one request before the worker's threads serve any; then lay
    out every page once, so the data pages read is loaded before the first user
    (dashboard/warmup.py), and compress the pages' scripts once (dashboard/ui/compression.py); and purge
    the trash's expired items (dashboard/state/trash.py)."""
    from dashboard.request_checks import local_host
    from dashboard.state.trash import purge_expired_everywhere
    from dashboard.ui.compression import compress_bundles
    from dashboard.warmup import lay_out_every_page

    from dashboard.access.gate import INTERNAL

    app = worker.wsgi
    with app.test_client() as client:  # the server's own request: marked in its WSGI environ, past the gate
        client.get("/", headers={"Host": local_host()}, environ_base={INTERNAL: True})
    worker.log.info("pages laid out in %.2f s", lay_out_every_page(app))
    t0 = time.perf_counter()
    n = compress_bundles(app)
    worker.log.info("%d scripts and style sheets compressed in %.2f s", n, time.perf_counter() - t0)
    try:
        purged = purge_expired_everywhere()
    except OSError:  # a worker never stops for the trash: the next listing purges again
        worker.log.exception("purging the trash failed")
    else:
        if purged:
            worker.log.info("%d expired items purged from the trash", purged)
    from dashboard.access import database, sessions

    try:  # the rows of sessions that ended more than a day ago (each sign-in also purges its account's), and
        # audit events older than PERFCAST_AUDIT_KEEP_DAYS (the retention rule, docs/access.md)
        with database.session() as db:
            ended = sessions.purge_ended(db)
        from dashboard.access.audit_chain import prune_by_setting

        with database.session() as db:
            pruned = prune_by_setting(db)
        if pruned:
            worker.log.info("%d audit events older than the retention rule deleted", pruned)
    except Exception:  # noqa: BLE001 - a worker never stops for this: the next start or sign-in purges again
        worker.log.exception("purging ended sessions failed")
    else:
        if ended:
            worker.log.info("%d ended sessions purged", ended)
