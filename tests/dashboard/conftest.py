"""Fixtures of the dashboard's plain-function tests."""

from collections import OrderedDict

import pytest


@pytest.fixture()
def var(tmp_path, monkeypatch):
    """A fresh state directory: datasets, scenarios and the result cache start empty."""
    monkeypatch.setattr("dashboard.settings.VAR_DIR", tmp_path)
    monkeypatch.setattr("dashboard.jobs.local._RESULTS", {})
    monkeypatch.setattr("dashboard.jobs.memo._MEMO", OrderedDict())
    return tmp_path
