"""The result of evaluating count models on one program (:func:`modeling.counts.evaluate.evaluate_program`),
as types: each model's score, each block's choice, the irregular blocks, the test predictions and totals.

Each is a :class:`modeling.results.Result`: ``to_dict()`` is the tagged JSON the job backends store and
``Result.from_dict`` reads it back as the same types. Derived statistics live here, computed from the fields (the
page and the CLI read them instead of deriving their own): the best model, a model's score by name, each model's
error as a multiple of the baseline's, the number of exact blocks. ``summary()`` is the flat JSON summary the
command line prints (derived statistics included).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from modeling.results import Result


@dataclass(frozen=True)
class ModelScore(Result):
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

    def summary(self) -> dict:
        """The flat form the command line prints: the optional fields only when they mean something."""
        d = asdict(self)
        for k in ("mape_range", "seeds", "exact_blocks"):  # present only when they mean something
            if d[k] is None:
                del d[k]
            elif isinstance(d[k], tuple):
                d[k] = list(d[k])
        return d


@dataclass(frozen=True)
class BlockChoice(Result):
    """The model best-per-block chose for a block, its error on the inner split and on the test inputs."""
    block: str
    chosen: str
    exact: bool
    inner_error: float
    test_ape: float


@dataclass(frozen=True)
class IrregularBlock(Result):
    """A block no model predicts within :data:`modeling.counts.evaluate.IRREGULAR_PCT` on the inner split."""
    block: str
    inner_error: float
    reason: str


@dataclass(frozen=True)
class TestPoints(Result):
    """The test inputs of a split, the measured counts there and each model's predicted counts (lists: inputs x
    sizes, inputs x blocks)."""
    __test__ = False  # not a pytest test class

    X: list
    actual: list
    pred: dict            # model (or "baseline") -> inputs x blocks

    @property
    def models(self) -> list[str]:
        return list(self.pred)


@dataclass(frozen=True)
class CurvePoint(Result):
    """One point of the training-size curve: a model's test mean APE trained on a share of the training inputs."""
    fraction: float
    n_train: int
    model: str
    mape: float


@dataclass
class CountEvaluation(Result):
    program: str
    sizes: list
    split: str
    n_train: int
    n_test: int
    models: list[ModelScore]
    blocks: list[BlockChoice]
    irregular: list[IrregularBlock]
    test: TestPoints
    train_X: list
    totals: list[dict]    # the totals table: one row per block (or event), measured and each model's total and error
    curve: list[CurvePoint] | None = None
    extra: dict = field(default_factory=dict)
    baseline: ModelScore | None = None   # the size-scaling baseline on the same test inputs

    @property
    def irregular_reason(self) -> dict[str, str]:
        """Each irregular block's reason, by block id."""
        return {i.block: i.reason for i in self.irregular}

    @property
    def scored(self) -> list[ModelScore]:
        """The models, then the baseline (when there is one): the leaderboard's rows."""
        return [*self.models, *([self.baseline] if self.baseline else [])]

    @property
    def beats_baseline(self) -> bool:
        """Does the best model's mean APE beat the baseline's (False without a baseline)?"""
        return self.baseline is not None and self.best.mape < self.baseline.mape

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

    def summary(self) -> dict:
        """The flat JSON summary the command line prints (derived statistics included)."""
        out = {"program": self.program, "sizes": list(self.sizes), "split": self.split, "n_blocks": self.n_blocks,
               "n_train": self.n_train, "n_test": self.n_test, "models": [m.summary() for m in self.models],
               "best_model": self.best.model, "n_exact": self.n_exact,
               "irregular": [asdict(i) for i in self.irregular], "blocks": [asdict(b) for b in self.blocks],
               "test": asdict(self.test), "train_X": self.train_X, "block_ids": self.block_ids,
               "totals": self.totals}
        if self.curve is not None:
            out["curve"] = [asdict(c) for c in self.curve]
        if self.baseline is not None:
            out["baseline"] = {**self.baseline.summary(), "vs_baseline": 1.0 if self.baseline.mape > 0 else None}
            for m in out["models"]:
                m["vs_baseline"] = self.vs_baseline(m["model"])
        return out
