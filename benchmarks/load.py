"""Load and fault run against ``gunicorn -w 2`` on loopback (QUALITY.md, "Load").

What it does, all against a server it starts itself on 127.0.0.1 and stops at the end:

* ``--users`` scripted users open the cached default scenario over and over for
  ``--seconds`` (each open: the page, layout, callback graph, router, then the
  summary, per-workload chart, inlier curves and step table, in sequence, as
  one view), while ``--trainings`` scenario trainings run as background jobs, one after another for as
  long as the users open views (so the machine trains during the whole measurement).
* ``--mix browser``: each view sends what Chromium sent when it opened the same link (recorded on this
  server first, ``benchmarks/browser_view.py``); ``--mix both`` runs the scripted mix, then the browser mix.
* One more training; its gunicorn worker is SIGKILLed mid-job: the result must
  still arrive, or the page's watchdog must report the failure.
* ``--saves`` users save the same scenario at the same moment through both workers.
* ``--backend redis``: the same with the redis job backend: a Redis started here, two Celery workers
  (``celery -A app:celery_app worker``, as ./worker.sh), trainings on the workers, and one *worker* killed
  mid-job (machine loss) instead of a gunicorn worker; task deliveries are counted from the workers' logs
  (no lost or duplicated job). ``--backend both`` runs local then redis, so the cached-view p95 of both
  backends come from one run.

Prints JSON: requests and 5xx counts, p50/p95 of a cached view against the 1 s
budget (the ratio), per-request p95, training times, the worker-kill outcome,
zombie processes left, and the save outcome. Loops are bounded by count and time.

    .venv/bin/python benchmarks/load.py --users 15 --seconds 40 --json
    .venv/bin/python benchmarks/load.py --users 15 --seconds 40 --mix both --json
    .venv/bin/python benchmarks/load.py --users 18 --seconds 40 --backend both --json
"""

from __future__ import annotations

import argparse
import contextvars
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# the server helpers the tests use too (testkit/: neither imports the other)
from testkit.servers import celery_worker as _celery_worker  # noqa: E402
from testkit.servers import free_port as _free_port  # noqa: E402
from testkit.servers import start_redis as _start_redis  # noqa: E402
from testkit.servers import stop_group as _stop_group  # noqa: E402
from testkit.servers import wait_up as _wait_up  # noqa: E402

VIEW_BUDGET_S = 1.0


def _pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q / 100 * (len(xs) - 1))))]


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests: dict[str, list] = {}
        self.statuses: list[int] = []  # of the current phase
        self.every_status: list[int] = []  # of the whole run

    def __call__(self, kind, seconds, status):
        with self.lock:
            self.requests.setdefault(kind, []).append(seconds)
            self.statuses.append(status)
            self.every_status.append(status)

    def clear(self) -> None:
        """Start a new phase (the whole run's statuses are kept)."""
        with self.lock:
            self.requests, self.statuses = {}, []


