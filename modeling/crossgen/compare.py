"""Two scenario results side by side: which models changed rank, and the workloads the two disagree on.

The inputs are two scenario results (:class:`modeling.crossgen.ensemble.EnsembleResult`): the same method run
twice with other inputs (another host, target, cross-validation or dataset). Errors are the RastSim eq. 3 E_out
(mean out-of-fold APE, percent) each run reported; nothing is refitted here. A workload is compared when both
runs scored it (the same workload id).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from modeling.crossgen.ensemble import EnsembleResult
from modeling.results import Fact, Note, Result, Summary, SummaryTable

#: Two E_out values "differ" when they are this many percentage points apart and this share of the smaller
#: one: a run with E_out 2 % against 3 % differs, 40.1 % against 40.6 % does not.
DIFFERS_POINTS = 1.0
DIFFERS_SHARE = 0.10
#: How many workloads the comparison lists as the ones the runs disagree on most (the page; the report lists 30).
SHOWN = 12
#: What E_out and "moved" mean in a comparison.
MEANING = ("E_out is the mean absolute percentage error of out-of-fold predictions (RastSim eq. 3) in each run; "
           "B − A in percentage points, negative where B predicts better. A row is marked as moved only when "
           "the two differ by at least 1 point and 10 % of the smaller.")
#: The merged leaderboard's columns (field, heading) as the report and the command line show them.
MODEL_COLUMNS = (("model", "model"), ("e_out_a", "E_out % in A"), ("e_out_b", "E_out % in B"),
                 ("delta", "B − A (points)"), ("rank_a", "rank in A"), ("rank_b", "rank in B"), ("changed", "moved"))
#: The per-workload table's columns.
WORKLOAD_COLUMNS = (("workload", "workload"), ("ape_a", "APE % in A"), ("ape_b", "APE % in B"),
                    ("gap", "apart (points)"))


def star(res: EnsembleResult) -> tuple[str, float]:
    """The leaderboard's ★: the lowest E_out among the models and the baseline (the baseline when it wins);
    :attr:`EnsembleResult.star`."""
    return res.star


def differs(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return False
    gap = abs(b - a)
    return gap >= DIFFERS_POINTS and gap >= DIFFERS_SHARE * min(abs(a), abs(b))


@dataclass(frozen=True)
class ModelRow(Result):
    """One model in both leaderboards (None where a run did not score it); ranks count from 1."""

    model: str
    e_out_a: float | None
    e_out_b: float | None
    rank_a: int | None
    rank_b: int | None
    ir10_a: float | None
    ir10_b: float | None
    star_a: bool
    star_b: bool

    @property
    def delta(self) -> float | None:
        """E_out of B minus E_out of A, in percentage points (negative: B predicts better)."""
        return None if self.e_out_a is None or self.e_out_b is None else self.e_out_b - self.e_out_a

    @property
    def changed(self) -> str:
        """"B better", "A better" or "" when the two E_out do not differ (:func:`differs`)."""
        if not differs(self.e_out_a, self.e_out_b):
            return ""
        return "B better" if self.delta < 0 else "A better"

    @property
    def marks(self) -> str:
        """"★ A", "★ B", "★ A B" or "": the runs in which this row is the lowest E_out."""
        sides = [s for s, flag in (("A", self.star_a), ("B", self.star_b)) if flag]
        return f"★ {' '.join(sides)}" if sides else ""

    @property
    def row(self) -> dict:
        """The row as a table shows it (the derived ``delta``, ``changed`` and ``marks`` included)."""
        return {**asdict(self), "delta": self.delta, "changed": self.changed, "marks": self.marks}


@dataclass(frozen=True)
class WorkloadRow(Result):
    """One workload both runs scored, with the model each run is judged by."""

    workload: str
    observed_a: float
    observed_b: float
    predicted_a: float
    predicted_b: float
    ape_a: float
    ape_b: float

    @property
    def gap(self) -> float:
        """How far apart the two errors are, in percentage points of APE."""
        return abs(self.ape_b - self.ape_a)

    @property
    def row(self) -> dict:
        """The row as a table shows it (the derived ``gap`` included)."""
        return {**asdict(self), "gap": self.gap}


@dataclass(frozen=True)
class WorkloadComparison(Result):
    """Per-workload errors of model ``model_a`` in run A and ``model_b`` in run B, on their shared workloads."""

    model_a: str
    model_b: str
    rows: list = field(repr=False)  # WorkloadRow, the largest gap first
    only_a: int = 0
    only_b: int = 0

    @property
    def n_shared(self) -> int:
        return len(self.rows)

    @property
    def b_better(self) -> int:
        """Shared workloads B predicts with a smaller APE than A (ties counted for neither)."""
        return sum(r.ape_b < r.ape_a for r in self.rows)

    @property
    def a_better(self) -> int:
        return sum(r.ape_a < r.ape_b for r in self.rows)

    def most_apart(self, k: int = SHOWN) -> list:
        return self.rows[:k]

    @property
    def verdict(self) -> str:
        """Which run is closer on how many shared workloads, and how many only one run scored."""
        return (f"Of the {self.n_shared} workloads both runs scored, B ({self.model_b}) is closer on {self.b_better}, "
                f"A ({self.model_a}) on {self.a_better}; scored in one run only: {self.only_a} in A, {self.only_b} "
                "in B.")

    def table(self, k: int = SHOWN) -> SummaryTable:
        """The ``k`` workloads most apart as a summary's table."""
        import pandas as pd

        frame = pd.DataFrame([r.row for r in self.most_apart(k)], columns=[f for f, _ in WORKLOAD_COLUMNS],
                             dtype=object)
        return SummaryTable(f"Per-workload errors of the two ★ entries: the {k} workloads the two predict most "
                            "differently", frame, WORKLOAD_COLUMNS, key="workloads")


