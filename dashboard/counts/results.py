"""The results of the /counts jobs, one type per job kind (:mod:`dashboard.counts.kinds`): the modeling result
(typed, :mod:`modeling.counts.results`, :mod:`modeling.counts.predict`), the validated parameters and what the
page shows beside it, and the :class:`~modeling.results.Provenance` the job runner stamps. They travel through the
job codec (:mod:`dashboard.jobs.codec`) as tagged JSON and come back as these types (docs/architecture.md, "The
result contract"). Their ``summary()`` is what the page's card, the report and the command line say
(:mod:`modeling.counts.summary`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modeling.counts.names import NAMES
from modeling.counts.predict import CountPrediction
from modeling.counts.results import CountEvaluation, ModelScore
from modeling.results import Provenance, Result, Summary


@dataclass(frozen=True)
class CountsRun(Result):
    """The ``counts`` job: every chosen model on one program (leaderboard, blocks, test predictions, curve)."""
    params: dict
    evaluation: CountEvaluation
    provenance: Provenance | None = None

    def summary(self) -> Summary:
        """What the page's card says of the evaluation, with the provenance."""
        return self.evaluation.summary(self.provenance)


@dataclass(frozen=True)
class CountsProgramRow(Result):
    """One model (or the baseline) on one program of the ``countsall`` job."""
    program: str
    n_blocks: int
    n_train: int
    n_test: int
    irregular: int            # irregular blocks of the program
    score: ModelScore
    vs_baseline: float | None  # the model's mean APE as a multiple of the baseline's

    @property
    def model(self) -> str:
        return self.score.model

    @property
    def grid_row(self) -> dict:
        """The row of the page's grid of every program."""
        s = self.score
        return {"program": self.program, "model": s.model, "name": NAMES.get(s.model, s.model), "mape": s.mape,
                "max_ape": s.max_ape, "vs_baseline": self.vs_baseline, "nmse": s.nmse, "spearman": s.spearman,
                "irregular": self.irregular, "n_train": self.n_train, "n_test": self.n_test}


@dataclass(frozen=True)
class CountsSkippedProgram(Result):
    """A program the split cannot serve, and why."""
    program: str
    reason: str


@dataclass(frozen=True)
class CountsProgramsRun(Result):
    """The ``countsall`` job: every program of the table on the same split (no curve)."""
    params: dict
    rows: list[CountsProgramRow]
    skipped: list[CountsSkippedProgram]
    provenance: Provenance | None = None

    @property
    def programs(self) -> list[str]:
        return list(dict.fromkeys(r.program for r in self.rows))

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(r.model for r in self.rows))


@dataclass(frozen=True)
class CountsPredictionRun(Result):
    """The ``countspredict`` job: every block's count at the inputs asked for, and the measured counts the chart
    draws beside them (measured inputs x sizes, measured inputs x blocks)."""
    params: dict
    prediction: CountPrediction
    measured_X: np.ndarray
    measured_Y: np.ndarray
    provenance: Provenance | None = None

    @property
    def provenance_columns(self) -> dict:
        """The provenance columns of the exported table (table id and fingerprint, code version, date)."""
        if self.provenance is None:
            return {"table": None, "table_fingerprint": None, "code_version": None, "date": None}
        return self.provenance.columns("table")

    def summary(self) -> Summary:
        """What the page's card and the report say of the prediction, with the provenance."""
        return self.prediction.summary(self.provenance)

    def to_frame(self):
        """The prediction table with its provenance columns."""
        return self.prediction.to_frame(self.provenance_columns)
