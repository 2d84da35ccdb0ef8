"""Servers the tests and the benchmarks start on this machine's loopback:
a free port, waiting for a server to answer, a throwaway Redis, a Celery worker, and stopping a process
group. Every wait is on a condition, bounded in time."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A TCP port free on 127.0.0.1 at the moment of the call, below the kernel's ephemeral range.

    Outside that range on purpose: a client connecting to a port where nobody (or nobody yet, or nobody any
    more) listens can be given that very port as its own source port and connect to itself (TCP
    simultaneous open); a Redis client then reads its own PING back as an answer. The outage tests point
    clients at ports where nobody listens, so the ports they use must be ones no connection is given."""
    import random

    low, _high = _ephemeral_range()
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(10000, max(10001, low))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


def wait_up(base: str, limit: float = 60.0) -> None:
    """Wait until ``base + "/"`` answers HTTP 200 (at most ``limit`` seconds, then RuntimeError)."""
    import requests

    deadline = time.time() + limit
    while time.time() < deadline:
        try:
            if requests.get(base + "/", timeout=2).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer on loopback")


def start_redis() -> tuple[subprocess.Popen, str]:
    """Debian's redis-server on a free loopback port, no persistence, in a process group of its own; returns
    the process and its URL once it answers PING."""
    import redis

    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.time() + 20
    while True:
        try:
            redis.Redis.from_url(url).ping()
            return proc, url
        except redis.ConnectionError:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def celery_worker(env: dict, name: str, log: Path) -> subprocess.Popen:
    """A Celery worker of the app (as ./worker.sh starts one: prefork, 2 processes), logging to ``log``;
    returns once it logged that it is ready."""
    proc = subprocess.Popen([sys.executable, "-m", "celery", "-A", "app:celery_app", "worker", "--pool", "prefork",
                             "--concurrency", "2", "--hostname", f"{name}@%h", "--loglevel", "INFO"],
                            cwd=ROOT, env=env, stdout=open(log, "ab"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.time() + 60
    while b" ready." not in log.read_bytes():
        if proc.poll() is not None or time.time() > deadline:
            raise RuntimeError(f"celery worker {name} did not start: {log.read_text()[-1500:]}")
        time.sleep(0.1)
    return proc


def stop_group(proc: subprocess.Popen) -> None:
    """Stop ``proc``'s process group: SIGTERM, then SIGKILL if it has not ended within 15 s."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(15)
            return
        except subprocess.TimeoutExpired:
            continue


@contextlib.contextmanager
def front_server(var: Path, log: Path, **env):
    """``python deploy/front.py`` (what ``./run.sh`` starts: nginx in front of gunicorn) on a free loopback
    port, state in ``var``, output in ``log``; extra ``env`` for both. Yields the base URL; stops both and
    anything left in their process group."""
    port = free_port()
    full_env = {**os.environ, "PERFCAST_VAR_DIR": str(var), "PORT": str(port), **env}
    with open(log, "w") as fh:
        proc = subprocess.Popen([sys.executable, str(ROOT / "deploy" / "front.py")], cwd=ROOT, env=full_env,
                                stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base, limit=180)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