def _finite(x) -> bool:
    return x is not None and math.isfinite(float(x))


def compare_workloads(a: EnsembleResult, b: EnsembleResult, model_a: str | None = None, model_b: str | None = None
                      ) -> WorkloadComparison:
    """The errors of ``model_a`` in run A and ``model_b`` in run B (each run's ★ when not given) on every
    workload both scored, ordered by how far apart the two APE are. ``KeyError`` for a model a run lacks."""
    model_a = model_a or a.star[0]
    model_b = model_b or b.star[0]
    ma, mb = a.entries[model_a], b.entries[model_b]
    in_b = {str(w): i for i, w in enumerate(b.workload_ids)}
    rows, seen = [], set()
    for i, w in enumerate(map(str, a.workload_ids)):
        j = in_b.get(w)
        if j is None:
            continue
        seen.add(w)
        vals = (a.observed[i], b.observed[j], ma.oof_prediction[i], mb.oof_prediction[j], ma.ape[i], mb.ape[j])
        if all(_finite(v) for v in vals):
            rows.append(WorkloadRow(w, *(float(v) for v in vals)))
    rows.sort(key=lambda r: (-r.gap, r.workload))
    return WorkloadComparison(model_a, model_b, rows, only_a=len(a.workload_ids) - len(seen),
                              only_b=len(b.workload_ids) - len(seen))


@dataclass(frozen=True)
class ScenarioComparison(Result):
    """Two leaderboards merged by model, and the per-workload errors of each run's ★."""

    models: list = field(repr=False)  # ModelRow, by the better of the two E_out
    star_a: tuple = ()
    star_b: tuple = ()
    workloads: WorkloadComparison | None = None

    @property
    def n_changed(self) -> int:
        return sum(bool(r.changed) for r in self.models)

    @property
    def same_star(self) -> bool:
        return self.star_a[0] == self.star_b[0]

    @property
    def crowned(self) -> str:
        """Whether the two runs crown the same entry, in a sentence."""
        if self.same_star:
            return "Both runs crown the same entry."
        return (f"The two runs crown different entries: {self.star_a[0]} in A, {self.star_b[0]} in B. A model chosen "
                "on one run is not the best on the other.")

    def summary(self, k: int = SHOWN) -> Summary:
        """What the comparison says of itself: each run's ★ and its E_out, how many E_out moved, what the numbers
        mean, whether the runs crown the same entry (a note when they do not), the per-workload verdict of the two
        ★ entries, the merged leaderboard and the ``k`` workloads most apart."""
        import pandas as pd

        (sa, ea), (sb, eb) = self.star_a, self.star_b
        facts = (Fact("★ in A", sa, key="star-a"), Fact("★ E_out in A", f"{ea:.2f}", "%", key="eout-a"),
                 Fact("★ in B", sb, key="star-b"), Fact("★ E_out in B", f"{eb:.2f}", "%", key="eout-b"),
                 Fact("E_out that moved", f"{self.n_changed} of {len(self.models)}", key="moved"))
        notes = () if self.same_star else (Note(self.crowned, "info", key="crowned"),)
        details = (Fact("★", self.crowned),) if self.same_star else ()
        frame = pd.DataFrame([r.row for r in self.models], columns=[*asdict(self.models[0]), "delta", "changed",
                                                                    "marks"] if self.models else None, dtype=object)
        tables = (SummaryTable("Leaderboards side by side", frame, MODEL_COLUMNS, key="models"),)
        if self.workloads is not None:
            details += (Fact("Per workload", self.workloads.verdict),)
            tables += (self.workloads.table(k),)
        return Summary("Two scenarios compared", facts, MEANING, notes, details, tables)


def _ranks(entries: dict) -> dict:
    order = sorted(entries, key=lambda n: (entries[n].e_out, n))
    return {n: i + 1 for i, n in enumerate(order)}


def compare_scenarios(a: EnsembleResult, b: EnsembleResult) -> ScenarioComparison:
    """Merge two scenario results' leaderboards (the baseline as a row of its own) and compare the
    per-workload errors of each run's ★ model."""
    ea, eb = a.entries, b.entries
    ra, rb = _ranks(ea), _ranks(eb)
    sa, sb = a.star, b.star
    rows = []
    for name in list(ea) + [n for n in eb if n not in ea]:
        x, y = ea.get(name), eb.get(name)
        rows.append(ModelRow(
            name, x and float(x.e_out), y and float(y.e_out), ra.get(name), rb.get(name),
            x and float(x.ir(10)), y and float(y.ir(10)),
            name == sa[0], name == sb[0]))
    rows.sort(key=lambda r: (min(v for v in (r.e_out_a, r.e_out_b) if v is not None), r.model))
    return ScenarioComparison(rows, sa, sb, compare_workloads(a, b, sa[0], sb[0]))
