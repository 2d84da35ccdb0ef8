"""Local jobs from a clean process, and the small supervisor that can always end them.

A web worker serves requests from several threads; a job ``fork()``-ed from it inherits every lock one of
those threads held at that instant, held for ever (the access database, a logging handler, SQLite, numba's
compiler, an import were each found). So a local job is not forked from the web worker. It is started from
Python's *fork server* (``multiprocessing``'s ``forkserver``): a freshly executed interpreter, started from
the worker by fork+exec (safe from a threaded process), that imports the app once (its preload) and then only
forks. It has one thread, so nothing a web thread holds can reach a job.

Each job is two processes, forked by the fork server::

    supervisor  a session and process group of its own (its pid is Dash's job id); the subreaper of what it
      │         starts; polls, every 0.1 s, for Cancel (SIGTERM from the server) and, every 0.5 s, for
      │         abandonment (no page's heartbeat for JOB_ABANDON_SECONDS)
      └─ job    a process group of its own, with the pool workers it forks: Dash's job function, run exactly
                as before (the same inputs: the callback's arguments, the request's cookies and headers, this
                server's settings)

On Cancel or abandonment the supervisor signals the job, whose handler raises the runner's stop exception (the
job then ends as it does at a progress report: its status and its answer to the page are written), waits
``GRACE_SECONDS``, SIGKILLs the job's group, whatever the job is doing (a fit that never reports progress, a
long call into C), reaps every process of it, and records ``cancelled`` / ``abandoned`` in the job's status if
the job could not (only over a status the job itself wrote, while it was queued or running). The kill never
waits for the status store (a busy SQLite); until the status is written, the supervisor's record still names
the job, so a page that sees the job's process gone does not call it failed (:func:`stopping`). A killed job
leaves nothing half-written: results and statuses are SQLite transactions, its slot and key locks are
``flock``s released by the kernel with the last process holding them. The supervisor is single-threaded and
does no work of its own, so it answers within its poll; should it not (it was SIGKILLed, say), :func:`stop`
ends both groups itself.

Reaping: the fork server reaps the supervisors, a supervisor reaps its job and the job's workers (as the
subreaper, also those orphaned by the job's death), and the web worker joins its finished ``Process``
handles whenever it starts or stops a job: no ``<defunct>`` process stays behind.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from pathlib import Path

POLL_SECONDS = 0.1
GRACE_SECONDS = 0.6  # after the stop signal, for the job to end as at a progress report; then SIGKILL
CANCEL_SIGNAL, ABANDON_SIGNAL = signal.SIGUSR1, signal.SIGUSR2
ABANDON_POLL_SECONDS = 0.5
STOP_WAIT_SECONDS = 2.0

SUPERVISED = False  # set in a job process this launcher started (its process group is made already)
_LOCK = threading.Lock()
_CTX = None
_PROCS: dict[int, object] = {}  # this web worker's supervisors not yet joined


# ---------------------------------------------------------------- the web worker's side

APP_MODULE = "app"  # the app's module (gunicorn serves app:server): importing it registers every page's callbacks


def _context(preload: list[str]):
    """The fork-server context; its preload (set before the fork server starts) is the app, the modules of the
    first job's callback and the fork server's own set-up (:mod:`dashboard.jobs.forkserver_setup`).

    The app is always preloaded, whoever starts the fork server first: one fork server serves the process for
    good, and a job whose callback the fork server has not imported imports it itself, in every job (the whole
    app: seconds before its first progress report). A module that cannot be imported is skipped by the fork
    server."""
    global _CTX
    with _LOCK:
        if _CTX is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(list(dict.fromkeys([APP_MODULE, *preload, "dashboard.jobs.forkserver_setup"])))
            _CTX = ctx
        return _CTX


def prestart(app_module: str = APP_MODULE) -> None:
    """Start the fork server now (its preload imports the app: seconds), so that the first job does not wait
    for it. Called when the app's job manager is made (the app's import: in each gunicorn worker, before its
    threads serve); nothing in the fork server itself (it imports the app too)."""
    from multiprocessing import forkserver

    if _in_fork_server():
        return
    _context([app_module])
    forkserver.ensure_running()


def _in_fork_server() -> bool:
    """Is this the fork server, importing its preload?"""
    from multiprocessing import forkserver

    frame = sys._getframe()
    while frame is not None:
        if frame.f_code is forkserver.main.__code__:
            return True
        frame = frame.f_back
    return False


def _settings() -> dict:
    """This server's settings as plain data: the job runs with them (as a forked job did), whatever the
    environment the fork server was started with."""
    from dashboard import settings

    plain = (str, int, float, bool, type(None), Path)
    return {k: v for k, v in vars(settings).items() if k.isupper() and isinstance(v, plain)}


def start(background_key: str, cache_dir: str, cache_key: str, progress_key: str, args, context,
          modules: list[str]) -> int:
    """Start a job: its supervisor's pid (Dash's job id). Everything the job gets is plain data."""
    reap()
    spec = {"background_key": background_key, "cache_dir": cache_dir, "cache_key": cache_key,
            "progress_key": progress_key, "args": args, "context": dict(context), "modules": modules,
            "settings": _settings(), "sys_path": list(sys.path)}
    proc = _context(modules).Process(target=_supervise, args=(spec,), name="perfcast-job", daemon=False)
    proc.start()
    # The job outlives this server by design (a session of its own, its state on disk): multiprocessing's
    # exit handler joins every child it still lists, so a stopping worker waited for the job to end (up to
    # gunicorn's 30 s grace, then was killed). reap() keeps its own list.
    multiprocessing.process._children.discard(proc)
    with _LOCK:
        _PROCS[proc.pid] = proc
    return proc.pid


def reap() -> None:
    """Join this worker's finished supervisors (their fork-server handles and pipes)."""
    with _LOCK:
        for pid, proc in list(_PROCS.items()):
            if proc.exitcode is not None:  # polls without blocking
                proc.join(0)
                proc.close()
                del _PROCS[pid]


