"""What holding applications out gives, as types: each method's errors on the held-out workloads, every group
held out in turn (:func:`modeling.newapp.evaluate.evaluate`) and one held-out application's estimates
(:func:`modeling.newapp.application.estimate_application`).

A method's errors are summarised once, when the result is built, from the absolute percentage error of each
held-out workload (RastSim eq. 4, :func:`modeling.metrics.ape`): the mean APE (eq. 3; with held-out
predictions it is E_out), the median APE, and the share of workloads within 10 % and within 25 % (the inlier
ratio, eq. 5). What readers show beside them — the method with the lowest mean APE, a method by name, how many
workloads the roofline put in each class, whether one-run was calibrated — are properties here; the page and
the command line read them instead of deriving their own.

They are typed results (:class:`modeling.results.Result`): ``to_dict()`` is the tagged JSON the job backends
store, with what a JSON reader needs beside the fields (the best method, each roofline class count: not read
back), and ``from_dict`` rebuilds the type from it; ``summary()`` is what the command line and the page say
(:mod:`modeling.newapp.summary`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

import numpy as np

from modeling.errors import ConfigError
from modeling.metrics import inlier_ratio
from modeling.newapp.estimators import CLASSES
from modeling.results import Result

_STAT_KEYS = ("mean_ape", "median_ape", "within_10", "within_25")
#: a mean APE above this (estimates off by more than 10x on average) is not an error level but a failure: the
#: method's estimates for some held-out workloads left the scale of the data (a linear model extrapolating from
#: nearly collinear counters, an exploding ratio), and :attr:`MethodResult.note` says so
ABSURD_APE = 1000.0


@dataclass(frozen=True)
class Scores(Result):
    """Errors on a set of held-out workloads, in percent, over ``n`` scored workloads; with none scored every
    statistic is None (a method that estimated nothing has no error, not an error of 0)."""

    n: int = 0
    mean_ape: float | None = None
    median_ape: float | None = None
    within_10: float | None = None
    within_25: float | None = None

    @classmethod
    def of(cls, apes) -> Scores:
        """The scores of per-workload APEs; NaN (a workload not estimated, or not measured) is left out."""
        a = np.asarray(apes, float).ravel()
        a = a[np.isfinite(a)]
        if a.size == 0:
            return cls()
        return cls(int(a.size), float(a.mean()), float(np.median(a)), inlier_ratio(a, 10), inlier_ratio(a, 25))

    @property
    def scored(self) -> bool:
        return self.n > 0


@dataclass(frozen=True, kw_only=True)
class MethodResult(Scores):
    """One method on the held-out workloads: its :class:`Scores`, and in an evaluation those of each held-out
    group (``per_group``).

    ``kind``: "estimate" (naive, roofline, one-run) or "model"; ``missing``: why the method estimated nothing
    (the roofline without device specs or a counter); ``ratio``: the naive estimates' ratio; ``classes``: the
    roofline's class of each held-out workload, in the result's row order.
    """

    method: str
    kind: str = "estimate"
    per_group: dict[str, Scores] | None = None
    missing: str | None = None
    ratio: float | None = None
    classes: tuple[str, ...] | None = None

    @classmethod
    def from_errors(cls, method: str, kind: str, apes, groups=None, **extra) -> MethodResult:
        """Score ``apes`` (NaN: not scored); with ``groups`` (a label per entry of ``apes``) also per group."""
        a = np.asarray(apes, float)
        per_group = None
        if groups is not None:
            labels = np.asarray(groups)
            per_group = {str(g): Scores.of(a[labels == g]) for g in np.unique(labels)}
        return cls(method=method, kind=kind, per_group=per_group, **asdict(Scores.of(a)), **extra)

    @property
    def note(self) -> str | None:
        """What an absurd mean APE (over :data:`ABSURD_APE`) means, for the page and the command line; None
        otherwise."""
        if self.mean_ape is None or not self.mean_ape > ABSURD_APE:
            return None
        typical = (f"half of its estimates are within {self.median_ape:,.1f} %, so a few are off by orders of "
                   "magnitude" if self.median_ape is not None and self.median_ape <= ABSURD_APE else
                   f"even its median error is {self.median_ape:,.0f} %")
        return (f"not usable here: a mean APE of {self.mean_ape:,.0f} % means its estimates left the scale of the "
                f"data ({typical}): the model extrapolated outside the workloads it was trained on (ill-conditioned "
                "on this table's counters). Use a method with a sane error.")

    @property
    def class_counts(self) -> dict[str, int]:
        """Workloads per roofline class, in the order memory, compute, latency (classes present only)."""
        if not self.classes:
            return {}
        return {c: self.classes.count(c) for c in CLASSES if c in self.classes}

    def to_dict(self) -> dict:
        """The stored fields, the :attr:`note` of an absurd error, and for the roofline each workload's class
        under ``class`` and the count per class (for a JSON reader; not read back)."""
        d = super().to_dict()
        if self.note:
            d["note"] = self.note
        if self.classes is not None:
            d["class"] = list(self.classes)
            d["class_counts"] = self.class_counts
        return d


class _Methods:
    """What a result holding ``methods`` (MethodResult, in the order run) answers about them."""

    methods: list[MethodResult]

    def method(self, name: str) -> MethodResult | None:
        return next((m for m in self.methods if m.method == name), None)

    @property
    def scored(self) -> list[MethodResult]:
        """The methods that estimated at least one measured workload, in the order run."""
        return [m for m in self.methods if m.scored]

    @property
    def best(self) -> MethodResult | None:
        """The scored method with the lowest mean APE (the first such in the order run), or None."""
        return min(self.scored, key=lambda m: m.mean_ape, default=None)


@dataclass
class HeldOutEvaluation(_Methods, Result):
    """Every method with each group (application or kernel, ``cv_label``) held out in turn.

    ``groups``: the held-out groups with measured targets; ``warnings``: {held-out group: [{code, title,
    evidence}]}; ``rows`` (None when left out): per workload {id, application, kernel, host, measured and each
    method's "method|point", "method|lo", "method|hi"}; ``n_workloads``: workloads with a measured target.
    """

    scenario: dict
    cv_label: str
    n_workloads: int
    excluded_rows: int
    groups: list[str]
    methods: list[MethodResult]
    warnings: dict
    rows: list[dict] | None = None
    seconds: float = 0.0

    def summary(self, dataset_name: str = "", provenance=None):
        """What the command line says of it (:class:`modeling.results.Summary`): ``dataset_name`` names the data,
        ``provenance`` (:class:`modeling.results.Provenance`) what made it."""
        from modeling.newapp.summary import evaluation

        return evaluation(self, dataset_name, provenance)

    def without_rows(self) -> HeldOutEvaluation:
        """The evaluation without its per-workload rows (what a page keeps of every group held out)."""
        return replace(self, rows=None)

    def to_dict(self, rows: bool = True) -> dict:
        """The stored fields and the best method's name; without ``rows`` (or without rows) no ``rows`` key."""
        best = self.best
        d = {**super().to_dict(), "best": best.method if best else None}
        if not rows or self.rows is None:
            d.pop("rows")
        return d


@dataclass
class ApplicationEstimate(_Methods, Result):
    """One application held out: every estimate (and model) for its workloads, with errors and warnings.

    ``training_applications``: what was learned from (``n_training`` measured workloads); ``calibration``:
    {kernel: [calibrating workload ids]} of one-run; ``one_run``: {kernel: that calibration's detail (its
    ratio)}; ``spread``: the training kernels' within-kernel ratio spread (one-run's range); ``rows``: per
    workload {id, kernel, host, measured, calibrating, and each method's "method|point", "method|lo",
    "method|hi"}; ``warnings``: [{code, title, evidence}].
    """

    scenario: dict
    application: str
    n_workloads: int
    n_measured: int
    training_applications: list[str]
    n_training: int
    calibration: dict
    one_run: dict
    spread: float
    methods: list[MethodResult]
    warnings: list[dict]
    rows: list[dict]
    seconds: float = 0.0

    def summary(self, dataset_name: str = "", host_spec: dict | None = None, target_spec: dict | None = None,
                provenance=None, metric: str | None = None):
        """What the command line and /new-app's card say of it (:class:`modeling.results.Summary`):
        ``dataset_name`` names the data, ``host_spec`` and ``target_spec`` are the roofline's devices,
        ``provenance`` (:class:`modeling.results.Provenance`) what made it, ``metric`` the page's metric."""
        from modeling.newapp.summary import application

        return application(self, dataset_name, host_spec, target_spec, provenance, metric)

    @property
    def calibrated(self) -> bool:
        """Whether one-run has a calibrating input (without one it estimates nothing)."""
        return bool(self.calibration)

    def with_calibration(self, other: ApplicationEstimate) -> ApplicationEstimate:
        """This result's models with ``other``'s estimates: ``other`` is the same application estimated with
        calibrating inputs and no models (fast); the estimates do not depend on the models, so nothing is
        refitted. The rows keep this result's model columns and take ``other``'s estimate columns."""
        if other.application != self.application:
            raise ConfigError(f"A calibration of {other.application} cannot join the estimates of "
                              f"{self.application}.")
        estimates = [m for m in other.methods if m.kind == "estimate"]
        names = {m.method for m in estimates}
        by_id = {r["id"]: r for r in other.rows}
        rows = []
        for r in self.rows:
            c = by_id[r["id"]]
            rows.append({**r, "calibrating": c["calibrating"],
                         **{k: v for k, v in c.items() if k.split("|")[0] in names}})
        models = [m for m in self.methods if m.kind == "model"]
        return ApplicationEstimate(self.scenario, self.application, self.n_workloads, self.n_measured,
                                   self.training_applications, self.n_training, other.calibration, other.one_run,
                                   self.spread, estimates + models, self.warnings, rows, self.seconds)

    def to_dict(self) -> dict:
        """The stored fields and the best method's name (for a JSON reader; not read back)."""
        best = self.best
        return {**super().to_dict(), "best": best.method if best else None}
