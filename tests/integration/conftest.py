"""Fixtures of the browser tests (their helpers, pc_browser, are importable from every subfolder)."""

import contextlib
import importlib
import sys
from pathlib import Path

import pytest
from cachetools import LRUCache

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(autouse=True)
def _a_free_port_for_dash_duo():
    """dash_duo serves each test's app on 58050, 58051, … counted per pytest process, so two suites on one
    machine (a developer's run beside CI's) took each other's ports and their browsers talked to the wrong
    server. Each test starts from a port the system says is free."""
    from dash.testing.application_runners import BaseDashRunner

    from testkit.servers import free_port

    BaseDashRunner._next_port = free_port()


@pytest.fixture(autouse=True)
def _no_job_outlives_its_test():
    """A browser test that leaves the page mid-job leaves the job running until it is abandoned (minutes): it
    would hold the test user's job slots (so a later test's Run is refused or queued) and the CPU (so a later
    test's waits run out). After each test, every local job it started is stopped and every slot ticket
    dropped, as Cancel would."""
    yield
    from dashboard import settings
    from dashboard.jobs import launcher, quotas

    for rec in settings.var_path("jobs", "supervisors").iterdir():
        if rec.name.isdigit():
            launcher.stop(int(rec.name))
    quotas._Local().update(lambda tickets: (None, {}))


@pytest.fixture(scope="session")
def perfcast_app():
    """The app, its Flask test clients signed in as the test session's user (tests/signed_in.py)."""
    app = importlib.import_module("app").app
    app.server.test_client_class = _signed_in_client_class()
    return app


def _signed_in_client_class():
    from flask.testing import FlaskClient

    from tests.signed_in import cookie

    class SignedInClient(FlaskClient):
        """A Flask test client carrying the session cookie of the test session's user."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            name, value = cookie()
            for domain in ("localhost", "127.0.0.1", "::1"):  # the loopback names (as the test requests name them)
                self.set_cookie(name, value, domain=domain)

    return SignedInClient


@pytest.fixture()
def dash_duo(dash_duo):
    """dash.testing's dash_duo, its browser signed in (the session cookie, before it opens any page)."""
    from tests.signed_in import sign_in_browser

    sign_in_browser(dash_duo.driver)
    return dash_duo


@contextlib.contextmanager
def gunicorn_server(var, log_name=None, **env):
    """gunicorn with the project's settings (1 worker x 4 threads) on a free loopback port, state in
    ``var``, its log in a file beside it (``log_name``, default named after ``var``); extra ``env`` for the
    server. Yields ``(base url, var, log)``."""
    import os
    import signal
    import subprocess

    from testkit.servers import free_port, wait_up

    root = Path(__file__).resolve().parents[2]
    log = var.parent / (log_name or f"{var.name}.log")
    port = free_port()
    full_env = {**os.environ, "PERFCAST_VAR_DIR": str(var), "PERFCAST_WORKERS": "1", **env}
    with open(log, "w") as fh:
        server = subprocess.Popen([str(Path(sys.executable).parent / "gunicorn"), "app:server", "-c",
                                   "gunicorn.conf.py", "--bind", f"127.0.0.1:{port}", "--log-level", "warning"],
                                  cwd=root, env=full_env, stdout=fh, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base)
        yield base, var, log
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            pass
        try:  # the server's whole session: workers and any job process left behind
            os.killpg(server.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """A gunicorn server for this test module (see :func:`gunicorn_server`)."""
    with gunicorn_server(tmp_path_factory.mktemp("server-var")) as server:
        yield server


@pytest.fixture()
def server_state(live_server, monkeypatch):
    """This test process reads (and may write) the live server's state directory and result cache."""

    monkeypatch.setattr("dashboard.settings.VAR_DIR", live_server[1])
    monkeypatch.setattr("dashboard.jobs.local_results._RESULTS", {})
    monkeypatch.setattr("dashboard.jobs.memo._MEMO", LRUCache(maxsize=16))
    return live_server
