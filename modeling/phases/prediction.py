"""The result of predicting a program never run on the target (:func:`modeling.phases.predict.predict_program`),
as a type: per phase and for the whole program, with intervals, the cross-validation that chose the model,
and in words why it was chosen. It is a typed result (:class:`modeling.results.Result`): ``to_dict()``/
``from_dict()`` are its tagged JSON (``from_dict()`` also reads a prediction stored before it was tagged, the
plain dict of :meth:`~PhasePrediction.cli_json`'s shape); ``cli_json()`` the flat JSON the command line prints,
``summary()`` what the command line, the page and the report say;
``to_frame()`` the prediction table (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from modeling.intervals import conformal
from modeling.results import TAG, Result

AUTO = "auto"
UNITS = {"cycles": "cycles", "power": "W"}


@dataclass
class PhasePrediction(Result):
    """A target trace predicted from a host run: per phase and for the whole program, with intervals."""

    program: str
    host_freq: float
    target_freq: float
    target: str
    requested_model: str
    model: str
    level: float
    level_supported: float
    granularity: float
    phase: list
    start_instructions: list
    end_instructions: list
    predicted: list
    lower: list
    upper: list
    fallback: list
    host_value: list  # the host's own cycles (or power) per phase
    baseline: list  # the naive baseline per phase: host value x median training target/host ratio
    total: dict  # predicted, lower, upper, host, baseline
    phase_half_width: float  # log scale
    total_half_width: float | None  # None: too few programs for the level (no whole-program interval)
    cv: dict  # model -> per_phase_mape, program_mean_ape (program-grouped CV on the training programs)
    cv_coverage: dict  # percent of held-out phases / programs inside intervals built without them
    n_programs: int
    n_phases: int
    training: str
    features: str = "counters"
    norm: str = "z"
    chosen: dict = field(default_factory=dict)  # eps/T of LACross or the global model, when used
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    selection: str = ""  # in words: which model auto chose and why, with the errors compared

    @property
    def total_supported(self) -> bool:
        """Whether the whole program has an interval at ``level`` (enough training programs)."""
        return self.total_half_width is not None

    @property
    def unit(self) -> str:
        return UNITS[self.target]

    @property
    def how(self) -> str:
        made = self.model + (" (lowest whole-program error in program-grouped CV)" if self.requested_model == AUTO
                             else " (as asked)")
        total = ("the total by the held-out programs' total residuals" if self.total_supported else
                 f"no interval on the total ({self.n_programs} programs are too few for the level)")
        return (f"{made}; {self.level * 100:g} % interval: phases by each training program's own residual "
                f"quantile, then the conformal rank over {self.n_programs} programs; {total}")

    def rows(self) -> list[dict]:
        """One dict per phase, then the whole program (``phase`` None)."""
        out = [{"program": self.program, "phase": int(self.phase[i]),
                "start_instructions": self.start_instructions[i], "end_instructions": self.end_instructions[i],
                "predicted": self.predicted[i], "lower": self.lower[i], "upper": self.upper[i],
                "fallback": bool(self.fallback[i]), "baseline": self.baseline[i], "host": self.host_value[i]}
               for i in range(len(self.phase))]
        out.append({"program": self.program, "phase": None, "start_instructions": 0.0,
                    "end_instructions": self.end_instructions[-1] if self.end_instructions else 0.0,
                    "predicted": self.total["predicted"], "lower": self.total["lower"], "upper": self.total["upper"],
                    "fallback": bool(any(self.fallback)), "baseline": self.total["baseline"],
                    "host": self.total["host"]})
        return out

    @property
    def fallback_phases(self) -> int:
        """How many phases fell back to the nearest training phases (LACross neighbourhood too small)."""
        return int(sum(bool(f) for f in self.fallback))

    @property
    def phases(self) -> list[dict]:
        """One row per phase: its number, start and end (host instructions), prediction, interval, fall-back,
        host value and baseline."""
        return [{"phase": int(self.phase[i]), "start_instructions": self.start_instructions[i],
                 "end_instructions": self.end_instructions[i], "predicted": self.predicted[i],
                 "lower": self.lower[i], "upper": self.upper[i], "fallback": bool(self.fallback[i]),
                 "host": self.host_value[i], "baseline": self.baseline[i]} for i in range(len(self.phase))]

    def summary(self, trace_name: str = "", provenance=None, provenance_text: str = ""):
        """What the prediction says (:class:`modeling.results.Summary`), as the command line, the /phases page and
        its report show it: ``trace_name`` names the host run, ``provenance`` (:class:`modeling.results.Provenance`)
        and its sentence say what made it."""
        from modeling.phases.prediction_summary import summarize

        return summarize(self, trace_name, provenance, provenance_text)

    def cli_json(self) -> dict:
        """The flat JSON the command line prints (derived words and counts included): also the shape a
        prediction had when it was stored before it was tagged, which :meth:`from_dict` still reads."""
        return {
            "program": self.program, "host_freq": self.host_freq, "target_freq": self.target_freq,
            "target": self.target, "unit": self.unit, "requested_model": self.requested_model, "model": self.model,
            "level": self.level, "level_supported": self.level_supported, "granularity": self.granularity,
            "phase_half_width": self.phase_half_width, "total_half_width": self.total_half_width,
            "cv": self.cv, "cv_coverage": self.cv_coverage, "n_programs": self.n_programs,
            "n_phases": self.n_phases, "training": self.training, "features": self.features, "norm": self.norm,
            "chosen": self.chosen, "notes": self.notes, "seconds": self.seconds, "selection": self.selection,
            "total": dict(self.total),
            "interval_rule": "per_application", "interval_rule_text": conformal.RULE_LABELS["per_application"],
            "total_rule": "conformal rank of held-out programs' |log(measured total / predicted total)|",
            "how": self.how, "total_supported": self.total_supported, "fallback_phases": self.fallback_phases,
            "phases": self.phases,
        }

    @classmethod
    def from_dict(cls, d: dict) -> PhasePrediction:
        """The prediction a :meth:`to_dict` dict describes; an untagged dict is one stored before predictions were
        tagged (:meth:`cli_json`'s shape: its per-phase values only under ``phases``)."""
        if isinstance(d, dict) and TAG in d:
            return super().from_dict(d)
        return cls._from_untagged(d)

    @classmethod
    def _from_untagged(cls, d: dict) -> PhasePrediction:
        ph = d["phases"]
        return cls(d["program"], d["host_freq"], d["target_freq"], d["target"], d["requested_model"], d["model"],
                   d["level"], d["level_supported"], d["granularity"], [p["phase"] for p in ph],
                   [p["start_instructions"] for p in ph], [p["end_instructions"] for p in ph],
                   [p["predicted"] for p in ph], [p["lower"] for p in ph], [p["upper"] for p in ph],
                   [p["fallback"] for p in ph], [p["host"] for p in ph], [p["baseline"] for p in ph],
                   dict(d["total"]), d["phase_half_width"],
                   d["total_half_width"], d["cv"], d["cv_coverage"], d["n_programs"], d["n_phases"], d["training"],
                   d["features"], d["norm"], d["chosen"], list(d["notes"]), d["seconds"], d.get("selection", ""))

    def to_frame(self, provenance: dict | None = None) -> pd.DataFrame:
        """The prediction table (docs/architecture.md): one row per phase and one for the whole program (``phase``
        empty, id ``<program>/total``), then the provenance as constant columns."""
        from modeling.prediction_table import frame

        rows = self.rows()
        core = {"id": [f"{self.program}/phase {r['phase']}" if r["phase"] is not None else f"{self.program}/total"
                       for r in rows],
                "predicted": [r["predicted"] for r in rows], "lower": [r["lower"] for r in rows],
                "upper": [r["upper"] for r in rows], "level": self.level, "how": self.how,
                "applicable": [not r["fallback"] for r in rows],
                "why": ["LACross neighbourhood too small: the nearest training phases were used" if r["fallback"]
                        else "" for r in rows],
                "baseline": [r["baseline"] for r in rows]}
        extra = {"program": self.program, "phase": pd.array([r["phase"] for r in rows], dtype="Int64"),
                 "start_instructions": [r["start_instructions"] for r in rows],
                 "end_instructions": [r["end_instructions"] for r in rows], "unit": self.unit,
                 "level_supported": self.level_supported, "fallback": [r["fallback"] for r in rows],
                 "host": [r["host"] for r in rows], "model": self.model, "target": self.target,
                 "host_freq_mhz": self.host_freq, "target_freq_mhz": self.target_freq}
        return frame(core, extra, provenance)


