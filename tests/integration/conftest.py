"""Fixtures of the browser tests."""

import importlib

import pytest


@pytest.fixture(scope="session")
def perfcast_app():
    return importlib.import_module("app").app
