"""What a plan hands back: typed results (:class:`modeling.results.Result`): ``to_dict()`` is tagged JSON and
``Result.from_dict`` (or ``Plan.from_dict``) reads it back as the same types (a cache's copy)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from modeling.results import Result


@dataclass
class BatchItem(Result):
    """One workload of the batch: its rank (1 = simulate first), cost (simulator hours) and why.

    ``width`` is the reported interval's width factor (upper / lower) now, None when there is no interval
    yet; ``distance`` the distance to the nearest simulated workload in counter space (the space of
    :mod:`modeling.plan.strategies`); ``calibration``: drawn at random to keep the intervals calibrated
    (:mod:`modeling.plan.calibration`)."""

    id: str
    rank: int
    cost: float
    width: float | None
    distance: float | None
    predicted: float
    lower: float | None
    upper: float | None
    group: str | None
    calibration: bool
    why: str


@dataclass
class Expected(Result):
    """The expected effect of simulating the batch: the model's error (mean |log error|, cross-validated on
    the simulated workloads) and the median interval width factor on the candidates, now and after, the
    after-values extrapolated along the chosen strategy's replay curve (``basis`` says how)."""

    error_now: float | None
    error_after: float | None
    width_now: float | None
    width_after: float | None
    n_batch: int
    batch_hours: float
    basis: str


@dataclass
class ReplayCurve(Result):
    """One strategy replayed on the measured workloads: per round (round 0 = the random start) the mean
    and the spread (standard deviation over seeds) of what was simulated and of the error on the rest."""

    strategy: str
    budget_kind: str
    n_seeds: int
    simulated: list  # mean workloads simulated after each round
    hours: list  # mean simulator hours spent
    error: list  # mean |log error| on the workloads not simulated
    error_sd: list
    mean_ape: list
    coverage: list  # share of unsimulated workloads inside their interval (None: no interval yet)
    coverage_sd: list
    median_width: list
    ran_out: int = 0  # seeds whose replay ran out of workloads to hold back before the last round


@dataclass
class Plan(Result):
    """The next batch to simulate, why, the expected effect and the replay it was chosen by."""

    strategy: str
    requested: str
    chosen_because: str
    situation: str
    budget: dict
    batch: list[BatchItem]
    expected: Expected
    replay: list[ReplayCurve]
    model: str
    calibration: str
    cost_source: str
    n_measured: int
    n_candidates: int
    notes: list = field(default_factory=list)

    def batch_frame(self):
        """The batch as a table: one row per workload, in rank order."""
        import pandas as pd

        return pd.DataFrame([asdict(b) for b in self.batch])

    def summary(self, **context):
        """What the plan says about itself (:class:`modeling.results.Summary`): see
        :func:`modeling.plan.summary.summarize` for ``context`` (the data's name, the target, the level, the
        last round's changes and results, the provenance)."""
        from modeling.plan.summary import summarize

        return summarize(self, **context)


__all__ = ["BatchItem", "Expected", "Plan", "ReplayCurve"]
