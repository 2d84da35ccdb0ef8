"""The result of the /plan job (:data:`dashboard.plan.kinds.PLAN`) as types: the typed plan
(:class:`modeling.plan.results.Plan`), what the page shows around it, what the last round's simulations changed
(:class:`modeling.plan.loop.RoundChange`, the type ``plan --previous`` says it with, here with the round's
number) and the :class:`~modeling.results.Provenance` the job runner stamps. Stored through the job codec as
tagged JSON and read back as these types (docs/architecture.md, "The result contract")."""

from __future__ import annotations

from dataclasses import dataclass

from modeling.plan.loop import RoundChange
from modeling.plan.results import Plan
from modeling.plan.summary import LEVEL
from modeling.results import Provenance, Result, Summary


@dataclass(frozen=True)
class PlanPage(Result):
    """A /plan result as the page reads it: the typed plan and what the page adds around it."""
    plan: Plan
    params: dict
    dataset_name: str
    unit: str
    target_label: str
    round: RoundChange | None = None  # what the batch merged into this dataset version changed
    provenance: Provenance | None = None

    def summary(self) -> Summary:
        """The plan's summary with what the page knows around it: the dataset, the target, the last round, the
        provenance (the card and the report draw it; the command line prints the same for a table)."""
        return self.plan.summary(data=self.dataset_name, target=self.target_label, level=LEVEL, changes=self.round,
                                 provenance=self.provenance)
