import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


# ---------------------------------------------------------------- a real Redis for the redis job backend

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def redis_server():
    """Debian's redis-server (installed by ./test.sh) on a free loopback port, no persistence, started as
    benchmarks/load.py starts it; stopped by its process group at the end of the session. Yields its URL."""
    import shutil

    from benchmarks.load import _start_redis, _stop_group

    assert shutil.which("redis-server"), "redis-server is not installed (./test.sh installs Debian's redis-server)"
    proc, url = _start_redis()
    try:
        yield url
    finally:
        _stop_group(proc)


@pytest.fixture()
def redis_url(redis_server):
    """The session's Redis, emptied for this test."""
    import redis

    redis.Redis.from_url(redis_server).flushall()
    return redis_server