def _gunicorn(port: int, env: dict, threads: int | None = None) -> subprocess.Popen:
    """The project's own server settings (gunicorn.conf.py) on a free port, with ``threads`` web threads per
    worker (``PERFCAST_THREADS``, which the sign-in settings follow; None: the project's default). Its log goes
    to a temporary file (:func:`server_log` reads it): a pipe that nobody reads while the server runs fills up
    with audit lines and then stops every thread that logs, which looks like a server stalling under load."""
    exe = Path(sys.executable).parent / "gunicorn"
    log = tempfile.TemporaryFile(mode="w+")
    if threads is not None:
        env = {**env, "PERFCAST_THREADS": str(threads)}
    proc = subprocess.Popen([str(exe), "app:server", "-c", "gunicorn.conf.py",
                             "--bind", f"127.0.0.1:{port}", "--log-level", "warning"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
    proc.log = log
    return proc


def server_log(proc: subprocess.Popen) -> str:
    """What a server started by :func:`_gunicorn` has logged so far."""
    proc.log.seek(0)
    return proc.log.read()


def _zombies_under(root_pid: int) -> list:
    """Zombie processes below the server (pid, parent pid)."""
    import psutil

    return [(pid, ppid) for pid, ppid, st in _tree(root_pid) if st == psutil.STATUS_ZOMBIE]


def _tree(root_pid: int) -> list:
    """Processes below the server as (pid, parent pid, status)."""
    import psutil

    try:
        return [(p.pid, p.ppid(), _status(p)) for p in psutil.Process(root_pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _status(p):
    import psutil

    try:
        return p.status()
    except psutil.NoSuchProcess:
        return None


def _deliveries(logs) -> dict:
    """Celery task ids received per worker log: a job delivered twice (redelivery) would appear twice."""
    got = []
    for log in logs:
        got += re.findall(r"Task background_callback_\w+\[([0-9a-f-]{36})\] received", log.read_text(errors="replace"))
    return {"tasks_received": len(got), "tasks_received_twice": len(got) - len(set(got))}


def run(users=15, seconds=40.0, trainings=2, saves=8, kill_worker=True, max_views=3000, threads=None,
        backend="local", mixes=("script",)) -> dict:
    """Start the server (and for ``backend="redis"`` Redis and two Celery workers), run the load, stop
    everything; returns the measured figures."""
    var = tempfile.mkdtemp(prefix="perfcast-load-")
    os.environ["PERFCAST_VAR_DIR"] = var  # this process reads the same cache as the server
    from testkit.dash_client import DashClient, DashError
    from testkit.signin import create_account
    from dashboard import jobs, settings
    from dashboard.crossgen.kinds import SCENARIO, cached
    from dashboard.jobs import backend as job_backend
    from dashboard.ui.url_state import to_query

    settings.VAR_DIR = Path(var)
    env = {**os.environ, "PERFCAST_VAR_DIR": var}
    redis_proc, workers = None, []
    if backend == "redis":
        import secrets

        redis_proc, url = _start_redis()
        env.update(PERFCAST_REDIS_URL=url, PERFCAST_SECRET_KEY=secrets.token_hex(16), PERFCAST_LEASE_SECONDS="5")
        settings.REDIS_URL, settings.LEASE_SECONDS = url, 5.0
        workers = [(_celery_worker(env, f"w{i}", Path(var) / f"w{i}.log"), Path(var) / f"w{i}.log") for i in (1, 2)]
    else:
        env.pop("PERFCAST_REDIS_URL", None)
        settings.REDIS_URL = None
    job_backend.use(backend)

    account = create_account(env)  # every scripted user signs in with it through /login
    from testkit.signin import work_in_project
    from dashboard.access.projects import project_dir

    project_var = project_dir(work_in_project(env))  # the users' project: where their saves go
    view_params = SCENARIO.request({})["params"]
    cached_key, _ = cached(SCENARIO, view_params)  # the view the users open is cached
    query = to_query(view_params)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _gunicorn(port, env, threads)
    rec = Recorder()
    if threads is None:
        from dashboard.settings import WEB_THREADS as threads
    out: dict = {"backend": backend, "users": users, "seconds": seconds,
                 "server": f"gunicorn -c gunicorn.conf.py: 2 workers x {threads} threads (loopback)"
                           + (", 2 Celery workers x 2 processes, Redis" if backend == "redis" else "")}
    try:
        _wait_up(base)
        ready = {("scenario-ready", "data"): {"key": cached_key}}

        def open_view(client):
            layout = client.open(f"/scenario{query}")
            if cached_key not in json.dumps(layout):
                raise AssertionError("the cached link did not open ready")
            client.call("scenario-summary.children", ready)
            client.call("scenario-workload-graph.figure", {**ready, ("scenario-model", "value"): "RandomForest"})
            client.call("scenario-ir-graph.figure",
                        {**ready, ("scenario-ir-models", "value"): ["RandomForest", "OLS/Forward/BIC"]})
            client.call("scenario-steps-grid.rowData", {**ready, ("scenario-steps", "value"): "OLS/Forward/BIC"})

        recorded: list = []

        def open_view_as_browser(client):
            """A page load as Chromium did it (benchmarks/browser_view.py): the page, its layout, the callback
            graph (fetched again, as by a new page) and then every callback the browser sent, in order."""
            client.deps = {}
            layout = client.open(f"/scenario{query}")
            if cached_key not in json.dumps(layout):
                raise AssertionError("the cached link did not open ready")
            for body in recorded:
                client._send("callback", "POST", f"/_dash-update-component?endId={client.end_id}", json=body)

        if "browser" in mixes:
            from benchmarks.browser_view import record

            signed = DashClient(base, account=account)
            recorded[:] = [b for b in record(base, f"/scenario{query}", signed.http.cookies.get_dict(),
                                             "#scenario-best-eout")
                           if b.get("output") != "_pages_content.children"]  # the router: client.open sends it
            out["browser_mix_callbacks"] = sorted({b["output"] for b in recorded})

        views, errors = [], []
        stop_at = time.time() + seconds
        budget = {"left": max_views}
        lock = threading.Lock()

        def user(view, client):
            while time.time() < stop_at:
                with lock:
                    if budget["left"] <= 0:
                        return
                    budget["left"] -= 1
                t = time.perf_counter()
                try:
                    view(client)
                    views.append(time.perf_counter() - t)
                except (DashError, AssertionError, OSError) as exc:
                    errors.append(str(exc))

        def training(seed, outcome, kill=False):
            request = SCENARIO.request({"target": "Tesla-P100", "preset": "rastsim", "seed": str(seed)})
            params, key = request["params"], request["key"]
            client = DashClient(base, on_request=rec, account=account)
            client.open(f"/scenario{to_query(params)}")
            t = time.perf_counter()
            ticks = {"n": 0, "failed": False}

            def watchdog():  # what the page's watchdog does while it waits: heartbeat + failure check
                ticks["n"] += 1
                got = client.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): ticks["n"],
                                                           ("scenario-pending", "data"): request})
                if got.get("scenario-failed") and not ticks["failed"]:
                    ticks["failed"], ticks["failed_at"] = True, time.time()

            if kill:
                target = _kill_job_worker if backend == "local" else _kill_celery_worker
                args = (key, jobs, outcome) if backend == "local" else (key, jobs, outcome, workers)
                threading.Thread(target=contextvars.copy_context().run, args=(target, *args), daemon=True).start()
            try:
                got = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): request},
                                            tick=watchdog)
                outcome["delivered"] = got.get("scenario-job-result", {}).get("data") == {"key": key} \
                    and jobs.has_result(key)
            except (DashError, TimeoutError, OSError) as exc:
                outcome["error"] = str(exc)
            t_end = time.time() + 20  # a page's watchdog keeps ticking after the job's polling stopped
            while not outcome.get("delivered") and not ticks["failed"] and time.time() < t_end:
                watchdog()
                time.sleep(1.5)
            outcome["failure_shown"] = ticks["failed"]
            if ticks["failed"] and "killed_at" in outcome:
                outcome["death_to_failed_s"] = round(ticks["failed_at"] - outcome["killed_at"], 1)
            outcome["polls_reset"] = client.reset_polls
            outcome["seconds"] = round(time.perf_counter() - t, 2)

        def phase(view, first_seed: int) -> dict:
            """``users`` users opening the view with ``view`` while ``trainings`` trainings run; the figures."""
            nonlocal stop_at
            signed, signins = _sign_in_together(base, account, users, rec)  # before the measured seconds
            views.clear()
            errors.clear()
            rec.clear()
            stop_at = time.time() + seconds
            budget["left"] = max_views
            train_out: list[dict] = []

            def keep_training(seed):  # one training after another until the users stop: load all along
                while time.time() < stop_at:
                    outcome: dict = {}
                    training(seed, outcome)
                    train_out.append(outcome)
                    seed += 1000

            # in this process's project (testkit/signin.py work_in_project): a thread starts with an empty
            # context
            threads = [threading.Thread(target=contextvars.copy_context().run, args=(keep_training, first_seed + i))
                       for i in range(trainings)]
            threads += [threading.Thread(target=user, args=(view, c)) for c in signed]
            t_load = time.perf_counter()
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            load_seconds = time.perf_counter() - t_load
            statuses = list(rec.statuses)
            return {
                "signins": signins, "views": len(views), "load_seconds": round(load_seconds, 1),
                "views_per_second": round(len(views) / load_seconds, 2), "view_errors": len(errors),
                "view_error_examples": errors[:3],
                "requests": len(statuses), "requests_per_view": round(len(statuses) / max(1, len(views)), 1),
                "http_5xx": sum(s >= 500 for s in statuses),
                "http_failed_connections": sum(s == 0 for s in statuses),
                "cached_view_p50_s": round(_pct(views, 50), 3) if views else None,
                "cached_view_p95_s": round(_pct(views, 95), 3) if views else None,
                "cached_view_p95_over_budget": round(_pct(views, 95) / VIEW_BUDGET_S, 2) if views else None,
                "request_p95_s": {k: round(_pct(v, 95), 3) for k, v in rec.requests.items()},
                "request_median_s": {k: round(statistics.median(v), 3) for k, v in rec.requests.items()},
                "trainings": train_out,
            }

        chosen = {"script": open_view, "browser": open_view_as_browser}
        out.update(phase(chosen[mixes[0]], 101))
        out["mix"] = mixes[0]
        for i, mix in enumerate(mixes[1:], start=1):
            out[f"{mix}_mix"] = phase(chosen[mix], 101 + 10 * i)
        if kill_worker:
            kill = {}
            training(200, kill, kill=True)
            time.sleep(2.0)
            kill["zombies_left"] = _zombies_under(server.pid)
            kill["server_processes"] = _tree(server.pid)
            out["worker_killed_mid_job"] = kill
        if saves:
            out["concurrent_save"] = _concurrent_save(base, query, cached_key, saves, rec, project_var, account)
        out["http_5xx"] = sum(s >= 500 for s in rec.every_status)  # every request of the run
        if workers:
            out.update(_deliveries([log for _, log in workers]))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        err = server_log(server)
        out["server_tracebacks"] = err.count("Traceback")
        for proc, _ in workers:
            _stop_group(proc)
        if redis_proc:
            _stop_group(redis_proc)
    return out


