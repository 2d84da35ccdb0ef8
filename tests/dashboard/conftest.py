"""Fixtures of the dashboard's plain-function tests."""

import pytest

from dashboard import jobs


@pytest.fixture()
def var(tmp_path, monkeypatch):
    """A fresh state directory: datasets, scenarios and the result cache start empty."""
    monkeypatch.setattr("dashboard.settings.VAR_DIR", tmp_path)
    monkeypatch.setattr("dashboard.jobs._RESULTS", {})
    monkeypatch.setattr("dashboard.jobs._MEMO", type(jobs._MEMO)())
    return tmp_path
