"""The results of the /phases jobs, one type per job kind (:mod:`dashboard.phases.kinds`): the modeling result
(typed, :mod:`modeling.phases.results`, :mod:`modeling.phases.prediction`), the validated parameters and what the
page shows beside it, and the :class:`~modeling.results.Provenance` the job runner stamps. They travel through the
job codec (:mod:`dashboard.jobs.codec`) as tagged JSON and come back as these types (docs/architecture.md, "The
result contract"). Statistics the page shows are properties here, so the page and the report read one number."""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from modeling.phases.prediction import UNITS, PhasePrediction
from modeling.phases.results import PhaseEvaluation
from modeling.results import TAG, Provenance, Result


@dataclass(frozen=True)
class PhaseTrace(Result):
    """Every evaluated row in order: its program, its host instructions and its measured target value, and
    whether it is a run's edge (first or last sample: in the totals, not a phase; empty: no edges)."""
    program: list[str]
    instructions: list[float]
    actual: list[float]
    edge: list[bool] = field(default_factory=list)

    def indices(self, program: str) -> list[int]:
        """The positions of ``program``'s phases (its runs' edges left out: they are no phase)."""
        edge = self.edge or [False] * len(self.program)
        return [i for i, (p, e) in enumerate(zip(self.program, edge)) if p == program and not e]


@dataclass(frozen=True)
class PhasesRun(Result):
    """The ``phases`` job: every model on held-out programs, each phase's measured value, the runs quality
    control left out."""
    params: dict
    evaluation: PhaseEvaluation
    phases: PhaseTrace
    excluded_runs: list[dict] = field(default_factory=list)
    provenance: Provenance | None = None

    @property
    def unit(self) -> str:
        return UNITS[self.evaluation.target]

    @property
    def programs(self) -> list[str]:
        """The held-out programs, by name."""
        return sorted(set(self.phases.program))

    def summary(self, data: str, excluded: str):
        """What the page says of the evaluation (:meth:`PhaseEvaluation.summary`), ``data`` naming the data and
        the frequencies and ``excluded`` the runs left out as the page names them, with the provenance."""
        pv = self.provenance
        return self.evaluation.summary(data, self.params.get("granularity"), excluded, pv,
                                       pv.text("data") if pv else "")


@dataclass(frozen=True)
class SweepRow(Result):
    """One granularity of the sweep (LACross Figs. 8-10)."""
    granularity: float
    n_phases: int
    unique_hit_rate: float
    unique_phases: int
    phases_per_second: float | None
    lacross_mape: float
    lacross_program_ape: float
    ratio_mape: float

    @property
    def grid_row(self) -> dict:
        """The row of the page's sweep grid."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class SweepRun(Result):
    """The ``phasesweep`` job: accuracy, speed and unique phases against granularity, eps and T fixed."""
    params: dict
    rows: list[SweepRow]
    eps_pct: float
    t_factor: float | None
    provenance: Provenance | None = None


@dataclass(frozen=True)
class NewProgramRun(Result):
    """The ``phasesnew`` job: a program never run on the target, its target trace predicted from its uploaded
    host trace, with the training data's name and fingerprint (an upload's id names its content)."""
    params: dict
    prediction: PhasePrediction
    trace_name: str
    training_fingerprint: str | None = None
    provenance: Provenance | None = None

    @property
    def provenance_columns(self) -> dict:
        """The provenance columns of the exported table: model, trace id and name, training data and its
        fingerprint, code version, date."""
        pv = self.provenance
        return {"model": self.prediction.model, "trace": self.params.get("np_trace"), "trace_name": self.trace_name,
                "training": self.prediction.training, "training_fingerprint": self.training_fingerprint,
                "code_version": pv.code_version if pv else None, "date": pv.date if pv else None}

    @property
    def provenance_text(self) -> str:
        return "; ".join(f"{k} {v}" for k, v in self.provenance_columns.items() if v is not None) or "–"

    def summary(self):
        """What the page, its report and the command line say of the prediction (:class:`modeling.results.Summary`),
        with the host run's name and the provenance."""
        return self.prediction.summary(self.trace_name, self.provenance, self.provenance_text)

    def to_frame(self):
        """The prediction table (one row per phase and one for the program) with the provenance columns."""
        return self.prediction.to_frame(self.provenance_columns)

    @classmethod
    def read(cls, stored) -> NewProgramRun | None:
        """A ``phasesnew`` result as this type: a run as it is, None as None, and a prediction saved before the
        results were typed (the plain dict :func:`dashboard.state.predictions.load_result` gives for it: the
        prediction's keys beside ``params``, ``trace_name`` and a ``provenance`` dict) through
        :meth:`PhasePrediction.from_dict`'s untagged path."""
        if stored is None or isinstance(stored, cls):
            return stored
        if not isinstance(stored, dict) or TAG in stored:
            raise TypeError(f"not a phasesnew result: {type(stored).__name__}")
        old = stored.get("provenance") or {}
        prov = None
        if old.get("code_version"):
            prov = Provenance("phasesnew", dict(stored.get("params") or {}), old.get("trace"), old.get("trace_name"),
                              old.get("training_fingerprint"), old["code_version"], old.get("date") or "")
        return cls(dict(stored.get("params") or {}), PhasePrediction.from_dict(stored), stored.get("trace_name", ""),
                   old.get("training_fingerprint"), prov)