def _kill_celery_worker(key, jobs, outcome, workers):
    """Machine loss: SIGKILL the whole Celery worker (main process and pool) that runs the job of ``key``."""
    import psutil

    deadline = time.time() + 120
    while time.time() < deadline:
        st = jobs.status(key) or {}
        if st.get("state") == "running":
            time.sleep(1.0)  # well into the training
            for proc, _log in workers:
                pool = {c.pid for c in psutil.Process(proc.pid).children(recursive=True)}
                if st["pid"] in pool:
                    outcome["killed_worker_pid"] = proc.pid
                    os.killpg(proc.pid, signal.SIGKILL)
                    outcome["killed_at"] = time.time()
                    return
            outcome["kill_missed"] = True
            return
        time.sleep(0.1)
    outcome["kill_missed"] = True


def _kill_job_worker(key, jobs, outcome):
    """SIGKILL the gunicorn worker whose forked child runs the job of ``key``."""
    import psutil

    deadline = time.time() + 120
    while time.time() < deadline:
        st = jobs.status(key) or {}
        if st.get("state") == "running" and jobs.pid_alive(st["pid"]):
            time.sleep(1.0)  # well into the training
            try:
                worker = psutil.Process(st["pid"]).parent()
                outcome["killed_worker_pid"] = worker.pid
                worker.kill()
                outcome["job_survived_worker"] = jobs.pid_alive(st["pid"])
            except psutil.NoSuchProcess:
                outcome["kill_missed"] = True
            return
        time.sleep(0.1)
    outcome["kill_missed"] = True


