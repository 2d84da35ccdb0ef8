"""The result of evaluating phase models on held-out programs (:func:`modeling.phases.evaluate.evaluate`), as
types: each model's scores, each program's whole-program error per model, the out-of-fold phase predictions.

Both are typed results (:class:`modeling.results.Result`): ``to_dict()`` is the tagged JSON the job backends
store, read back as these types; ``summary()`` the flat JSON the CLI prints. Derived statistics are computed here
once (the best model, a model's scores by name), so the page, the report and the CLI read the same numbers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from modeling.results import Result


@dataclass(frozen=True)
class PhaseModelScore(Result):
    """One model on every held-out program: mean APE per phase, mean and largest whole-program APE (%)."""
    model: str
    per_phase_mape: float
    program_mean_ape: float
    program_max_ape: float


@dataclass
class PhaseEvaluation(Result):
    """Every model on held-out programs (program-grouped folds) at one host/target pair."""
    target: str
    features: str
    norm: str
    folds: int
    seed: int
    n_programs: int
    n_phases: int
    unique_hit_rate: float
    cache_l: float
    phases_per_second: float | None
    fallback_phases: int
    chosen: list[dict]                      # per fold: LACross's eps / T and their inner error
    models: list[PhaseModelScore]
    programs: list[dict]                    # per program: actual total, and "<model>|predicted", "<model>|ape"
    phase_predictions: dict[str, list]      # model -> out-of-fold prediction per phase (None: not predicted)
    seconds: float

    def score(self, model: str) -> PhaseModelScore | None:
        return next((m for m in self.models if m.model == model), None)

    @property
    def best(self) -> PhaseModelScore:
        """The model with the lowest per-phase mean APE (the first such in the order run)."""
        return min(self.models, key=lambda m: m.per_phase_mape)

    @property
    def scores(self) -> dict[str, PhaseModelScore]:
        """Each model's scores by its name."""
        return {m.model: m for m in self.models}

    @property
    def model_names(self) -> list[str]:
        """The models evaluated, in the order run."""
        return [m.model for m in self.models]

    def summary(self) -> dict:
        """The flat JSON the command line prints: every field and ``best_model``."""
        d = asdict(self)
        d["best_model"] = self.best.model
        return d
