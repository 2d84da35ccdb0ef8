"""Apply a trained model to a second validation set without retraining.

HALWPE V.D-E: a model selected and fitted on one scenario (e.g. Broadwell GT2
host -> Skylake GT3 target) is applied as is to new workloads or to the same
workloads measured under a changed configuration (new driver, more slices),
and judged by APE and inlier ratios on that validation set.

Columns of the validation features are matched to the training features by
name: a reordered table is realigned, missing columns are an error naming
them, and extra columns are ignored and reported.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from modeling.crossgen.ensemble import MODEL_FACTORIES, TRANSFORMS, prepare, resolve_models
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.metrics import THRESHOLDS, ape, inlier_ratios, percent_safe
from modeling.results import Fact, Note, Provenance, Result, Summary, SummaryTable
from modeling.crossgen.estimators import HostRatioBaseline, TargetTransformRegressor


@dataclass
class ApplyResult(Result):
    """A model fitted on one scenario and judged on a validation set (HALWPE V.D-E): the mean APE there, the
    inlier ratios (keyed by the threshold as a string), the baseline's mean APE, and per workload."""
    model: str
    n_train: int
    n_validation: int
    e_in: float
    e_validation: float
    inlier_ratio: dict
    baseline_e_validation: float | None
    n_selected: int
    ignored_columns: list
    excluded_rows: int
    workload_ids: list = field(repr=False)
    observed: list = field(repr=False)
    predicted: list = field(repr=False)
    ape: list = field(repr=False)

    def cli_json(self) -> dict:
        """Every field as plain JSON."""
        return asdict(self)

    def summary(self, provenance: Provenance | None = None) -> Summary:
        """What the applied model says of itself: its mean APE and IR@10 on the validation set, its error on the
        training set, the baseline's on the validation set, the workloads and the features used; the validation
        columns it ignored and the workloads it left out (notes); the inlier ratio per threshold (a table)."""
        import pandas as pd

        base = self.baseline_e_validation
        facts = (Fact("validation mean APE", f"{self.e_validation:.2f}", "%", key="e-val"),
                 Fact("IR@10", f"{self.inlier_ratio['10']:.1f}", "%", key="ir10"),
                 Fact("training E_in", f"{self.e_in:.2f}", "%", key="e-in"),
                 Fact("baseline on validation", "–" if base is None else f"{base:.2f} %", key="baseline"),
                 Fact("train / validation workloads", f"{self.n_train} / {self.n_validation}", key="sizes"),
                 Fact("features used", str(self.n_selected), key="features-used"))
        notes = ()
        if self.ignored_columns:
            notes += (Note(f"Ignored validation columns not used in training: "
                           f"{', '.join(self.ignored_columns[:10])}.", "info", key="ignored"),)
        if self.excluded_rows:
            notes += (Note(f"{self.excluded_rows} validation workloads excluded (missing values or target ≤ 0).",
                           "info", key="excluded"),)
        frame = pd.DataFrame({"threshold": [float(t) for t in self.inlier_ratio],
                              "ratio": list(self.inlier_ratio.values())})
        table = SummaryTable("Inlier ratios on the validation set", frame,
                             (("threshold", "APE threshold T %"), ("ratio", "inlier ratio %")),
                             {"threshold": 0, "ratio": 1}, key="ir", text_decimals=True)
        return Summary(f"{self.model} applied without retraining", facts,
                       "The model was fitted on the training scenario and applied as it is to the validation set "
                       "(HALWPE V.D-E): its mean absolute percentage error there (RastSim eq. 4), and the share of "
                       "validation workloads predicted within 10 % (IR@10, eq. 5).", notes, tables=(table,),
                       provenance=provenance, provenance_text=provenance.text() if provenance else "")


def align_columns(train_names, val_names, val_X):
    """Reorder validation columns to the training order; refuse missing ones."""
    val_names = list(val_names)
    missing = [c for c in train_names if c not in val_names]
    if missing:
        raise DataError(f"The validation set lacks feature column(s) the model was trained on: "
                        f"{', '.join(missing[:10])}{' …' if len(missing) > 10 else ''}.")
    extra = [c for c in val_names if c not in set(train_names)]
    idx = [val_names.index(c) for c in train_names]
    return np.asarray(val_X, dtype=float)[:, idx], extra


def apply_model(train: dict, validation: dict, model: str, transform: str = "none", seed: int = 0,
                train_rows=None, validation_rows=None) -> ApplyResult:
    """Fit ``model`` on the training scenario and evaluate it on the validation one.

    Parameters
    ----------
    train, validation : scenario dicts (X, y, feature_names, workload_ids, host_index)
    train_rows, validation_rows : boolean masks selecting workloads (e.g. held-out
        applications), default all.
    """
    resolve_models([model])
    if transform not in TRANSFORMS:
        raise ConfigError(f"Unknown transform {transform!r}.")
    tmask = np.ones(len(train["y"]), bool) if train_rows is None else np.asarray(train_rows, bool)
    vmask = np.ones(len(validation["y"]), bool) if validation_rows is None else np.asarray(validation_rows, bool)
    if tmask.sum() < 3:
        raise NotEnoughDataError(f"Only {int(tmask.sum())} training workloads remain; at least 3 are needed.")
    if not vmask.any():
        raise NotEnoughDataError("The validation set is empty.")
    d = prepare(train["X"][tmask], train["y"][tmask], train["feature_names"],
                np.asarray(train["workload_ids"])[tmask], None, True, train.get("host_index"))
    Xv, extra = align_columns(d["names"], validation["feature_names"], validation["X"][vmask])
    yv = np.asarray(validation["y"], float)[vmask]
    ids = list(np.asarray(validation["workload_ids"])[vmask])
    finite = np.all(np.isfinite(Xv), axis=1) & np.isfinite(yv)
    ok = finite & percent_safe(yv)
    excluded = int((~ok).sum())
    Xv, yv, ids = Xv[ok], yv[ok], [i for i, k in zip(ids, ok) if k]
    if len(yv) == 0:
        raise NotEnoughDataError("No validation workload has a usable (positive, finite) target.")
    est = MODEL_FACTORIES[model](seed)
    if transform != "none":
        est = TargetTransformRegressor(est, transform, d["host_index"])
    est.fit(d["X"], d["y"])
    pred = est.predict(Xv)
    a = ape(yv, pred)
    base_e = None
    if d["host_index"] is not None:
        base = HostRatioBaseline(d["host_index"]).fit(d["X"], d["y"])
        base_e = float(np.mean(ape(yv, base.predict(Xv))))
    inner = getattr(est, "estimator_", est)
    return ApplyResult(
        model=model, n_train=len(d["y"]), n_validation=len(yv),
        e_in=float(np.mean(ape(d["y"], est.predict(d["X"])))), e_validation=float(a.mean()),
        inlier_ratio=inlier_ratios(a, THRESHOLDS), baseline_e_validation=base_e,
        n_selected=int(inner.n_selected_), ignored_columns=extra, excluded_rows=excluded,
        workload_ids=[str(i) for i in ids], observed=yv.tolist(), predicted=pred.tolist(), ape=a.tolist())


__all__ = ["ApplyResult", "apply_model", "align_columns"]
