"""Slow and idle clients against the served app (QUALITY.md, "Load"): a member's view while many connections
trickle their requests, with the buffering front (``./run.sh``: deploy/front.py, nginx in front of gunicorn)
and, for comparison, gunicorn serving directly.

For each server, started here on loopback with a fresh state directory (2 workers x 16 threads, as
``./run.sh``): a signed-in member opens a view (``/logca``: the page, layout, callback graph and router, as a
browser's first load does) ``--views`` times, one after another, (1) with nothing else going on, (2) while
``--slow`` connections from one address trickle their request heads a byte a second, (3) while ``--slow``
connections spread over ``--addresses`` loopback addresses (127.0.1.x) do the same. A view that takes more
than ``--view-timeout`` seconds counts as failed. Prints JSON: per phase the views' p50 and p95 (seconds), the
p95 over the quiet p95 (the ratio), failures, and how many slow connections the server had ended by the phase's
end. Bounded in count and time; loopback only.

    .venv/bin/python benchmarks/slow_clients.py --slow 1000 --addresses 100 --json
    .venv/bin/python benchmarks/slow_clients.py --slow 40 --servers direct --json   # gunicorn alone
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from testkit import signin  # noqa: E402
from testkit.dash_client import DashClient  # noqa: E402
from testkit.servers import free_port, front_server, wait_up  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def direct_server(var: Path, log: Path, **env):
    """gunicorn alone on a free loopback port (what ``PERFCAST_FRONT=0 ./run.sh`` serves)."""
    port = free_port()
    full = {**os.environ, "PERFCAST_VAR_DIR": str(var), "PORT": str(port), **env}
    with open(log, "w") as fh:
        proc = subprocess.Popen([str(ROOT / ".venv/bin/gunicorn"), "app:server", "-c", "gunicorn.conf.py"],
                                cwd=ROOT, env=full, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_up(f"http://127.0.0.1:{port}", 180)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)


class Trickle:
    """``n`` connections from ``sources`` that start a GET and send one more header byte every second."""

    def __init__(self, port: int, n: int, sources: list[str]):
        self.port, self.conns, self.stop = port, [], threading.Event()
        for i in range(n):
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5,
                                             source_address=(sources[i % len(sources)], 0))
                s.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                s.setblocking(False)
                self.conns.append(s)
            except OSError:
                break
        self.thread = threading.Thread(target=self._drip, daemon=True)
        self.thread.start()

    def _drip(self):
        while not self.stop.wait(1.0):
            for s in self.conns:
                try:
                    s.send(b"a")
                except OSError:
                    pass

    def ended(self) -> int:
        """How many the server has ended (answered or closed)."""
        n = 0
        for s in self.conns:
            try:
                n += s.recv(1, socket.MSG_PEEK) is not None
            except BlockingIOError:
                pass
            except OSError:
                n += 1
        return n

    def close(self) -> int:
        ended = self.ended()
        self.stop.set()
        for s in self.conns:
            s.close()
        return ended


def _views(base: str, account, n: int, timeout: float) -> tuple[list[float], int]:
    try:
        client = DashClient(base, timeout=timeout, account=account)  # signs in: a request of its own
    except Exception:  # noqa: BLE001 - the sign-in itself timed out: every view of this phase failed
        return [], n
    times, failed = [], 0
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            client.open("/logca")
            times.append(time.perf_counter() - t0)
        except Exception:  # noqa: BLE001 - a timeout or a refused connection is a failed view
            failed += 1
    return times, failed


def _stats(times: list[float]) -> dict:
    if not times:
        return {"p50": None, "p95": None}
    q = statistics.quantiles(times, n=20) if len(times) > 1 else times * 19
    return {"p50": round(statistics.median(times), 3), "p95": round(q[18], 3)}


def measure(kind: str, args) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix=f"perfcast-slow-{kind}-"))
    env = {"PERFCAST_SECRET_KEY": "k" * 64, "PERFCAST_DATABASE_URL": f"sqlite:///{tmp / 'perfcast.db'}"}
    account = signin.create_account(env)
    start = front_server if kind == "front" else direct_server
    out = {}
    with start(tmp / "var", tmp / f"{kind}.log", **env) as base:
        port = int(base.rsplit(":", 1)[1])
        _views(base, account, 3, args.view_timeout)  # warm: the page's first layout
        quiet, failed = _views(base, account, args.views, args.view_timeout)
        out["quiet"] = {**_stats(quiet), "failed": failed}
        for phase, sources in (("one address", ["127.0.0.2"]),
                               (f"{args.addresses} addresses",
                                [f"127.0.1.{i + 1}" for i in range(args.addresses)])):
            slow = Trickle(port, args.slow, sources)
            time.sleep(2)
            times, failed = _views(base, account, args.views, args.view_timeout)
            ended = slow.close()
            stats = _stats(times)
            ratio = (round(stats["p95"] / out["quiet"]["p95"], 2) if stats["p95"] and out["quiet"]["p95"]
                     else None)
            out[phase] = {**stats, "failed": failed, "p95_over_quiet": ratio, "slow_opened": len(slow.conns),
                          "slow_ended_by_server": ended}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--slow", type=int, default=1000)
    p.add_argument("--addresses", type=int, default=100)
    p.add_argument("--views", type=int, default=20)
    p.add_argument("--view-timeout", type=float, default=15.0)
    p.add_argument("--servers", default="front,direct")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    result = {"slow": args.slow, "addresses": args.addresses, "views": args.views}
    for kind in args.servers.split(","):
        result[kind] = measure(kind, args)
    print(json.dumps(result, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
