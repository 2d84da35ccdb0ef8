"""Waiting for an event in a test or a benchmark, never for a fixed time."""

from __future__ import annotations

import time


def until(cond, timeout: float = 60.0, step: float = 0.05) -> bool:
    """Whether ``cond()`` holds within ``timeout`` seconds (generous: a loaded machine is slow, not wrong)."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(step)
    return True