def _sign_in_together(base, account, n, rec, tries=8):
    """``n`` browsers without a device cookie sign in at the same moment, as people arriving together do; a
    browser answered 503 (the server busy checking the others) tries again after its Retry-After, as the
    page tells its person. Returns the signed-in DashClients and what happened: how many signed in, at the
    first try, the 503 answers, and the p95 seconds to be signed in."""
    import requests

    from testkit.dash_client import DashClient

    clients, busy, first, seconds = [], [], [], []
    lock = threading.Lock()
    gate = threading.Barrier(n)

    def one():
        http = requests.Session()
        gate.wait()
        t, busy_here = time.perf_counter(), 0
        for _ in range(tries):
            r = http.post(base + "/login", data={"name": account.name, "password": account.password, "next": "/"},
                          allow_redirects=False, timeout=120)
            if r.status_code != 503:
                break
            busy_here += 1
            with lock:
                busy.append(1)
            time.sleep(float(r.headers.get("Retry-After", 5)))
        if r.status_code != 303:
            return
        client = DashClient(base, on_request=rec, account=None)
        client.http = http
        with lock:
            clients.append(client)
            first.append(busy_here == 0)
            seconds.append(time.perf_counter() - t)

    pool = [threading.Thread(target=one) for _ in range(n)]
    for t in pool:
        t.start()
    for t in pool:
        t.join(tries * 130)
    return clients, {"users": n, "signed_in": len(clients), "at_first_try": sum(first), "busy_503": len(busy),
                     "seconds_p95": round(_pct(seconds, 95), 2) if seconds else None}


