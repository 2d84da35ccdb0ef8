"""What a cross-generation prediction hands back (:mod:`modeling.crossgen.predict`): the workloads to predict
read from a table (:func:`new_workloads`), the :class:`Prediction` result and its prediction table
(:meth:`Prediction.to_frame`): typed results (:mod:`modeling.results`) that go through the job codec and a saved
prediction's file as they are."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from modeling.crossgen import versus_baseline
from modeling.crossgen.recommend import candidate_label
from modeling.crossgen.situations import NEW_INPUTS, SITUATIONS
from modeling.errors import DataError
from modeling.intervals import conformal
from modeling.results import Result

RECOMMENDED = "recommended"
AUTO = "auto"


# ------------------------------------------------------------------ the workloads to predict

def new_workloads(frame, feature_names, id_col=None, group_col=None) -> dict:
    """The workloads to predict from a table of host counters (CSV/Parquet frame).

    Columns are matched to ``feature_names`` by name: a reordered table is fine, missing columns are an
    error naming them, extra columns are reported in ``ignored`` and never read (a target column among
    them included). Rows with a missing or non-finite counter cannot be predicted: they are left out and
    listed in ``skipped``.
    """
    import pandas as pd

    cols = [str(c) for c in frame.columns]
    named = [c for c in (id_col, group_col) if c]
    absent = [c for c in named if c not in cols]
    if absent:
        raise DataError(f"Column(s) not in the table of workloads to predict: {', '.join(absent)}.")
    missing = [f for f in feature_names if f not in cols]
    if missing:
        more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        raise DataError(f"The workloads to predict lack {len(missing)} counter column(s) the model was trained "
                        f"on: {', '.join(missing[:10])}{more}.")
    ignored = [c for c in cols if c not in set(feature_names) and c not in named]
    nonnum = [f for f in feature_names if not pd.api.types.is_numeric_dtype(frame[f])]
    if nonnum:
        raise DataError(f"Counter column(s) are not numeric in the workloads to predict: {', '.join(nonnum[:10])}.")
    X = frame[list(feature_names)].to_numpy(dtype=float)
    ids = (frame[id_col].astype(str).tolist() if id_col else [f"row {i + 1}" for i in range(len(frame))])
    if id_col and pd.Series(ids).duplicated().any():
        raise DataError(f"Workload ids in {id_col!r} are not unique.")
    ok = np.all(np.isfinite(X), axis=1)
    skipped = [i for i, k in zip(ids, ok) if not k]
    if not ok.any():
        raise DataError("Every workload to predict has a missing or infinite counter value.")
    groups = frame[group_col].astype(str).to_numpy()[ok] if group_col else None
    return {"X": X[ok], "feature_names": list(feature_names), "workload_ids": [i for i, k in zip(ids, ok) if k],
            "groups": groups, "ignored": ignored, "skipped": skipped}


# ------------------------------------------------------------------ result

@dataclass(frozen=True)
class PredictionChoice(Result):
    """What was asked and what the procedure chose: the scenario, the requested and the chosen (model,
    transform), the interval's level and the situation it is calibrated for. A :class:`Predictor` holds one and
    hands the same to every :class:`Prediction` it makes."""

    scenario: dict
    requested_model: str
    requested_transform: str
    model: str
    transform: str
    level: float
    situation: str

    @property
    def label(self) -> str:
        """The model that made the numbers, with its transform ("NNLS (logratio)")."""
        return candidate_label(self.model, self.transform)


@dataclass(frozen=True)
class Prediction(Result):
    """Predictions for workloads without a measured target, with intervals, baseline and applicability."""

    choice: PredictionChoice
    level_supported: float
    interval_rule: str
    cv_scheme: str
    cv_coverage: dict
    cv_error: dict
    baseline_cv: dict | None
    n_train: int
    feature_names: list
    ids: list
    groups: list | None
    predicted: list
    lower: list
    upper: list
    baseline: list | None
    baseline_lower: list | None
    baseline_upper: list | None
    applicable: list
    why: list
    out_of_range: list
    distance: list
    distance_threshold: float
    distance_percentile: float
    ignored_columns: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    selection: dict | None = None
    notes: list = field(default_factory=list)
    seconds: float = 0.0
    #: the procedure against the baseline on the outer folds (None without a host metric)
    verdict: versus_baseline.BaselineVerdict | None = None
    #: False when the data cannot support the level (too few held-out units): no bounds are given
    interval_supported: bool = True

    @property
    def selection_note(self) -> str:
        """In words, when the baseline is used or did at least as well, with both cross-validated errors."""
        return "" if self.verdict is None else self.verdict.text

    @property
    def n_new(self) -> int:
        return len(self.ids)

    @property
    def n_applicable(self) -> int:
        return int(sum(bool(a) for a in self.applicable))

    @property
    def how(self) -> str:
        """One line: what made the numbers and what the interval means."""
        c = self.choice
        made = c.label
        if c.requested_model == RECOMMENDED:
            made += " (recommended by nested cross-validation)"
        if not self.interval_supported:
            return (f"{made}; no {c.level * 100:g} % interval for {SITUATIONS[c.situation]}: too few held-out "
                    f"units to support it ({self.cv_scheme})")
        return (f"{made}; {c.level * 100:g} % interval for {SITUATIONS[c.situation]} "
                f"({conformal.RULE_LABELS[self.interval_rule]}; {self.cv_scheme})")

    def rows(self) -> list[dict]:
        """One dict per predicted workload (the prediction table of docs/architecture.md)."""
        out = []
        for i, wid in enumerate(self.ids):
            out.append({
                "id": wid, "group": None if self.groups is None else self.groups[i],
                "predicted": self.predicted[i], "lower": self.lower[i], "upper": self.upper[i],
                "baseline": None if self.baseline is None else self.baseline[i],
                "baseline_lower": None if self.baseline_lower is None else self.baseline_lower[i],
                "baseline_upper": None if self.baseline_upper is None else self.baseline_upper[i],
                "applicable": bool(self.applicable[i]), "why": self.why[i],
                "out_of_range": self.out_of_range[i], "distance": self.distance[i]})
        return out

    def summary(self, context=None):
        """What the prediction says (:class:`modeling.results.Summary`): the facts, the notes, the details, the
        tables and the provenance, as the command line, the page and the report show them. ``context``
        (:class:`modeling.crossgen.prediction_summary.Context`): the workloads' source, the unit, the scenario's
        sentence and the provenance; by default the table's own workloads without a target."""
        from modeling.crossgen.prediction_summary import Context, summarize

        return summarize(self, context or Context("the dataset's workloads without a measured target"))

    def cli_json(self) -> dict:
        """The command line's JSON: the choice and the statistics flat, in words too, and one row per workload
        (``predictions``). Not read back: the stored form is :meth:`to_dict`."""
        c = self.choice
        return {
            "scenario": c.scenario, "requested_model": c.requested_model,
            "requested_transform": c.requested_transform, "model": c.model, "transform": c.transform,
            "level": c.level, "level_supported": self.level_supported, "situation": c.situation,
            "situation_text": SITUATIONS[c.situation], "interval_rule": self.interval_rule,
            "interval_rule_text": conformal.RULE_LABELS[self.interval_rule], "cv_scheme": self.cv_scheme,
            "cv_coverage": self.cv_coverage, "cv_error": self.cv_error, "baseline_cv": self.baseline_cv,
            "n_train": self.n_train, "n_new": self.n_new, "n_applicable": self.n_applicable,
            "feature_names": self.feature_names, "ignored_columns": self.ignored_columns, "skipped": self.skipped,
            "distance_threshold": self.distance_threshold, "distance_percentile": self.distance_percentile,
            "selection": self.selection, "notes": self.notes, "how": self.how, "seconds": self.seconds,
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "selection_note": self.selection_note, "interval_supported": self.interval_supported,
            "predictions": self.rows(),
        }

    @classmethod
    def from_summary(cls, d: dict) -> Prediction:
        """The prediction of a :meth:`cli_json` dict (what the dashboard stored before results were typed: a saved
        prediction's ``result.json`` from then reads through here)."""
        rows = d.get("predictions") or []

        def col(k):
            return [r.get(k) for r in rows]

        has_group = any(r.get("group") is not None for r in rows)
        has_base = any(r.get("baseline") is not None for r in rows)
        choice = PredictionChoice(d.get("scenario") or {}, d.get("requested_model", ""),
                                  d.get("requested_transform", ""), d["model"], d.get("transform", "none"), d["level"],
                                  d.get("situation", NEW_INPUTS))
        return cls(choice, d.get("level_supported", d["level"]), d.get("interval_rule", "pooled"),
                   d.get("cv_scheme", ""), d.get("cv_coverage") or {}, d.get("cv_error") or {}, d.get("baseline_cv"),
                   d.get("n_train", 0), list(d.get("feature_names") or []), [str(i) for i in col("id")],
                   col("group") if has_group else None, col("predicted"), col("lower"), col("upper"),
                   col("baseline") if has_base else None, col("baseline_lower") if has_base else None,
                   col("baseline_upper") if has_base else None, [bool(a) for a in col("applicable")],
                   col("why"), col("out_of_range"), col("distance"),
                   d.get("distance_threshold", float("nan")), d.get("distance_percentile", float("nan")),
                   list(d.get("ignored_columns") or []), list(d.get("skipped") or []), d.get("selection"),
                   list(d.get("notes") or []), d.get("seconds", 0.0),
                   versus_baseline.BaselineVerdict.from_dict(d.get("verdict")), d.get("interval_supported", True))

    def to_frame(self, provenance: dict | None = None, unit: str | None = None):
        """The prediction table (:mod:`modeling.prediction_table`, CSV/Parquet export): one row per workload;
        ``application`` when the workloads have groups; the baseline's interval when the scenario has a
        baseline; ``unit`` when one is given; then the provenance (model, level, situation, and whatever
        ``provenance`` adds, e.g. the dataset fingerprint, the code version and the date) as constant
        columns."""
        from modeling.prediction_table import frame

        c = self.choice
        has_group = self.groups is not None and any(g is not None for g in self.groups)
        has_base = self.baseline is not None and any(b is not None for b in self.baseline)
        core = {"id": list(self.ids), "predicted": list(self.predicted), "lower": list(self.lower),
                "upper": list(self.upper), "level": c.level, "how": self.how,
                "applicable": [bool(a) for a in self.applicable], "why": list(self.why),
                "baseline": list(self.baseline) if self.baseline is not None else [None] * self.n_new}
        extra = {
            **({"application": list(self.groups)} if has_group else {}),
            **({"unit": unit} if unit else {}),
            "level_supported": self.level_supported,
            **({"baseline_lower": list(self.baseline_lower), "baseline_upper": list(self.baseline_upper)}
               if has_base else {}),
            "model": c.model, "transform": c.transform, "situation": c.situation,
        }
        return frame(core, extra, provenance)
