import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import signed_in  # noqa: E402

signed_in.environment()  # before anything imports dashboard.settings or the app


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


# ---------------------------------------------------------------- the signed-in user (tests/signed_in.py)


@pytest.fixture(scope="session", autouse=True)
def signed_in_user():
    """The test session's account and session in its database, and benchmarks' DashClient signing in with it."""
    from benchmarks import signin

    signed_in.seed()
    signin.DEFAULT_ACCOUNT = signin.Account(signed_in.NAME, signed_in.PASSWORD)
    return signed_in
