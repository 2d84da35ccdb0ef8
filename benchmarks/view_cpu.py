"""Server CPU of one cached view, per request type, measured deterministically (not wall-clock under load).

The app runs in this process and a Flask test client, signed in through ``/login`` as a person is, replays
exactly what ``benchmarks/load.py`` sends for one view of the cached default ``/scenario`` link: the page,
``/_dash-layout``, the page router's callback, then the summary, per-workload chart, inlier curves and step
table callbacks (and, once per client, ``/_dash-dependencies``), with the headers ``requests`` sends
(``Accept-Encoding: gzip, deflate, br``). Each request's CPU is ``time.thread_time()`` of the thread that
serves it, from the WSGI call until its body is read (the server's work; the test client's decoding of the
answer is not counted). A job's status poll (``job-poll``: a background callback's poll on a finished-looking
job) is measured the same way. The views are drawn a few times first (each worker's memo is then warm, as
under load).

``--baseline REV`` measures the code of ``REV`` too: this same script in two processes, one on the current code
and one on a temporary git worktree of ``REV``, both set up first and then taking turns, ``--rounds`` blocks of
``--views`` views each (the callback graph fetched once per ten views), so that both meet the same machine
load; it prints the medians per request type over all blocks, the ratio current / baseline of the CPU per view
and per request type, and the ratio of each round. The machine is shared: only a ratio in one run means much.
``--profile FILE`` writes a cProfile of the measured views (``python -m pstats FILE``).

    .venv/bin/python benchmarks/view_cpu.py --views 200
    .venv/bin/python benchmarks/view_cpu.py --views 20 --baseline main --rounds 10 --json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(os.environ.get("PERFCAST_VIEW_CPU_TREE") or Path(__file__).resolve().parent.parent)
HEADERS = {"Accept-Encoding": "gzip, deflate, br", "Accept": "*/*", "User-Agent": "python-requests/2.34.2"}
KINDS = ("page", "layout", "_dash-dependencies", "router", "summary", "workload-graph", "ir-graph", "steps-grid",
         "job-poll")
#: what a view sends, in order (load.py's open_view; the dependencies once per client)
VIEW = ("page", "layout", "router", "summary", "workload-graph", "ir-graph", "steps-grid")


def _decoded(data: bytes, encoding: str | None) -> bytes:
    if encoding == "gzip":
        return gzip.decompress(data)
    if encoding == "br":
        import brotli

        return brotli.decompress(data)
    if encoding == "deflate":
        import zlib

        return zlib.decompress(data)
    return data


class Replay:
    """One signed-in user's requests through the Flask test client, each one's thread CPU recorded."""

    def __init__(self, server, account):
        self.client = server.test_client()
        self.cpu: dict[str, list[float]] = {}
        self.on = False
        r = self.client.post("/login", data={"name": account.name, "password": account.password, "next": "/"},
                             headers=HEADERS)
        if r.status_code != 303:
            raise RuntimeError(f"sign-in refused: HTTP {r.status_code}")
        self.end_id = None
        self.deps: dict = {}

    def send(self, kind: str, method: str, url: str, **kw) -> bytes:
        t = time.thread_time()
        r = self.client.open(url, method=method, headers=HEADERS, **kw)
        data = r.get_data()  # a streamed body is produced here: the server's work too
        cpu = time.thread_time() - t
        if self.on:
            self.cpu.setdefault(kind, []).append(cpu)
        if r.status_code >= 400:
            raise RuntimeError(f"HTTP {r.status_code} for {method} {url[:80]}")
        return _decoded(data, r.headers.get("Content-Encoding")) if r.status_code != 204 else b""

    def call(self, kind: str, output: str, values: dict, **kw) -> dict:
        from testkit.dash_client import DashClient

        body = DashClient._body(self, DashClient._dep(self, output), values)
        got = self.send(kind, "POST", f"/_dash-update-component?endId={self.end_id}", json=body, **kw)
        return json.loads(got) if got else {}

    def open(self, path: str) -> dict:
        from testkit.dash_client import CONFIG

        page = self.send("page", "GET", path).decode()
        self.end_id = json.loads(CONFIG.search(page).group(1)).get("end_id")
        self.send("layout", "GET", "/_dash-layout")
        if not self.deps:
            self.deps = {d["output"]: d for d in json.loads(self.send("_dash-dependencies", "GET",
                                                                      "/_dash-dependencies"))}
        pathname, _, search = path.partition("?")
        out = self.call("router", "_pages_content.children", {("_pages_location", "pathname"): pathname,
                                                              ("_pages_location", "search"): f"?{search}"})
        return out["response"]["_pages_content"]["children"]


class Views:
    """The app of :data:`ROOT` in this process, a signed-in user and the cached view it opens."""

    def __init__(self, warm: int = 5):
        os.environ.setdefault("PERFCAST_VAR_DIR", tempfile.mkdtemp(prefix="perfcast-view-cpu-"))
        os.environ.pop("PERFCAST_REDIS_URL", None)
        sys.path.insert(0, str(ROOT))
        os.chdir(ROOT)
        from testkit import signin

        env = dict(os.environ)
        account = signin.create_account(env)
        signin.work_in_project(env)
        import importlib

        server = importlib.import_module("app").app.server
        from dashboard.crossgen.kinds import SCENARIO, cached
        from dashboard.ui.url_state import to_query

        params = SCENARIO.request({})["params"]
        self.key, _ = cached(SCENARIO, params)
        self.path = f"/scenario{to_query(params)}"
        self.user = Replay(server, account)
        self.fresh = Replay(server, account)  # a new page each time: it fetches the callback graph
        for _ in range(warm):
            self.view()
        self.fresh.open(self.path)

    def view(self) -> None:
        user, ready = self.user, {("scenario-ready", "data"): {"key": self.key}}
        layout = user.open(self.path)
        if self.key not in json.dumps(layout):
            raise AssertionError("the cached link did not open ready")
        user.call("summary", "scenario-summary.children", ready)
        user.call("workload-graph", "scenario-workload-graph.figure",
                  {**ready, ("scenario-model", "value"): "RandomForest"})
        user.call("ir-graph", "scenario-ir-graph.figure",
                  {**ready, ("scenario-ir-models", "value"): ["RandomForest", "OLS/Forward/BIC"]})
        user.call("steps-grid", "scenario-steps-grid.rowData",
                  {**ready, ("scenario-steps", "value"): "OLS/Forward/BIC"})

    def block(self, views: int, graphs: int = 0, polls: int = 0) -> dict[str, list[float]]:
        """CPU seconds of each request of ``views`` views, ``graphs`` callback graphs and ``polls`` job polls."""
        self.user.cpu, self.fresh.cpu = {}, {}
        self.user.on = self.fresh.on = True
        for _ in range(views):
            self.view()
        for _ in range(graphs):
            self.fresh.deps = {}
            self.fresh.send("_dash-dependencies", "GET", "/_dash-dependencies")
        if polls:
            _polls(self.user, polls)
        self.user.on = self.fresh.on = False
        return {k: v for c in (self.user.cpu, self.fresh.cpu) for k, v in c.items()}


def _figures(cpu: dict[str, list[float]]) -> dict:
    per = {k: statistics.median(v) for k, v in cpu.items()}
    return {"cpu_ms_per_request": {k: round(per[k] * 1e3, 3) for k in KINDS if k in per},
            "cpu_ms_per_view": round(sum(per[k] for k in VIEW) * 1e3, 3),
            # a page load in a browser fetches the callback graph too (load.py --mix browser)
            "cpu_ms_per_view_with_graph": round(sum(per[k] for k in (*VIEW, "_dash-dependencies")) * 1e3, 3)}


def measure(views: int = 200, polls: int = 50, profile: str | None = None) -> dict:
    """CPU per request type (median) and per view, in this process, on the code at :data:`ROOT`."""
    views_ = Views()
    prof = None
    if profile:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    cpu = views_.block(views, graphs=max(1, views // 10), polls=polls)
    if prof:
        prof.disable()
        prof.dump_stats(profile)
    return {"root": str(ROOT), "views": views, **_figures(cpu)}


def serve() -> None:
    """One side of :func:`compare`: set up, say ``ready``, then answer each ``views N GRAPHS POLLS`` line on
    standard input with the CPU seconds of each request of that block (JSON, one line)."""
    views_ = Views()
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] != "views":
            break
        print(json.dumps(views_.block(*map(int, words[1:]))), flush=True)


_SEEDS: list[int] = []


def _polls(user: Replay, n: int) -> None:
    """``n`` polls of a scenario training's background callback: the job-start is sent once (its job then runs,
    a training of this process's own seed), each poll reads its status as the page's poll does, then Cancel."""
    from dashboard.crossgen.kinds import SCENARIO

    _SEEDS.append(len(_SEEDS) + 1)  # a training of its own each time, not one another side or block started
    request = SCENARIO.request({"target": "Tesla-P100", "preset": "rastsim",
                                "seed": str((os.getpid() * 10 + _SEEDS[-1]) % 100_000)})
    from testkit.dash_client import DashClient

    body = DashClient._body(user, DashClient._dep(user, "scenario-job-result.data"),
                            {("scenario-pending", "data"): request})
    url = f"/_dash-update-component?endId={user.end_id}"
    first = json.loads(user.send("job-start", "POST", url, json=body))
    handles = {"cacheKey": first["cacheKey"], "job": first["job"]}
    from urllib.parse import urlencode

    for _ in range(n):
        user.send("job-poll", "POST", f"{url}&{urlencode(handles)}", json=body)
    user.send("job-cancel", "POST", f"{url}&{urlencode({**handles, 'cancelJob': first['job']})}", json=body)


def _worktree(rev: str) -> Path:
    where = Path(tempfile.mkdtemp(prefix="perfcast-view-cpu-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(where), rev], cwd=Path(__file__).resolve().parent.parent,
                   check=True, capture_output=True)
    venv = Path(__file__).resolve().parent.parent / ".venv"
    if venv.exists() and not (where / ".venv").exists():
        (where / ".venv").symlink_to(venv.resolve())
    return where


class _Side:
    """A :func:`serve` process on the code of ``tree`` (None: this file's tree)."""

    def __init__(self, tree: Path | None, var: str):
        env = {k: v for k, v in os.environ.items() if k != "PERFCAST_DATABASE_URL"}
        env["PERFCAST_VAR_DIR"] = var  # shared: the cached result is computed by the first side only
        if tree is not None:
            env["PERFCAST_VIEW_CPU_TREE"] = str(tree)
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.cpu: dict[str, list[float]] = {}

    def _line(self) -> str:
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            raise RuntimeError(self.log.read()[-3000:])
        return line

    def ready(self) -> None:
        while self._line().strip() != "ready":
            pass

    def block(self, *sizes: int) -> dict[str, list[float]]:
        self.proc.stdin.write("views " + " ".join(map(str, sizes)) + "\n")
        self.proc.stdin.flush()
        got = json.loads(self._line())
        for k, v in got.items():
            self.cpu.setdefault(k, []).extend(v)
        return got

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def compare(rev: str, views: int, rounds: int) -> dict:
    """The current code and ``rev``'s, each in a process of its own, both set up and then alternating in
    ``rounds`` blocks of ``views`` views each (which goes first alternates too): both sides meet the same
    machine load. Medians per request type over every block, and their ratios."""
    tree = _worktree(rev)
    var = tempfile.mkdtemp(prefix="perfcast-view-cpu-")
    sides: dict[str, _Side] = {}
    try:
        sides["current"] = _Side(None, var)
        sides["current"].ready()  # computes the cached result; the baseline then finds it
        sides["baseline"] = _Side(tree, var)
        sides["baseline"].ready()
        per_round = []
        for i in range(rounds):
            order = ("baseline", "current") if i % 2 == 0 else ("current", "baseline")
            got = {side: _figures(sides[side].block(views, max(1, views // 10), 0)) for side in order}
            per_round.append(round(got["current"]["cpu_ms_per_view"] / got["baseline"]["cpu_ms_per_view"], 3))
        for side in ("baseline", "current", "current", "baseline"):  # job polls: each side first once
            sides[side].block(0, 0, 20)
    finally:
        for side in sides.values():
            side.close()
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=Path(__file__).resolve().parent.parent,
                       capture_output=True)
    out: dict = {"baseline": rev, "views_per_round": views, "rounds": rounds}
    for side in ("baseline", "current"):
        out[side] = _figures(sides[side].cpu)
    cur, base = out["current"], out["baseline"]
    out["cpu_per_view_current_over_baseline"] = round(cur["cpu_ms_per_view"] / base["cpu_ms_per_view"], 3)
    out["cpu_per_view_with_graph_current_over_baseline"] = round(
        cur["cpu_ms_per_view_with_graph"] / base["cpu_ms_per_view_with_graph"], 3)
    out["cpu_per_view_ratio_per_round"] = per_round
    out["cpu_per_request_current_over_baseline"] = {
        k: round(cur["cpu_ms_per_request"][k] / base["cpu_ms_per_request"][k], 3)
        for k in cur["cpu_ms_per_request"] if base["cpu_ms_per_request"].get(k)}
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--views", type=int, default=200)
    ap.add_argument("--baseline", metavar="REV", help="also measure the code of this git revision; print ratios")
    ap.add_argument("--rounds", type=int, default=10, help="with --baseline: blocks of --views views of each "
                                                                "side, alternating")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of the measured views to FILE")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)  # one side of compare
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.serve:
        serve()
        return
    if a.baseline:
        got = compare(a.baseline, a.views, a.rounds)
    else:
        got = measure(a.views, profile=a.profile)
    print(json.dumps(got) if a.json else json.dumps(got, indent=2))


if __name__ == "__main__":
    main()
