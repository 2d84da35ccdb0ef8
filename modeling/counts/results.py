"""The result of evaluating count models on one program (:func:`modeling.counts.evaluate.evaluate_program`),
as types: each model's score, each block's choice, the irregular blocks, the test predictions and totals.

Derived statistics live here, computed once from the fields (the page and the CLI read them instead of
deriving their own): the best model, a model's score by name, the share of exact blocks. ``to_dict()`` is the
JSON-ready form the job backends store and the page draws from.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class ModelScore:
    """One model on the test inputs (networks: the median seed, with the range of its mean APE)."""
    model: str
    mape: float
    max_ape: float
    nmse: float | None
    pearson: float | None
    spearman: float | None
    fit_seconds: float
    mape_range: tuple[float, float] | None = None
    seeds: tuple[int, ...] | None = None
    exact_blocks: int | None = None  # the polynomial model only: blocks it reproduced to the integer

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("mape_range", "seeds", "exact_blocks"):  # present only when they mean something
            if d[k] is None:
                del d[k]
            elif isinstance(d[k], tuple):
                d[k] = list(d[k])
        return d


@dataclass(frozen=True)
class BlockChoice:
    """The model best-per-block chose for a block, its error on the inner split and on the test inputs."""
    block: str
    chosen: str
    exact: bool
    inner_error: float
    test_ape: float


@dataclass(frozen=True)
class IrregularBlock:
    """A block no model predicts within :data:`modeling.counts.evaluate.IRREGULAR_PCT` on the inner split."""
    block: str
    inner_error: float
    reason: str


@dataclass
class CountEvaluation:
    program: str
    sizes: list
    split: str
    n_train: int
    n_test: int
    models: list[ModelScore]
    blocks: list[BlockChoice]
    irregular: list[IrregularBlock]
    test: dict            # {"X", "actual", "pred": {model: counts}}, lists
    train_X: list
    totals: list[dict]
    curve: list[dict] | None = None
    extra: dict = field(default_factory=dict)
    baseline: ModelScore | None = None   # the size-scaling baseline on the same test inputs

    def vs_baseline(self, model: str) -> float | None:
        """A model's mean APE as a multiple of the baseline's (below 1: the model beats it)."""
        m = self.score(model) if model != "baseline" else self.baseline
        if m is None or self.baseline is None or not self.baseline.mape > 0:
            return None
        return m.mape / self.baseline.mape

    @property
    def n_blocks(self) -> int:
        return len(self.blocks)

    @property
    def block_ids(self) -> list[str]:
        return [b.block for b in self.blocks]

    def score(self, model: str) -> ModelScore | None:
        return next((m for m in self.models if m.model == model), None)

    @property
    def best(self) -> ModelScore:
        """The model with the lowest mean APE on the test inputs (the first such in the order run; the baseline is
        not a model: compare with :attr:`baseline`)."""
        return min(self.models, key=lambda m: m.mape)

    @property
    def n_exact(self) -> int:
        return sum(b.exact for b in self.blocks)

    def to_dict(self) -> dict:
        out = {"program": self.program, "sizes": list(self.sizes), "split": self.split, "n_blocks": self.n_blocks,
               "n_train": self.n_train, "n_test": self.n_test, "models": [m.to_dict() for m in self.models],
               "best_model": self.best.model, "n_exact": self.n_exact,
               "irregular": [asdict(i) for i in self.irregular], "blocks": [asdict(b) for b in self.blocks],
               "test": self.test, "train_X": self.train_X, "block_ids": self.block_ids, "totals": self.totals}
        if self.curve is not None:
            out["curve"] = self.curve
        if self.baseline is not None:
            out["baseline"] = {**self.baseline.to_dict(), "vs_baseline": 1.0 if self.baseline.mape > 0 else None}
            for m in out["models"]:
                m["vs_baseline"] = self.vs_baseline(m["model"])
        return out