def _concurrent_save(base, query, key, n, rec, var: Path, account=None) -> dict:
    from testkit.dash_client import DashClient, DashError

    clients = [DashClient(base, on_request=rec, account=account) for _ in range(n)]
    for c in clients:
        c.open(f"/scenario{query}")
    gate = threading.Barrier(n)
    said, failures = [], []

    def save(c):
        gate.wait()
        try:
            got = c.call("scenario-save-status.children", {
                ("scenario-save", "n_clicks"): 1, ("scenario-ready", "data"): {"key": key},
                ("scenario-save-name", "value"): "load test"})
            said.append(json.dumps(got))
        except DashError as exc:
            failures.append(str(exc))

    threads = [threading.Thread(target=save, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ids = {m for s in said for m in re.findall(r"sc-[0-9a-f]{16}", s)}
    return {"savers": n, "answers": len(said), "failures": failures, "ids": sorted(ids),
            "saved_as_new": sum("Saved as" in s for s in said),
            "already_saved": sum("Already saved" in s for s in said),
            "files": len(list((var / "scenarios").glob("sc-*.json"))),
            "database_locked": sum("locked" in s.lower() for s in said)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", type=int, default=15)
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--trainings", type=int, default=2)
    ap.add_argument("--saves", type=int, default=8)
    ap.add_argument("--no-kill", action="store_true")
    ap.add_argument("--threads", type=int, default=None,
                    help="gunicorn threads per worker (1: sync workers; default: gunicorn.conf.py's)")
    ap.add_argument("--backend", choices=["local", "redis", "both"], default="local",
                    help="job backend: one machine, Celery workers with Redis, or both in one run")
    ap.add_argument("--mix", choices=["script", "browser", "both"], default="script",
                    help="what a view sends: the scripted callbacks, what Chromium sent for the page "
                         "(benchmarks/browser_view.py), or both, one after the other on the same server")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    mixes = ("script", "browser") if a.mix == "both" else (a.mix,)
    backends = ["local", "redis"] if a.backend == "both" else [a.backend]
    res = {b: run(a.users, a.seconds, a.trainings, a.saves, not a.no_kill, threads=a.threads, backend=b,
                  mixes=mixes)
           for b in backends}
    if len(backends) == 2:
        p95 = {b: res[b]["cached_view_p95_s"] for b in backends}
        res["cached_view_p95_redis_over_local"] = round(p95["redis"] / p95["local"], 2) if all(p95.values()) else None
    res = res if len(backends) > 1 else res[backends[0]]
    print(json.dumps(res, indent=2) if a.json else res)


if __name__ == "__main__":
    main()
