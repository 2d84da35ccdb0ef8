"""The rows /phases' grid shows of a new program's prediction, one per phase. Its headline numbers, how it was
made and its notes are the result's summary (:meth:`dashboard.phases.results.NewProgramRun.summary`)."""

from __future__ import annotations

from dashboard.phases.results import NewProgramRun
from modeling.phases.prediction_summary import rows


def np_rows(run: NewProgramRun) -> list[dict]:
    """The table's rows: one per phase."""
    return rows(run.prediction)
