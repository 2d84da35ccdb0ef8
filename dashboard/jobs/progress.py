"""The progress callback a job's computation reports to: ``report(fraction done, what it is doing)``."""

from __future__ import annotations


def silent(frac: float, label: str) -> None:
    """Progress reported to nobody: the default of every ``*_result`` function called outside a job (the CLI's
    twins, tests, the warm-up)."""
