"""Fixtures of the dashboard's plain-function tests."""

import pytest
from cachetools import LRUCache


@pytest.fixture()
def var(tmp_path, monkeypatch):
    """A fresh state directory: datasets, scenarios and the result cache start empty."""
    monkeypatch.setattr("dashboard.settings.VAR_DIR", tmp_path)
    monkeypatch.setattr("dashboard.jobs.local_results._RESULTS", {})
    monkeypatch.setattr("dashboard.jobs.memo._MEMO", LRUCache(maxsize=16))
    return tmp_path
