"""The access tests' database: ``url`` is a fresh SQLite file or a database on the suite's real PostgreSQL
(each test runs on both), migrated, made the settings' database, with this suite's secret key (:data:`SECRET`,
the app's own back afterwards) and no project in scope. A test module may define its own ``url``."""

import pytest

from dashboard import settings
from dashboard.access import database, gate, projects

SECRET = "s" * 64


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'perfcast.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "postgres_url")
    database.migrate(url)
    monkeypatch.setattr(settings, "DATABASE_URL", url)
    monkeypatch.setattr(settings, "VAR_DIR", tmp_path / "var")
    monkeypatch.setattr(gate, "_secret", [SECRET])  # this test's key, and the app's own back afterwards (a
    # key left behind made every later browser test's cookie invalid once the app had been imported earlier)
    with projects.scope(None):  # not the test session's default project (tests/conftest.py)
        yield url
