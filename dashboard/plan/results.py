"""The result of the /plan job (:data:`dashboard.plan.kinds.PLAN`) as types: the typed plan
(:class:`modeling.plan.results.Plan`), what the page shows around it, what the last round's simulations changed,
and the :class:`~modeling.results.Provenance` the job runner stamps. Stored through the job codec as tagged JSON
and read back as these types (docs/architecture.md, "The result contract")."""

from __future__ import annotations

from dataclasses import dataclass, field

from modeling.plan.loop import RoundMove
from modeling.plan.results import Plan
from modeling.results import Provenance, Result


@dataclass(frozen=True)
class PlanRound(Result):
    """What the simulations merged into this dataset version changed (see
    :func:`dashboard.plan.work.round_changes`)."""
    round: int
    parent: str | None
    merged: int
    error_before: float | None
    error_now: float | None
    width_before: float | None
    width_now: float | None
    measured_before: int | None
    measured_now: int
    workloads: list[RoundMove] = field(default_factory=list)  # largest moves first

    @property
    def inside(self) -> list[bool]:
        """Per merged workload with an interval: was the simulated value inside it?"""
        return [w.inside for w in self.workloads if w.inside is not None]


@dataclass(frozen=True)
class PlanPage(Result):
    """A /plan result as the page reads it: the typed plan and what the page adds around it."""
    plan: Plan
    params: dict
    dataset_name: str
    unit: str
    target_label: str
    round: PlanRound | None = None
    provenance: Provenance | None = None
