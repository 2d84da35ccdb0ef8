"""The fixtures of the summary tests."""

from tests.dashboard.conftest import var  # noqa: F401 - a fresh state directory
