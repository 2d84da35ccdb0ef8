"""The results of the count models as types: evaluating them on one program
(:func:`modeling.counts.evaluate.evaluate_program`: each model's score, each block's choice, the irregular blocks,
the test predictions and totals) and predicting at new inputs (:func:`modeling.counts.predict.predict_counts`:
:class:`CountPrediction`).

Each is a :class:`modeling.results.Result`: ``to_dict()`` is the tagged JSON the job backends store and
``Result.from_dict`` reads it back as the same types. Derived statistics live here, computed from the fields (the
page and the CLI read them instead of deriving their own): the best model, a model's score by name, each model's
error as a multiple of the baseline's, the number of exact blocks. ``summary()`` is what the result says about
itself (:class:`modeling.results.Summary`, :mod:`modeling.counts.summary`): the command line's text, /counts'
cards and its report; ``cli_json()`` is the flat JSON the command line prints with ``--json`` (derived statistics
included).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

from modeling.counts.baseline import RULE as BASELINE_RULE
from modeling.counts.names import NAMES
from modeling.results import TRANSIENT, Result


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

    def cli_json(self) -> dict:
        """The flat form the command line's JSON prints: the optional fields only when they mean something."""
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

    def summary(self, provenance=None):
        """What the evaluation says (:class:`modeling.results.Summary`), as the command line and /counts' card show
        it; ``provenance`` (:class:`modeling.results.Provenance`): what made it."""
        from modeling.counts.summary import evaluation

        return evaluation(self, provenance)

    def cli_json(self) -> dict:
        """The flat JSON the command line prints with ``--json`` (derived statistics included)."""
        out = {"program": self.program, "sizes": list(self.sizes), "split": self.split, "n_blocks": self.n_blocks,
               "n_train": self.n_train, "n_test": self.n_test, "models": [m.cli_json() for m in self.models],
               "best_model": self.best.model, "n_exact": self.n_exact,
               "irregular": [asdict(i) for i in self.irregular], "blocks": [asdict(b) for b in self.blocks],
               "test": asdict(self.test), "train_X": self.train_X, "block_ids": self.block_ids,
               "totals": self.totals}
        if self.curve is not None:
            out["curve"] = [asdict(c) for c in self.curve]
        if self.baseline is not None:
            out["baseline"] = {**self.baseline.cli_json(), "vs_baseline": 1.0 if self.baseline.mape > 0 else None}
            for m in out["models"]:
                m["vs_baseline"] = self.vs_baseline(m["model"])
        return out


# ------------------------------------------------------------------ counts predicted at new inputs

#: how a model-predicted count's range is made (:mod:`modeling.counts.ranges`)
RULE = ("range at the level printed: (predicted + 0.5) x exp(+-w) - 0.5, w = the k-th smallest of the block's "
        "held-out |log ratio| / distance beyond, k = ceil((n + 1) x level), times max(distance beyond the measured "
        "inputs, the held-out inputs' median distance); exact: the point itself")


@dataclass(frozen=True)
class PredictedCount:
    """One row of the prediction: a block's (or event's) count at one input, its range and how it was obtained."""
    inputs: dict
    block: str
    predicted: float
    lower: float | None
    upper: float | None
    how: str
    error: float | None
    level: float | None
    irregular: str | None
    beyond: float
    baseline: float | None
    baseline_error: float | None
    baseline_scales: str | None


@dataclass(frozen=True)
class PredictedTotal:
    """A sum of predicted counts: over the blocks at one input (``block`` = "all blocks"), or over the inputs
    (``inputs`` = "all inputs"); its range is the sum of the ranges."""
    inputs: dict | str
    block: str
    predicted: float
    lower: float | None
    upper: float | None
    baseline: float | None