def _record(pid: int) -> Path:
    from dashboard.settings import var_path

    return var_path("jobs", "supervisors") / str(int(pid))


def stopping(job: int) -> bool:
    """Is job process ``job`` being stopped by its (living) supervisor, its status not written yet?"""
    from dashboard.settings import var_path

    for rec in var_path("jobs", "supervisors").iterdir():
        try:
            if rec.name.isdigit() and rec.read_text().strip() == str(int(job)) and _alive(int(rec.name)):
                return True
        except (OSError, ValueError):
            continue
    return False


def supervised(pid: int) -> bool:
    """Is ``pid`` a job supervisor (it recorded itself)?"""
    return _record(pid).exists()


def stop(pid: int) -> None:
    """End job ``pid`` (a supervisor): SIGTERM asks its supervisor to kill the job's group, reap it and
    record the stop; it answers within its poll. Should it not be gone within ``STOP_WAIT_SECONDS``, both
    groups are SIGKILLed from here."""
    pid = int(pid)
    rec = _record(pid)
    try:
        if os.getpgid(pid) != pid:  # not (yet, or any more) a supervisor's group
            return
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        _kill_recorded(rec)
        return
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.02)
    if _alive(pid):
        _kill_recorded(rec)
        _killpg(pid)
    reap()


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _killpg(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill_recorded(rec: Path) -> None:
    """SIGKILL the job group a (dead or unresponsive) supervisor recorded, and forget the record."""
    try:
        job = rec.read_text().strip()
    except OSError:
        return
    if job.isdigit():
        _killpg(int(job))
    rec.unlink(missing_ok=True)


def reap_orphans() -> None:
    """End the job groups of supervisors that died without ending them (SIGKILLed from outside)."""
    from dashboard.settings import var_path

    for rec in var_path("jobs", "supervisors").iterdir():
        if rec.name.isdigit() and not _alive(int(rec.name)):
            _kill_recorded(rec)


# ---------------------------------------------------------------- the supervisor and the job

def _apply(spec: dict) -> None:
    from dashboard import settings

    for k, v in spec["settings"].items():
        setattr(settings, k, v)
    for p in spec["sys_path"]:
        if p not in sys.path:
            sys.path.append(p)


def _set_subreaper() -> None:
    """Orphans of the job (its pool workers, when the job is killed) come to this process to be reaped."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER (Linux)
    except (OSError, AttributeError):
        pass


def _supervise(spec: dict) -> None:
    """The supervisor (first process of a job, forked by the fork server)."""
    os.setsid()
    _set_subreaper()
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append("cancelled"))
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    _apply(spec)
    rec = _record(os.getpid())
    rec.write_text("")
    job = os.fork()
    if job == 0:
        _job(spec)  # never returns
    try:
        os.setpgid(job, job)
    except OSError:  # the job did it first
        pass
    rec.write_text(str(job))
    why = _watch(job, spec, stopping)
    if why:
        _interrupt(job, why)
    _killpg(job)  # workers the job left behind, if any (the kill never waits for the status store)
    _reap_all(job, wait=True)
    if why:  # while this is written, the record names the job: nobody calls it failed (stopping())
        _record_stop(spec, job, why)
    rec.unlink(missing_ok=True)
    os._exit(0)


def _job(spec: dict) -> None:
    """The job process: a group of its own, then Dash's job function with the request's inputs."""
    code = 1
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from dashboard.jobs import runner

        global SUPERVISED
        SUPERVISED = True
        job_fn = _job_fn(spec)
        for sig, exc in ((CANCEL_SIGNAL, runner.StopCancelled), (ABANDON_SIGNAL, runner.StopAbandoned)):
            signal.signal(sig, _raiser(exc))
        job_fn(spec["cache_key"], spec["progress_key"], spec["args"], spec["context"])
        code = 0
    except BaseException:  # noqa: BLE001 - the job's own errors are caught by Dash's job function
        import traceback

        traceback.print_exc()
    finally:
        for sig in (CANCEL_SIGNAL, ABANDON_SIGNAL):
            signal.signal(sig, signal.SIG_IGN)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def _raiser(exc):
    def handler(*_):
        raise exc()
    return handler


def _job_fn(spec: dict):
    """Dash's job function for the callback, writing to the server's job cache."""
    from dash._utils import AttributeDict
    from dash.background_callback.managers import BaseBackgroundCallbackManager as Base
    from dash.background_callback.managers.diskcache_manager import _make_job_fn
    import diskcache

    def lookup():
        return next(((fn, progress) for key, fn, progress in Base.functions if key == spec["background_key"]), None)

    found = lookup()
    for module in spec["modules"]:
        if found:
            break
        importlib.import_module(module)
        found = lookup()
    if found is None:
        raise LookupError(f"no background callback {spec['background_key'][:12]} in {spec['modules']}")
    spec["context"] = AttributeDict(**spec["context"])
    return _make_job_fn(found[0], diskcache.Cache(spec["cache_dir"]), found[1])


def _job_key(args) -> str | None:
    """The result key the job works on (its request store's ``key``), for its heartbeat and status."""
    from dashboard.jobs.keys import check_key

    for a in args if isinstance(args, (list, tuple)) else [args]:
        if isinstance(a, dict) and isinstance(a.get("key"), str):
            try:
                return check_key(a["key"])
            except Exception:  # noqa: BLE001 - a malformed key: the job refuses it itself
                return None
    return None


def _interrupt(job: int, why: str) -> None:
    """Ask the job to stop (a signal its handler turns into the runner's stop exception: its answer and status
    are written as at a progress report), and wait ``GRACE_SECONDS`` for it; the caller then SIGKILLs its
    group, whether or not it ended (a job inside a long computation in C has not)."""
    try:
        os.kill(job, CANCEL_SIGNAL if why == "cancelled" else ABANDON_SIGNAL)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline:
        if _reap_all(job):
            return
        time.sleep(0.02)


def _reap_all(job: int, wait: bool = False) -> bool:
    """Reap every exited child (the job, and its workers once orphaned); True once the job is reaped. With
    ``wait``, until no child is left (they were SIGKILLed: at once)."""
    done = False
    deadline = time.monotonic() + STOP_WAIT_SECONDS
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if wait else os.WNOHANG)
        except ChildProcessError:
            return True
        except InterruptedError:
            continue
        if pid == 0:
            return done
        done = done or pid == job
        if wait and time.monotonic() > deadline:
            return done


def _watch(job: int, spec: dict, stopping: list) -> str | None:
    """Until the job ends (None) or is to be stopped: ``cancelled`` or ``abandoned``."""
    from dashboard import settings
    from dashboard.jobs import local_results as local

    key = _job_key(spec["args"])
    started, next_look = time.time(), 0.0
    while True:
        if _reap_all(job):
            return None
        if stopping:
            return stopping[0]
        now = time.time()
        if key and now >= next_look:
            next_look = now + ABANDON_POLL_SECONDS
            try:
                beat = local.last_beat(key) or 0.0
            except Exception:  # noqa: BLE001 - the cache busy: look again next time
                beat = now
            seen = max(started, beat)
            if now - seen > settings.JOB_ABANDON_SECONDS:
                return "abandoned"
        time.sleep(POLL_SECONDS)


def _record_stop(spec: dict, job: int, why: str) -> None:
    """The job's status says why it stopped, if the job had written one (queued or running) itself."""
    from dashboard import settings
    from dashboard.jobs import local_results as local

    key = _job_key(spec["args"])
    if not key:
        return
    try:
        st = local.status(key)
        if st and st.get("pid") == job and st.get("state") in ("queued", "running"):
            extra = {"message": f"no page has waited for this result for more than "
                                f"{settings.JOB_ABANDON_SECONDS:.0f} s"} if why == "abandoned" else {}
            local.set_status(key, why, run=st.get("run"), **extra)
    except Exception:  # noqa: BLE001 - the status is informative; the job is ended whatever happens
        import traceback

        traceback.print_exc()
