"""What a plan hands back: typed results with a ``to_dict()`` that is plain JSON."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields


def _known(cls, d: dict) -> dict:
    """The entries of ``d`` that are fields of ``cls`` (a dict written by a newer version may hold more)."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in d.items() if k in names}


class _Record:
    """A flat dataclass result: ``to_dict()`` is plain JSON, ``from_dict`` reads it back (a cache's copy)."""

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict):
        """The result of :meth:`to_dict` (e.g. read back from a JSON cache) as the typed result again."""
        return cls(**_known(cls, d))


@dataclass
class BatchItem(_Record):
    """One workload of the batch: its rank (1 = simulate first), cost (simulator hours) and why.

    ``width`` is the reported interval's width factor (upper / lower) now, None when there is no interval
    yet; ``distance`` the distance to the nearest simulated workload in counter space (the space of
    :mod:`modeling.plan.strategies`); ``calibration``: drawn at random to keep the intervals calibrated
    (:mod:`modeling.plan.calibration`)."""

    id: str
    rank: int
    cost: float
    width: float | None
    distance: float | None
    predicted: float
    lower: float | None
    upper: float | None
    group: str | None
    calibration: bool
    why: str


@dataclass
class Expected(_Record):
    """The expected effect of simulating the batch: the model's error (mean |log error|, cross-validated on
    the simulated workloads) and the median interval width factor on the candidates, now and after, the
    after-values extrapolated along the chosen strategy's replay curve (``basis`` says how)."""

    error_now: float | None
    error_after: float | None
    width_now: float | None
    width_after: float | None
    n_batch: int
    batch_hours: float
    basis: str


@dataclass
class ReplayCurve(_Record):
    """One strategy replayed on the measured workloads: per round (round 0 = the random start) the mean
    and the spread (standard deviation over seeds) of what was simulated and of the error on the rest."""

    strategy: str
    budget_kind: str
    n_seeds: int
    simulated: list  # mean workloads simulated after each round
    hours: list  # mean simulator hours spent
    error: list  # mean |log error| on the workloads not simulated
    error_sd: list
    mean_ape: list
    coverage: list  # share of unsimulated workloads inside their interval (None: no interval yet)
    coverage_sd: list
    median_width: list


@dataclass
class Plan:
    """The next batch to simulate, why, the expected effect and the replay it was chosen by."""

    strategy: str
    requested: str
    chosen_because: str
    situation: str
    budget: dict
    batch: list  # BatchItem
    expected: Expected
    replay: list  # ReplayCurve
    model: str
    calibration: str
    cost_source: str
    n_measured: int
    n_candidates: int
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"strategy": self.strategy, "requested": self.requested, "chosen_because": self.chosen_because,
                "situation": self.situation, "budget": self.budget, "batch": [b.to_dict() for b in self.batch],
                "expected": self.expected.to_dict(), "replay": [c.to_dict() for c in self.replay],
                "model": self.model, "calibration": self.calibration, "cost_source": self.cost_source,
                "n_measured": self.n_measured, "n_candidates": self.n_candidates, "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d: dict) -> Plan:
        """The plan of :meth:`to_dict` (e.g. read back from a JSON cache) as the typed result again."""
        kw = _known(cls, d)
        kw["batch"] = [BatchItem.from_dict(b) for b in d.get("batch") or []]
        kw["expected"] = Expected.from_dict(d["expected"])
        kw["replay"] = [ReplayCurve.from_dict(c) for c in d.get("replay") or []]
        return cls(**kw)


__all__ = ["BatchItem", "Expected", "Plan", "ReplayCurve"]