@dataclass
class CountPrediction(Result):
    """Every block's count of one program at new inputs: predicted, range, how, held-out error, irregular."""

    program: str
    params: list
    model: str
    blocks: list
    kind: str                   # "blocks" (basic-block ids) or "events"
    inputs: np.ndarray          # points x params
    predicted: np.ndarray       # points x blocks
    lower: np.ndarray
    upper: np.ndarray
    how: list                   # per block: "exact" or a model name
    error: list                 # per block: mean APE % on the held-out inputs (None: none could be held out)
    level: list                 # per block: the range's level (0.9, or n / (n + 1)), 1 for exact, None: no range
    irregular: list             # per block: reason or None
    beyond: np.ndarray          # per point: log-size distance beyond the measured inputs (0 inside)
    n_measured: int
    measured_max: dict
    n_hl_train: int = 0                 # training inputs of the (median) held-out fold
    n_hl_test: int = 0                  # held-out inputs
    hl_distance: float | None = None    # the held-out inputs' median factor beyond their training inputs
    scheme: str | None = None           # "high-low" or "leave-one-input-out" (modeling/counts/ranges.py)
    level_supported: bool = False       # the held-out inputs support the stated level (90 %)
    formulas: dict = field(default_factory=dict)   # exact blocks: the polynomial as text
    notes: list = field(default_factory=list)
    # model or baseline -> {"predicted", "lower", "upper"}: a working value of the computing process, not stored
    by_model: dict = field(default_factory=dict, metadata=TRANSIENT)
    baseline: np.ndarray | None = None              # points x blocks: size scaling (modeling/counts/baseline.py)
    baseline_error: list = field(default_factory=list)  # per block: the baseline's mean APE % on the held-out
    baseline_scales: list = field(default_factory=list)  # per block: the sizes it scales with ("N^2·M")
    seconds: float = 0.0

    @property
    def rule(self) -> str:
        return RULE

    @property
    def baseline_rule(self) -> str:
        return BASELINE_RULE

    @property
    def model_name(self) -> str:
        return NAMES.get(self.model, self.model)

    @property
    def n_inputs(self) -> int:
        return int(len(self.inputs))

    @property
    def n_blocks(self) -> int:
        return len(self.blocks)

    @property
    def n_exact(self) -> int:
        return int(sum(h == "exact" for h in self.how))

    @property
    def n_irregular(self) -> int:
        return int(sum(r is not None for r in self.irregular))

    @property
    def factors_beyond(self) -> list[float]:
        """Per input: the smallest growth factor of the sizes from a measured input (1 inside)."""
        return [float(math.exp(d)) for d in self.beyond]

    @property
    def range_level(self) -> float | None:
        """The level of the model-predicted counts' ranges (None: no range, or every block exact)."""
        return next((lv for h, lv in zip(self.how, self.level) if h != "exact" and lv is not None), None)

    @property
    def modelled(self) -> list[int]:
        """The blocks a model (or the baseline) predicts: not exact."""
        return [b for b, h in enumerate(self.how) if h != "exact"]

    @property
    def median_error(self) -> float | None:
        """The median over the blocks not exact of the chosen prediction's held-out mean APE % (None: none held
        out)."""
        errs = [self.error[b] for b in self.modelled if self.error[b] is not None]
        return float(np.median(errs)) if errs else None

    @property
    def median_baseline_error(self) -> float | None:
        """The median over the blocks not exact of the baseline's held-out mean APE % (None: none held out)."""
        errs = [self.baseline_error[b] for b in self.modelled
                if self.baseline_error and self.baseline_error[b] is not None]
        return float(np.median(errs)) if errs else None

    @property
    def n_baseline(self) -> int:
        """Blocks that take the baseline itself (best per block: no model beat it on the held-out inputs)."""
        return int(sum(h == "baseline" for h in self.how))

    def inputs_of(self, i: int) -> dict:
        return {p: _plain(v) for p, v in zip(self.params, self.inputs[i])}

    def rows(self) -> list[PredictedCount]:
        """One row per (input, block), inputs in the order given, blocks in id order."""
        out = []
        for i in range(len(self.inputs)):
            ins = self.inputs_of(i)
            for b, blk in enumerate(self.blocks):
                out.append(PredictedCount(
                    ins, blk, float(self.predicted[i, b]), _num(self.lower[i, b]), _num(self.upper[i, b]),
                    self.how[b], self.error[b], self.level[b], self.irregular[b], float(math.exp(self.beyond[i])),
                    None if self.baseline is None else float(self.baseline[i, b]),
                    self.baseline_error[b] if self.baseline_error else None,
                    self.baseline_scales[b] if self.baseline_scales else None))
        return out

    def totals(self) -> list[PredictedTotal]:
        """Per input: the sum over blocks (basic-block tables only); per block or event: the sum over the
        requested inputs; then (blocks) the sum of everything. Ranges: sums of the ranges; the baseline: the sum
        of the baseline's counts."""
        out = []
        lo, hi = self.lower, self.upper
        base = self.baseline if self.baseline is not None else np.full_like(self.predicted, np.nan)
        if self.kind == "blocks":
            for i in range(len(self.inputs)):
                out.append(PredictedTotal(self.inputs_of(i), "all blocks", float(self.predicted[i].sum()),
                                          _num(lo[i].sum()), _num(hi[i].sum()), _num(base[i].sum())))
        for b, blk in enumerate(self.blocks):
            out.append(PredictedTotal("all inputs", blk, float(self.predicted[:, b].sum()), _num(lo[:, b].sum()),
                                      _num(hi[:, b].sum()), _num(base[:, b].sum())))
        if self.kind == "blocks":
            out.append(PredictedTotal("all inputs", "all blocks", float(self.predicted.sum()), _num(lo.sum()),
                                      _num(hi.sum()), _num(base.sum())))
        return out

    def summary(self, provenance=None):
        """What the prediction says (:class:`modeling.results.Summary`), as the command line, /counts' card and its
        report show it; ``provenance`` (:class:`modeling.results.Provenance`): what made it."""
        from modeling.counts.summary import prediction

        return prediction(self, provenance)

    def cli_json(self) -> dict:
        """The flat JSON the command line prints with ``--json``: every row and total, derived counts included."""
        return {"program": self.program, "sizes": list(self.params), "model": self.model,
                "model_name": self.model_name, "kind": self.kind,
                "n_inputs": self.n_inputs, "n_blocks": self.n_blocks, "n_exact": self.n_exact,
                "n_irregular": self.n_irregular,
                "n_measured": self.n_measured, "measured_max": self.measured_max,
                "n_hl_train": self.n_hl_train, "n_hl_test": self.n_hl_test, "hl_distance": self.hl_distance,
                "scheme": self.scheme, "level_supported": self.level_supported,
                "rule": self.rule, "formulas": self.formulas, "notes": list(self.notes),
                "seconds": self.seconds,
                "inputs": [self.inputs_of(i) for i in range(len(self.inputs))],
                "beyond": self.factors_beyond,
                "blocks": [{"block": blk, "how": self.how[b], "error": self.error[b], "level": self.level[b],
                            "irregular": self.irregular[b],
                            "baseline_error": self.baseline_error[b] if self.baseline_error else None,
                            "baseline_scales": self.baseline_scales[b] if self.baseline_scales else None}
                           for b, blk in enumerate(self.blocks)],
                "baseline_rule": BASELINE_RULE,
                "predictions": [asdict(r) for r in self.rows()], "totals": [asdict(t) for t in self.totals()]}

    def to_frame(self, provenance: dict | None = None):
        """The prediction table (:mod:`modeling.prediction_table`): one row per (input, block), id
        ``program/block@N=..,M=..``; ``applicable`` is false for an irregular block (``why`` gives the reason) and
        ``baseline`` is the size scaling of :mod:`.baseline`; then program, one column per input parameter, block,
        the held-out errors, irregular, beyond, model, rule, and the provenance (e.g. table fingerprint, code
        version, date) as constant columns."""
        from modeling.prediction_table import frame

        rows = self.rows()

        def at(inputs):
            return ",".join(f"{p}={inputs[p]}" for p in self.params)

        core = {"id": [f"{self.program}/{r.block}@{at(r.inputs)}" for r in rows],
                "predicted": [r.predicted for r in rows],
                "lower": [r.lower for r in rows], "upper": [r.upper for r in rows],
                "level": [r.level for r in rows], "how": [r.how for r in rows],
                "applicable": [r.irregular is None for r in rows],
                "why": [f"irregular block: {r.irregular}" if r.irregular else "" for r in rows],
                "baseline": [r.baseline for r in rows]}
        extra = {"program": self.program, **{p: [r.inputs[p] for r in rows] for p in self.params},
                 "block": [r.block for r in rows],
                 "error_held_out_pct": [r.error for r in rows],
                 "baseline_error_held_out_pct": [r.baseline_error for r in rows],
                 "baseline_scales_with": [r.baseline_scales for r in rows],
                 "irregular": [r.irregular for r in rows],
                 "beyond_measured": [r.beyond for r in rows],
                 "model": self.model, "rule": self.rule, "baseline_rule": BASELINE_RULE}
        return frame(core, extra, provenance)


def _plain(v: float):
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


def _num(v):
    v = float(v)
    return v if math.isfinite(v) else None

