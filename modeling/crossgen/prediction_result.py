"""What a cross-generation prediction hands back (:mod:`modeling.crossgen.predict`): the workloads to predict
read from a table (:func:`new_workloads`), the :class:`Prediction` result and its prediction table
(:func:`frame_of`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from modeling.crossgen import conformal, versus_baseline
from modeling.crossgen.recommend import candidate_label
from modeling.errors import DataError

RECOMMENDED = "recommended"
AUTO = "auto"
SITUATIONS = {
    "new-inputs": "known applications at new inputs",
    "new-applications": "applications not in the training data",
}


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

@dataclass
class Prediction:
    """Predictions for workloads without a measured target, with intervals, baseline and applicability."""

    scenario: dict
    requested_model: str
    requested_transform: str
    model: str
    transform: str
    level: float
    level_supported: float
    situation: str
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
    def how(self) -> str:
        """One line: what made the numbers and what the interval means."""
        made = candidate_label(self.model, self.transform)
        if self.requested_model == RECOMMENDED:
            made += " (recommended by nested cross-validation)"
        if not self.interval_supported:
            return (f"{made}; no {self.level * 100:g} % interval for {SITUATIONS[self.situation]}: too few held-out "
                    f"units to support it ({self.cv_scheme})")
        return (f"{made}; {self.level * 100:g} % interval for {SITUATIONS[self.situation]} "
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

    def to_dict(self) -> dict:
        return {
            "scenario": self.scenario, "requested_model": self.requested_model,
            "requested_transform": self.requested_transform, "model": self.model, "transform": self.transform,
            "level": self.level, "level_supported": self.level_supported, "situation": self.situation,
            "situation_text": SITUATIONS[self.situation], "interval_rule": self.interval_rule,
            "interval_rule_text": conformal.RULE_LABELS[self.interval_rule], "cv_scheme": self.cv_scheme,
            "cv_coverage": self.cv_coverage, "cv_error": self.cv_error, "baseline_cv": self.baseline_cv,
            "n_train": self.n_train, "n_new": self.n_new, "n_applicable": int(sum(self.applicable)),
            "feature_names": self.feature_names, "ignored_columns": self.ignored_columns, "skipped": self.skipped,
            "distance_threshold": self.distance_threshold, "distance_percentile": self.distance_percentile,
            "selection": self.selection, "notes": self.notes, "how": self.how, "seconds": self.seconds,
            "verdict": None if self.verdict is None else self.verdict.to_dict(),
            "selection_note": self.selection_note, "interval_supported": self.interval_supported,
            "predictions": self.rows(),
        }

    def to_frame(self, provenance: dict | None = None):
        """The prediction table as a DataFrame (CSV/Parquet export): one row per workload, then the
        provenance (model, level, situation, and whatever ``provenance`` adds, e.g. the dataset
        fingerprint, the code version and the date) as constant columns."""
        return frame_of(self.to_dict(), provenance)


def frame_of(res: dict, provenance: dict | None = None):
    """The prediction table (:mod:`modeling.prediction_table`) of a :meth:`Prediction.to_dict` (what the
    dashboard keeps): one row per workload; ``application`` when the workloads have groups; the baseline's
    interval when the scenario has a baseline; ``unit`` when the dict names one."""
    from modeling.prediction_table import frame

    rows = res["predictions"]
    has_group = any(r["group"] is not None for r in rows)
    has_base = any(r["baseline"] is not None for r in rows)
    core = {"id": [r["id"] for r in rows], "predicted": [r["predicted"] for r in rows],
            "lower": [r["lower"] for r in rows], "upper": [r["upper"] for r in rows], "level": res["level"],
            "how": res["how"], "applicable": [bool(r["applicable"]) for r in rows], "why": [r["why"] for r in rows],
            "baseline": [r["baseline"] for r in rows]}
    extra = {
        **({"application": [r["group"] for r in rows]} if has_group else {}),
        **({"unit": res["unit"]} if res.get("unit") else {}),
        "level_supported": res["level_supported"],
        **({"baseline_lower": [r["baseline_lower"] for r in rows],
            "baseline_upper": [r["baseline_upper"] for r in rows]} if has_base else {}),
        "model": res["model"], "transform": res["transform"], "situation": res["situation"],
    }
    return frame(core, extra, provenance)
