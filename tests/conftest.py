import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import signed_in  # noqa: E402

signed_in.environment()  # before anything imports dashboard.settings or the app


import pytest  # noqa: E402

# ---------------------------------------------------------------- the test tiers (pytest.ini's markers)

# A test that uses one of these fixtures, or runs with one of these parameters (a fixture parametrized over
# the job backends or the databases), needs a service started by the test session: Redis, Celery workers,
# PostgreSQL or the OpenID Connect provider (./test.sh installs them).
SERVICE_FIXTURES = {"redis_server", "redis_url", "postgres_server", "postgres_url", "sso"}
SERVICE_PARAMS = {"redis", "postgresql"}
# The slowest tests outside the browser tier, by ``./test.sh --durations=30`` (a whole ensemble, a neural
# network trained on every program, a process that has to fill a disk): node ids relative to tests/, a
# class or module prefix marks every test under it.
SLOW = (
    "modeling/test_estimator_checks.py",
)


def pytest_collection_modifyitems(config, items):
    """Mark each test with its tier: ``browser`` (tests/integration: headless Chromium, live servers),
    ``services`` (Redis, Celery, PostgreSQL, the OIDC provider), ``slow`` (:data:`SLOW`). The fast tier,
    ``./test.sh --fast``, is every test with none of the three."""
    tests_dir = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.fspath)).resolve()
        rel = path.relative_to(tests_dir).as_posix() if path.is_relative_to(tests_dir) else path.name
        if rel.startswith("integration/"):
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if SERVICE_FIXTURES & set(item.fixturenames) or SERVICE_PARAMS & {
                v for v in params.values() if isinstance(v, str)} or rel.startswith(("oidc/", "integration/scaleout/")):
            item.add_marker(pytest.mark.services)
        node = rel + item.nodeid[item.nodeid.find("::"):] if "::" in item.nodeid else rel
        if node.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


# ---------------------------------------------------------------- a real Redis for the redis job backend


@pytest.fixture(scope="session")
def redis_server():
    """Debian's redis-server (installed by ./test.sh) on a free loopback port, no persistence (tests/servers.py,
    which benchmarks/load.py uses too); stopped by its process group at the end of the session. Yields its URL."""
    import shutil

    from tests.servers import start_redis, stop_group

    assert shutil.which("redis-server"), "redis-server is not installed (./test.sh installs Debian's redis-server)"
    proc, url = start_redis()
    try:
        yield url
    finally:
        stop_group(proc)


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


@pytest.fixture(autouse=True)
def in_default_project(signed_in_user):
    """Code a test calls outside a request (the stores, the job runner) works in the test user's project
    ``default``, as owner (dashboard/access/projects.py ``scope``); requests use their own session's project."""
    from dashboard.access import projects

    with projects.scope(signed_in.project_id()) as current:
        yield current


# ---------------------------------------------------------------- a throwaway PostgreSQL cluster


@pytest.fixture(scope="session")
def postgres_server():
    """Debian's PostgreSQL (installed by ./test.sh): a throwaway cluster on a free loopback port for this test
    session, run as the postgres user (initdb refuses root), removed at the end. Yields a server URL
    without a database name (``postgresql+psycopg://postgres@127.0.0.1:PORT``)."""
    import glob
    import shutil
    import subprocess
    import tempfile

    from tests.servers import free_port

    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert bins, "PostgreSQL is not installed (./test.sh installs Debian's postgresql)"
    pgbin = Path(bins[-1]).parent
    base = tempfile.mkdtemp(prefix="perfcast-pg-", dir="/tmp")
    shutil.chown(base, "postgres", "postgres")
    port = free_port()

    def as_postgres(*cmd):
        subprocess.run(["runuser", "-u", "postgres", "--", *map(str, cmd)], check=True, capture_output=True)

    as_postgres(pgbin / "initdb", "-D", f"{base}/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--no-locale", "--no-sync")
    as_postgres(pgbin / "pg_ctl", "-D", f"{base}/data", "-l", f"{base}/pg.log", "-w", "-o",
                f"-p {port} -k {base} -h 127.0.0.1 -c fsync=off", "start")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}", lambda name: as_postgres(
            pgbin / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", name)
    finally:
        subprocess.run(["runuser", "-u", "postgres", "--", str(pgbin / "pg_ctl"), "-D", f"{base}/data", "-m",
                        "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture()
def postgres_url(postgres_server, request):
    """A new, empty database in the session's PostgreSQL cluster for this test."""
    import re

    server, createdb = postgres_server
    name = "t_" + re.sub(r"\W", "_", request.node.name.lower())[:50] + "_" + secrets_hex()
    createdb(name)
    return f"{server}/{name}"


def secrets_hex() -> str:
    import secrets

    return secrets.token_hex(4)
