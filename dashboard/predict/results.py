"""The result of the /predict job (:mod:`dashboard.predict.kinds`): the modeling prediction (typed,
:class:`modeling.crossgen.prediction_result.Prediction`), the validated parameters and what the page shows beside
it, and the :class:`~modeling.results.Provenance` the job runner stamps. It travels through the job codec
(:mod:`dashboard.jobs.codec`) and a saved prediction's file as tagged JSON and comes back as this type
(docs/architecture.md, "The result contract"); a prediction saved before results were typed (a plain dict) reads
through :meth:`PredictRun.from_summary`."""

from __future__ import annotations

from dataclasses import dataclass

from modeling.crossgen.prediction_result import Prediction
from modeling.crossgen.prediction_summary import Context
from modeling.results import Provenance, Result
from modeling.results import Summary

#: the provenance columns of the exported table
EXPORT_PROVENANCE = ("dataset", "dataset_fingerprint", "inputs", "inputs_fingerprint", "code_version", "date")


@dataclass(frozen=True)
class PredictRun(Result):
    """The ``predict`` job: the predictions of the workloads without a target, and the page's words for its
    data (dataset, host, unit, where the workloads came from) and the fingerprints its export names."""
    params: dict
    prediction: Prediction
    dataset_name: str
    host_label: str
    unit: str
    source_name: str
    dataset_fingerprint: str | None = None
    inputs_fingerprint: str | None = None
    provenance: Provenance | None = None

    @property
    def model_label(self) -> str:
        """The model that made the numbers, with its transform."""
        return self.prediction.choice.label

    @property
    def provenance_columns(self) -> dict:
        """The provenance columns of the exported table (:data:`EXPORT_PROVENANCE`)."""
        p = self.provenance
        return {"dataset": p.dataset if p else self.params.get("dataset"),
                "dataset_fingerprint": self.dataset_fingerprint, "inputs": self.params.get("source"),
                "inputs_fingerprint": self.inputs_fingerprint, "code_version": p.code_version if p else None,
                "date": p.date if p else None}

    def provenance_text(self) -> str:
        """The provenance in one sentence: the model, the dataset and the workloads with their fingerprints, the
        code version, the date and how long the prediction took."""
        c = self.provenance_columns
        return (f"Provenance: model {self.model_label}; dataset {c['dataset']} (fingerprint "
                f"{c['dataset_fingerprint']}); workloads: {self.source_name} (fingerprint "
                f"{c['inputs_fingerprint']}); code version {c['code_version']}; computed {c['date']} "
                f"in {self.prediction.seconds:.1f} s.")

    def summary(self, unit: str | None = None) -> Summary:
        """What the page, its report and the command line say of the prediction (``unit``: the values' unit,
        default the one kept): the prediction's summary with the page's words for its data and the
        provenance."""
        unit = self.unit if unit is None else unit
        p = self.params
        scenario = (f"{self.dataset_name}: {self.host_label} → {p.get('target')}, {p.get('metric')} "
                    f"({unit or 'no unit given'}).")
        return self.prediction.summary(Context(self.source_name, p.get("target", ""), unit, scenario,
                                               self.provenance, self.provenance_text()))

    def to_frame(self, unit: str | None = None):
        """The prediction table with its provenance columns (``unit``: the values' unit, default the one kept)."""
        return self.prediction.to_frame(self.provenance_columns, self.unit if unit is None else unit)

    @classmethod
    def from_summary(cls, d: dict) -> PredictRun:
        """A /predict result stored as the plain dict of the versions before results were typed (a saved
        prediction's ``result.json``): the prediction's JSON (:meth:`Prediction.from_summary`) with the page's keys
        beside it and a provenance dict of model, dataset, fingerprints, code version and date."""
        pv = d.get("provenance") or {}
        params = dict(d.get("params") or {})
        prov = Provenance("predict", params, pv.get("dataset"), d.get("dataset_name"),
                          pv.get("dataset_fingerprint"), pv.get("code_version") or "", pv.get("date") or "",
                          d.get("seconds"))
        return cls(params, Prediction.from_summary(d), d.get("dataset_name") or "", d.get("host_label") or "",
                   d.get("unit") or "", d.get("source_name") or "", pv.get("dataset_fingerprint"),
                   pv.get("inputs_fingerprint"), prov)


def typed(stored) -> PredictRun | None:
    """A stored /predict result as its type: a :class:`PredictRun` as it is, a plain dict of an older version
    through :meth:`PredictRun.from_summary`; None for anything else."""
    if isinstance(stored, PredictRun):
        return stored
    if isinstance(stored, dict) and "predictions" in stored and "params" in stored:
        return PredictRun.from_summary(stored)
    return None
