"""The results of the cross-generation jobs, one type per job kind (:mod:`dashboard.crossgen.kinds`): the modeling
result (typed: :mod:`modeling.crossgen.ensemble`, ``sweep``, ``ranking``, ``apply``, ``compare``), the validated
parameters and what the page shows beside it, and the :class:`~modeling.results.Provenance` the job runner stamps.
They travel through the job codec (:mod:`dashboard.jobs.codec`) as tagged JSON and come back as these types
(docs/architecture.md, "The result contract"). Statistics the pages show beside the numbers (the ★, the best
model per target, whether the baseline wins) are properties here, so the page, the report and /compare read the
same number.

A saved scenario's summary (:class:`SavedScenario`, :mod:`dashboard.state.scenarios`) is read by the same
``from_dict``: one saved before it carried its type's tag is read as one (its fields by name, the ones it lacks
as None).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from modeling.crossgen.apply import ApplyResult
from modeling.crossgen.compare import ScenarioComparison
from modeling.crossgen.ensemble import EnsembleResult, ModelResult
from modeling.crossgen.ranking import Ranking
from modeling.crossgen.sweep import SweepResult
from modeling.results import TAG, Fact, Note, Provenance, Result, ResultError, Summary, SummaryTable


@dataclass(frozen=True)
class TargetRow(Result):
    """One target of a /generations run: its best model and the baseline (E_out in percent, RastSim eq. 3)."""
    target: str
    best_model: str
    e_out: float
    ir10: float
    ir20: float
    best_nnls: str | None
    nnls_e_out: float | None
    baseline_e_out: float | None
    n_workloads: int
    n_excluded: int
    sim_speedup_mean: float | None = None

    @property
    def baseline_as_good(self) -> bool:
        """The baseline's E_out is no higher than the best model's."""
        return self.baseline_e_out is not None and self.baseline_e_out <= self.e_out

    @property
    def row(self) -> dict:
        """The row of the page's table and the report's."""
        return asdict(self)


@dataclass(frozen=True)
class ScenarioRun(Result):
    """The ``scenario`` job: the ensemble's leaderboard on one scenario (:class:`EnsembleResult`, per-workload
    lists included) and what the page says beside it: the dataset's name, the host's label, the feature
    categories, the workloads left out (and why) and those with host counters but no target value."""
    params: dict
    ensemble: EnsembleResult
    dataset_name: str
    host_label: str | None = None
    categories: list = field(default_factory=list)
    unmeasured_count: int = 0
    unmeasured_ids: list = field(default_factory=list)  # the first few, for the page's sentence
    missing_rows: int = 0
    missing_reason: str = "a missing value"
    missing_ids: list = field(default_factory=list)
    upload_missing: dict | None = None  # the upload's rule for missing values (dashboard.state.datasets)
    provenance: Provenance | None = None

    @property
    def scenario(self) -> dict:
        return self.ensemble.scenario

    @property
    def best(self) -> ModelResult:
        """The model with the lowest E_out (the baseline not counted)."""
        return self.ensemble.best_model

    @property
    def star(self) -> tuple[str, float]:
        return self.ensemble.star

    @property
    def baseline_wins(self) -> bool:
        return self.ensemble.baseline_wins

    @property
    def host(self) -> str:
        """The host as the page names it (its label, else the scenario's host)."""
        return self.host_label or self.scenario.get("host")

    @property
    def n_excluded(self) -> int:
        """Workloads left out: a target ≤ 0 and a missing value."""
        return int(self.ensemble.excluded_rows or 0) + int(self.missing_rows or 0)

    def target_row(self, target: str) -> TargetRow:
        """This run as one target of a /generations run."""
        best, nn, base = self.best, self.ensemble.best_nnls, self.ensemble.baseline
        return TargetRow(target, best.model, best.e_out, best.ir(10), best.ir(20), nn.model if nn else None,
                         nn.e_out if nn else None, base.e_out if base else None, self.ensemble.n_workloads,
                         self.n_excluded)


@dataclass(frozen=True)
class TreeSweepRun(Result):
    """The ``sweep`` job: the Random Forest tree-count sweep on the scenario's folds (RastSim 4.4)."""
    params: dict
    sweep: SweepResult
    provenance: Provenance | None = None


@dataclass(frozen=True)
class RankingRun(Result):
    """The ``ranking`` job: one model's ranked features on every workload of the scenario."""
    params: dict
    ranking: Ranking
    n_workloads: int
    n_features: int
    provenance: Provenance | None = None

    def summary(self) -> Summary:
        """What the page's card says (and ``python -m modeling rank``): :meth:`Ranking.summary` with the workloads
        and the provenance."""
        return self.ranking.summary(self.n_workloads, self.provenance)


@dataclass(frozen=True)
class GenerationsRun(Result):
    """The ``generations`` job: one host, several targets; a scenario per target (its key, its best model) and
    the measured, predicted (the best model's out-of-fold) and simulator speedups per workload."""
    params: dict
    host: str
    targets: list
    rows: list                                           # TargetRow, one per target
    scenario_keys: dict                                  # target -> the key of its scenario result
    speedup: dict = field(default_factory=dict)          # target -> workload -> host / target time
    predicted_speedup: dict = field(default_factory=dict)
    sim_speedup: dict = field(default_factory=dict)      # target -> workload -> simulator / model time
    applications: dict = field(default_factory=dict)     # workload -> application (shipped data)
    provenance: Provenance | None = None

    @property
    def table(self) -> list[dict]:
        return [r.row for r in self.rows]

    @property
    def lowest(self) -> TargetRow:
        """The target whose best model has the lowest E_out."""
        return min(self.rows, key=lambda r: r.e_out)

    @property
    def baseline_as_good(self) -> list[str]:
        """The targets on which the baseline is as good as the best model."""
        return [r.target for r in self.rows if r.baseline_as_good]

    def best_of(self, target: str) -> str:
        return next((r.best_model for r in self.rows if r.target == target), "best model")


@dataclass(frozen=True)
class ApplyRun(Result):
    """The ``apply`` job: a model trained on one scenario applied without retraining to a validation set, with
    each validation workload's application (empty when the data has none)."""
    params: dict
    applied: ApplyResult
    groups: list
    provenance: Provenance | None = None

    def summary(self, unit: str = "", train_unit: str = "") -> Summary:
        """What /apply's card says: :meth:`ApplyResult.summary` with the provenance, and a warning when the
        training dataset's target ``train_unit`` is not the validation set's ``unit``."""
        from dashboard.ui.format import unit_text

        s = self.applied.summary(self.provenance)
        if unit == train_unit:
            return s
        units = Note(f"The training dataset's target unit ({unit_text(train_unit)}) is not the validation set's "
                     f"({unit_text(unit)}): the model predicts in the training unit, so these errors compare values "
                     "in different units.", key="units")
        return replace(s, notes=(*s.notes, units))


@dataclass(frozen=True)
class CompareSide(Result):
    """One of the two saved scenarios of a ``compare`` job: its record, its scenario result's key and size."""
    id: str
    name: str
    params: dict
    key: str
    dataset_name: str
    host_label: str | None
    n_workloads: int

    @property
    def label(self) -> str:
        p = self.params
        return f"{self.name}: {self.host_label or p['host']} → {p['target']}, {p['cv']}"


@dataclass(frozen=True)
class InputRow(Result):
    """One input of the two compared scenarios."""
    input: str
    a: str
    b: str
    differs: bool

    @property
    def row(self) -> dict:
        return {"input": self.input, "a": self.a, "b": self.b, "differs": "yes" if self.differs else ""}


@dataclass(frozen=True)
class CompareRun(Result):
    """The ``compare`` job: two saved scenarios, their inputs side by side, and their results compared
    (:class:`modeling.crossgen.compare.ScenarioComparison`)."""
    params: dict
    a: CompareSide
    b: CompareSide
    inputs: list  # InputRow
    comparison: ScenarioComparison
    provenance: Provenance | None = None

    def summary(self, k: int = 30) -> Summary:
        """What the page's card and the report say: the comparison's summary
        (:meth:`~modeling.crossgen.compare.ScenarioComparison.summary`, the ``k`` workloads most apart) with the two
        saved scenarios named, their inputs side by side and the provenance."""
        import pandas as pd

        s = self.comparison.summary(k)
        sides = tuple(Fact(name, f"{side.label} ({side.n_workloads} workloads).")
                      for name, side in (("Scenario A", self.a), ("Scenario B", self.b)))
        frame = pd.DataFrame([r.row for r in self.inputs], columns=["input", "a", "b", "differs"], dtype=object)
        inputs = SummaryTable("Inputs", frame, (("input", "input"), ("a", "A"), ("b", "B"), ("differs", "differs")),
                              key="inputs")
        p = self.provenance
        text = "" if p is None else (
            f"Provenance: two saved scenarios, each computed as on /scenario (comparison fingerprint "
            f"{str(p.fingerprint)[:16]}); code version {p.code_version}; computed {p.date}.")
        return replace(s, title=f"Compared: {self.a.name} (A) and {self.b.name} (B)", details=sides + s.details,
                       tables=(inputs, *s.tables), provenance=p, provenance_text=text)


@dataclass(frozen=True)
class SavedScenario(Result):
    """What a saved scenario records of its run: the best model and its E_out and IR@10, the ★ (the lowest
    E_out, the baseline's when no model beat it), the workloads and the page's query. Fields a record saved
    before one was recorded read as None."""
    best: str | None = None
    e_out: float | None = None
    ir10: float | None = None
    star: str | None = None
    star_e_out: float | None = None
    n_workloads: int | None = None
    query: str = ""

    @classmethod
    def of(cls, run: ScenarioRun) -> SavedScenario:
        from dashboard.ui.url_state import to_query

        star, star_e_out = run.star
        return cls(run.best.model, run.best.e_out, run.best.ir(10), star, star_e_out, run.ensemble.n_workloads,
                   to_query(run.params)[1:])

    @classmethod
    def read(cls, stored) -> SavedScenario:
        """The summary of a saved record: a tagged one, or one saved as a plain dict before summaries were typed
        (read by the same :meth:`from_dict`, as this type); ``ResultError`` for anything else."""
        if not isinstance(stored, dict):
            raise ResultError("a saved scenario without its summary")
        return cls.from_dict(stored if TAG in stored else {TAG: cls.tag, **stored})

    @property
    def starred(self) -> str:
        """The ★ entry: the lowest E_out, the baseline's when no model beat it. Saved before the ★ was recorded:
        the best model, said as such."""
        if self.star:
            return f"★ {self.star} E_out {self.star_e_out:.2f} %"
        return f"best model {self.best} E_out {self.e_out or 0:.2f} % (baseline not recorded)"
