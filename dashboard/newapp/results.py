"""The results of the /new-app job (:data:`dashboard.newapp.kinds.NEWAPP`), one type per thing it predicts: an
application never run on a measured target (:class:`HeldOutRun`) or a GPU never built or measured
(:class:`UnbuiltGpuRun`). Each carries the modeling result (typed, :mod:`modeling.newapp.results`,
:mod:`modeling.newapp.hypothetical`), the validated parameters, what the page shows beside it and the
:class:`~modeling.results.Provenance` the job runner stamps; they travel through the job codec
(:mod:`dashboard.jobs.codec`) as tagged JSON and come back as these types (docs/architecture.md, "The result
contract"). Their ``summary()`` is what the page's card, the report and the command line say
(:mod:`modeling.newapp.summary`)."""

from __future__ import annotations

from dataclasses import dataclass

from modeling.newapp.hypothetical import HypotheticalEstimate
from modeling.newapp.results import ApplicationEstimate, HeldOutEvaluation
from modeling.newapp.splits import SplitValidation
from modeling.results import Provenance, Result, Summary


@dataclass(frozen=True)
class HeldOutRun(Result):
    """Mode ``measured``: the held-out application's estimates, ranges and warnings (``application``), every
    application held out in turn (``every``, without per-workload rows) and the roofline's device specs."""
    params: dict
    dataset_name: str
    application: ApplicationEstimate
    every: HeldOutEvaluation
    host_spec: dict | None = None
    target_spec: dict | None = None
    provenance: Provenance | None = None

    def summary(self, application: ApplicationEstimate | None = None) -> Summary:
        """What the page's card says of the held-out application (``application``: the one shown, calibrated
        or not; default the one computed)."""
        app = self.application if application is None else application
        return app.summary(self.dataset_name, self.host_spec, self.target_spec, self.provenance,
                           self.params.get("metric"))


@dataclass(frozen=True)
class UnbuiltGpuRun(Result):
    """Modes ``typed`` and ``table``: the spec roofline of every workload on a GPU never built or measured,
    labelled with the same rule's record on the measured pairs; on the shipped data also every measured GPU
    held out under the four splits (``splits``, :mod:`modeling.newapp.splits`; None on an upload)."""
    params: dict
    dataset_name: str
    estimate: HypotheticalEstimate
    provenance: Provenance | None = None
    splits: SplitValidation | None = None

    @property
    def device_name(self) -> str:
        return self.estimate.device["device"]

    def summary(self, unit: str = "") -> Summary:
        """What the page's card and its report say of the estimates (``unit``: the times' unit)."""
        return self.estimate.summary(self.dataset_name, unit, self.provenance)
