"""The job layer's tests run against both backends (as Dash's own background-callback tests run per
manager): ``backend`` is ``local`` (diskcache, fork, flock, pid) or ``redis`` (a real Redis)."""

import pytest
from cachetools import LRUCache


@pytest.fixture(params=["local", "redis"])
def backend(request, var, monkeypatch):
    from dashboard.jobs import backend as chosen

    if request.param == "redis":
        monkeypatch.setattr("dashboard.settings.REDIS_URL", request.getfixturevalue("redis_url"))
        monkeypatch.setattr("dashboard.settings.LEASE_SECONDS", 2.0)
        monkeypatch.setattr("dashboard.jobs.memo._MEMO", LRUCache(maxsize=16))
    monkeypatch.setattr(chosen, "_active", None)
    chosen.use(request.param)
    return request.param
