"""Comparing two runs of one computation: everything but the time it took."""

from __future__ import annotations

#: the fields that differ between two runs of the same computation: how long it took
TIMINGS = frozenset({"fit_seconds", "seconds"})


def without_timings(d):
    """``d`` (a result's JSON: dicts and lists) without its :data:`TIMINGS` fields, at any depth."""
    if isinstance(d, dict):
        return {k: without_timings(v) for k, v in d.items() if k not in TIMINGS}
    if isinstance(d, list):
        return [without_timings(v) for v in d]
    return d
