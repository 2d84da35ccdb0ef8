"""The result of evaluating phase models on held-out programs (:func:`modeling.phases.evaluate.evaluate`), as
types: each model's scores, each program's whole-program error per model, the out-of-fold phase predictions.

Both are typed results (:class:`modeling.results.Result`): ``to_dict()`` is the tagged JSON the job backends
store, read back as these types; ``cli_json()`` the flat JSON the CLI prints; ``summary()`` what the evaluation
says of itself (:class:`modeling.results.Summary`), which the command line's text and the page's card draw.
Derived statistics are computed here once (the best model, the models tied with it, a model's scores by name), so
the page and the CLI read the same numbers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from modeling.phases.names import NAMES
from modeling.results import Fact, Provenance, Result, Summary, SummaryTable

#: the models a summary heads with, their labels and their keys on a page
HEADLINE = {"lacross": ("LACross per-phase MAPE", "lacross"), "global": ("global model", "global"),
            "ratio-baseline": ("host × median ratio", "ratio")}
#: the decimals of a per-phase MAPE as the page and the command line show it: models equal at these are tied
SHOWN_DECIMALS = 2


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

    @property
    def lowest(self) -> list[PhaseModelScore]:
        """The models whose per-phase MAPE is the lowest at the decimals shown (:data:`SHOWN_DECIMALS`), in the
        order run: with LACross's neighbourhood as wide as the data (eps at the 100th percentile) LACross, the
        global model and the NNLS baseline are one model, differing in the eleventh digit, and naming one of them
        "lowest" would say more than the numbers do."""
        least = round(self.best.per_phase_mape, SHOWN_DECIMALS)
        return [m for m in self.models if round(m.per_phase_mape, SHOWN_DECIMALS) == least]

    def cli_json(self) -> dict:
        """The flat JSON the command line prints: every field and ``best_model``."""
        d = asdict(self)
        d["best_model"] = self.best.model
        return d

    def summary(self, data: str, granularity: float | None = None, excluded: str = "",
                provenance: Provenance | None = None, provenance_text: str = "") -> Summary:
        """What the evaluation says of itself: LACross's, the global model's and the host x median ratio's
        per-phase MAPE, the lowest (every model tied at the decimals shown), the programs and phases; what the
        errors are; how it was run (``data``: the data and frequencies as the caller names them; ``granularity``
        of the phases; ``excluded``: the sentence naming the runs left out) and each model's errors."""
        import pandas as pd

        m = self.scores
        lowest = self.lowest
        names = ", ".join(NAMES.get(x.model, x.model) for x in lowest) + (" (tied)" if len(lowest) > 1 else "")
        facts = (*[Fact(label, f"{m[name].per_phase_mape:.{SHOWN_DECIMALS}f}" if name in m else "", "%", key=key)
                   for name, (label, key) in HEADLINE.items()],
                 Fact("lowest", names, key="best"),
                 Fact("programs / phases", f"{self.n_programs} / {self.n_phases}", key="n-programs"))
        lead = (f"Per-phase MAPE: the mean absolute percentage error of each phase's predicted {self.target} on "
                f"programs held out of training ({self.folds} folds by program); program mean and max: the error "
                f"of each held-out program's total. Models equal at {SHOWN_DECIMALS} decimals are tied.")

        def tf(c):
            return "none" if c["t_factor"] is None else f"{c['t_factor']:g}"
        shape = f"{self.target}, features: {self.features} ({self.norm})"
        if granularity is not None:
            shape += f"; phases of {granularity:.3g} instructions"
        details = [Fact("evaluated", f"{data}, {shape}; {self.folds} folds by program"),
                   Fact("eps percentile / T factor chosen per fold",
                        ", ".join(f"{c['eps_pct']:g}/{tf(c)}" for c in self.chosen)),
                   Fact("phases whose neighbourhood was too small (k nearest used instead)",
                        str(self.fallback_phases)),
                   Fact("unique-phase cache", f"hit rate {self.unique_hit_rate:.2f} at L = {self.cache_l:g}")]
        if excluded:
            details.append(Fact("runs left out", excluded))
        details.append(Fact("solver", f"{self.phases_per_second or 0:,.0f} phases/s"))
        frame = pd.DataFrame([{"model": NAMES.get(x.model, x.model), "per_phase_mape": x.per_phase_mape,
                               "program_mean_ape": x.program_mean_ape, "program_max_ape": x.program_max_ape}
                              for x in self.models])
        table = SummaryTable("Each model on held-out programs", frame,
                             (("model", "model"), ("per_phase_mape", "per-phase MAPE %"),
                              ("program_mean_ape", "program mean APE %"), ("program_max_ape", "program max APE %")),
                             {"per_phase_mape": SHOWN_DECIMALS, "program_mean_ape": SHOWN_DECIMALS,
                              "program_max_ape": SHOWN_DECIMALS}, key="models", text_decimals=True)
        return Summary("Phase models on held-out programs", facts, lead, details=tuple(details), tables=(table,),
                       provenance=provenance, provenance_text=provenance_text)
