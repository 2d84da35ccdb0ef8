"""A pytest plugin that reports each test's CPU seconds (this process and the child processes it reaped):
on a loaded machine wall times (``--durations``) grow with the load, CPU seconds do not. Use it to choose
the ``slow`` tests (tests/conftest.py ``SLOW``):

    ./test.sh --fast -p tests.cputime -q

prints the total and the 30 costliest tests at the end (``PERFCAST_CPUTIME_TOP`` changes how many)."""

from __future__ import annotations

import os
import time

import pytest

_times: dict[str, tuple[float, float]] = {}


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _cpu(), time.monotonic()
    yield
    _times[item.nodeid] = (_cpu() - cpu, time.monotonic() - wall)


def pytest_terminal_summary(terminalreporter):
    if not _times:
        return
    write = terminalreporter.write_line
    write(f"CPU seconds of {len(_times)} tests: {sum(c for c, _ in _times.values()):.1f} "
          f"(wall {sum(w for _, w in _times.values()):.1f}; the whole process {_cpu():.1f})")
    top = int(os.environ.get("PERFCAST_CPUTIME_TOP", 30))
    for nodeid, (cpu, wall) in sorted(_times.items(), key=lambda kv: -kv[1][0])[:top]:
        write(f"{cpu:8.2f} s CPU {wall:8.2f} s wall  {nodeid}")
