import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---------------------------------------------------------------- a real Redis for the redis job backend

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """Debian's redis-server (installed by ./test.sh) on a free loopback port, no persistence; stopped by
    its pid at the end of the session. Yields its URL."""
    import shutil
    import socket
    import subprocess
    import time

    exe = shutil.which("redis-server")
    assert exe, "redis-server is not installed (./test.sh installs Debian's redis-server)"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(d), "--logfile", str(d / "redis.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import redis

    url = f"redis://127.0.0.1:{port}/0"
    deadline = time.time() + 20
    while True:
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            if time.time() > deadline or proc.poll() is not None:
                raise
            time.sleep(0.05)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture()
def redis_url(redis_server):
    """The session's Redis, emptied for this test."""
    import redis

    redis.Redis.from_url(redis_server).flushall()
    return redis_server
