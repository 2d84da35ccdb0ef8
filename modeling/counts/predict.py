"""Predict counts at inputs never run: every block's (or event's) count of one program at input sizes the user
gives, from a model fitted on ALL the measured inputs (BB-ML's use: size a simulation, or predict event totals,
of inputs too big to run).

How each block's count is obtained (``how``):

* ``exact`` - the block's measured counts are an integer polynomial of the sizes: the least-squares polynomial
  of :class:`modeling.counts.models.PolynomialCounts` reproduced every measured count (with points to spare),
  its coefficients, read as fractions with denominators up to :data:`MAX_DENOMINATOR`, reproduce every measured
  count again in exact integer arithmetic, and the count at a new input is that polynomial evaluated exactly.
  Its range is the point itself.
* a model name (``glm``, ``poly``, ``pnn-paper``, ``pnn-tuned``, ``pnn``) - the model fitted on all measured
  inputs. Its ``error`` is the mean APE it reached on this block on the *held-out inputs* of the measured ones
  (:mod:`modeling.counts.ranges`: BB-ML's high-low split when it holds out enough inputs, else
  leave-one-input-out, each input predicted from the inputs not at least as large in every size: the
  extrapolation situation). With ``best``, each block takes the candidate (:data:`BEST_CANDIDATES`) with the
  lowest such error, or the baseline (``how`` = ``baseline``) when it beats them all; exact blocks the exact
  polynomial.

The range (``lower``, ``upper``) of a model's count is at a stated ``level`` (90 %, or the highest level the
number of held-out inputs supports, with a note): :mod:`modeling.counts.ranges` gives the rule (a split-
conformal quantile of the held-out log errors per unit of distance extrapolated, stretched to the new input's
distance beyond the measured inputs, :func:`beyond`). The coverage reached is measured by
``benchmarks/counts_holdout.py``.

Beside every count stands the baseline a careful user would use (:mod:`modeling.counts.baseline`): the count at
the nearest measured input scaled by the sizes the block depends on (a per-block power law with whole
exponents), with its error on the same held-out inputs.

A block no model predicts within 5 % on the held-out inputs is *irregular*, with the reason read from the form
of its measured counts (:func:`modeling.counts.forms.irregular_reason`: a step such as floor(BINS/4), a
remainder, the sizes it does not depend on). Totals: per input, the sum over blocks
(basic-block tables; summing different events means nothing); per block or event, the sum over the requested
inputs; their range is the sum of the ranges (it holds whenever every block's range holds).
"""

from __future__ import annotations

import itertools
import math
import re
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import numpy as np

from modeling.counts import models as M
from modeling.counts import ranges as R
from modeling.counts.baseline import RULE as BASELINE_RULE
from modeling.counts.baseline import fit_power_law, scaled_counts
from modeling.counts.data import Program
from modeling.counts.evaluate import IRREGULAR_PCT, NAMES, block_errors
from modeling.counts.forms import irregular_reason
from modeling.counts.ranges import beyond
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.results import TRANSIENT, Result

PREDICT_MODELS = ("best", "glm", "poly", "pnn-tuned", "pnn-paper", "pnn")
BEST_CANDIDATES = ("glm", "poly", "pnn-tuned")
#: ``how`` of a block best-per-block gave to the size-scaling baseline (it beat every model on the held-out inputs)
BASELINE = "baseline"
MAX_POINTS = 1000
MAX_SIZE = 1e12
MAX_SPEC_CHARS = 20_000
MAX_DENOMINATOR = 720
RANGE_FLOOR = 1e-6
RULE = ("range at the level printed: (predicted + 0.5) x exp(+-w) - 0.5, w = the k-th smallest of the block's "
        "held-out |log ratio| / distance beyond, k = ceil((n + 1) x level), times max(distance beyond the measured "
        "inputs, the held-out inputs' median distance); exact: the point itself")
__all__ = ["BASELINE_RULE", "RULE", "beyond", "predict_counts", "parse_inputs", "CountPrediction", "PredictedCount",
           "PredictedTotal"]


# ------------------------------------------------------------------ inputs

_FACTOR = re.compile(r"\s+[xX]\s+|\s*[×*]\s*")


def _number(tok: str, name: str) -> float:
    try:
        v = float(tok)
    except ValueError:
        raise DataError(f"{name} = {tok[:30]!r} is not a number.") from None
    if not math.isfinite(v) or v <= 0:
        raise DataError(f"{name} = {tok[:30]!r}: input sizes must be positive finite numbers.")
    if v > MAX_SIZE:
        raise DataError(f"{name} = {tok[:30]!r} is above {MAX_SIZE:.0e}, the largest size predicted.")
    return v


def _name(raw: str, params: tuple[str, ...]) -> str:
    if raw in params:
        return raw
    same = [p for p in params if p.lower() == raw.lower()]
    if len(same) == 1:
        return same[0]
    raise DataError(f"Unknown input parameter {raw[:40]!r}: this program's inputs are {', '.join(params)}.")


def parse_spec(text: str, params: tuple[str, ...]) -> list[dict]:
    """The points of one spec: ``N=4096,M=2048`` (a point) or ``N=1024,2048,4096 x M=512`` (a grid: every
    combination; factors separated by `` x ``, ``×`` or ``*``; a value without a name continues the previous
    parameter's list; with a single parameter the name may be left out)."""
    if not isinstance(text, str) or not text.strip():
        raise DataError("An input spec is empty: write e.g. " + ", ".join(f"{p}=1024" for p in params) + ".")
    values: dict[str, list[float]] = {}
    for factor in _FACTOR.split(text.strip()):
        current = None
        for tok in (t.strip() for t in factor.split(",")):
            if not tok:
                continue
            if "=" in tok:
                raw, _, val = tok.partition("=")
                current = _name(raw.strip(), params)
                if current in values:
                    raise DataError(f"{current} is given twice in {text[:80]!r}.")
                values[current] = []
                tok = val.strip()
            elif current is None:
                if len(params) != 1:
                    raise DataError(f"{tok[:30]!r} in {text[:80]!r} has no parameter name: write "
                                    f"{params[0]}={tok[:30]}.")
                current = params[0]
                values.setdefault(current, [])
            values[current].append(_number(tok, current))
    missing = [p for p in params if not values.get(p)]
    if missing:
        raise DataError(f"{text[:80]!r} gives no value of {', '.join(missing)} (this program's inputs are "
                        f"{', '.join(params)}).")
    n = math.prod(len(values[p]) for p in params)
    if n > MAX_POINTS:
        raise DataError(f"{text[:80]!r} makes {n:,} input points; at most {MAX_POINTS:,} are predicted at once.")
    return [dict(zip(params, combo)) for combo in itertools.product(*(values[p] for p in params))]


def parse_inputs(specs, params) -> np.ndarray:
    """Input points (points x params, in ``params`` order, duplicates dropped) from specs (see
    :func:`parse_spec`); ``DataError`` naming the first problem."""
    params = tuple(params)
    if isinstance(specs, str):
        specs = [specs]
    specs = [s for s in specs or [] if isinstance(s, str) and s.strip()]
    if not specs:
        raise DataError("No input to predict at: give e.g. " + ",".join(f"{p}=4096" for p in params) + ".")
    if sum(len(s) for s in specs) > MAX_SPEC_CHARS:
        raise DataError(f"The inputs are longer than {MAX_SPEC_CHARS:,} characters.")
    points: list[tuple] = []
    for s in specs:
        for pt in parse_spec(s, params):
            points.append(tuple(pt[p] for p in params))
            if len(points) > MAX_POINTS:
                raise DataError(f"More than {MAX_POINTS:,} input points; at most {MAX_POINTS:,} are predicted at "
                                "once.")
    return np.array(list(dict.fromkeys(points)), dtype=float)


# ------------------------------------------------------------------ exact polynomials

def _exponents(p: int, degree: int) -> list[tuple[int, ...]]:
    """Exponent vectors in the column order of :func:`modeling.counts.models.monomials`."""
    out = [(0,) * p]
    for d in range(1, degree + 1):
        for combo in itertools.combinations_with_replacement(range(p), d):
            e = [0] * p
            for j in combo:
                e[j] += 1
            out.append(tuple(e))
    return out


@dataclass(frozen=True)
class ExactPolynomial:
    """An integer-valued polynomial in the sizes with rational coefficients, evaluated exactly."""

    terms: tuple  # ((Fraction coefficient, exponents), ...), zero terms dropped

    def __call__(self, X) -> np.ndarray:
        out = []
        for row in np.asarray(X, float):
            xs = [Fraction(v) for v in row]
            total = Fraction(0)
            for c, e in self.terms:
                term = c
                for x, k in zip(xs, e):
                    if k:
                        term *= x ** k
                total += term
            out.append(float(total))
        return np.array(out)

    def text(self, params) -> str:
        parts = []
        for c, e in self.terms:
            mono = "·".join(f"{p}^{k}" if k > 1 else p for p, k in zip(params, e) if k)
            parts.append(f"{c}" if not mono else (mono if c == 1 else f"{c}·{mono}"))
        return " + ".join(parts) or "0"


def exact_polynomial(poly: M.PolynomialCounts, b: int, X: np.ndarray, y: np.ndarray) -> ExactPolynomial | None:
    """Block ``b``'s polynomial of a fitted :class:`PolynomialCounts` (marked exact) with its coefficients in
    raw sizes read as fractions; returned only when it reproduces every measured count in integer arithmetic."""
    if not poly.exact_[b]:
        return None
    X = np.asarray(X, float)
    if not np.all(X == np.round(X)):
        return None
    exps = _exponents(X.shape[1], int(poly.degree_[b]))
    terms = []
    for c, e in zip(poly.coef_[b], exps):
        raw = float(c) / float(np.prod(poly.unit_ ** np.array(e)))
        f = Fraction(raw).limit_denominator(MAX_DENOMINATOR)
        if f != 0:
            terms.append((f, e))
    denom = math.lcm(*(t[0].denominator for t in terms)) if terms else 1
    ints = [(int(c * denom), e) for c, e in terms]
    for row, count in zip(X.astype(int).tolist(), np.round(y).astype(int).tolist()):
        total = 0
        for c, e in ints:
            term = c
            for x, k in zip(row, e):
                if k:
                    term *= x ** k
            total += term
        if total != count * denom:
            return None
    return ExactPolynomial(tuple(terms))


# ------------------------------------------------------------------ result

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

    def summary(self) -> dict:
        """The flat JSON summary the command line prints: every row and total, derived counts included."""
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


# ------------------------------------------------------------------ predicting

def _kind(blocks) -> str:
    return "blocks" if all(re.fullmatch(r".+:\d+", b) for b in blocks) else "events"


def _check_model(model: str) -> str:
    if model not in PREDICT_MODELS:
        raise ConfigError(f"unknown count model {model!r} (choose {', '.join(PREDICT_MODELS)})")
    return model


def _range(pred: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lower, upper) of predictions (points x blocks) with log half-widths w (points x blocks)."""
    lo = np.maximum((pred + 0.5) * np.exp(-w) - 0.5, 0.0)
    hi = (pred + 0.5) * np.exp(w) - 0.5
    return lo, hi


def predict_counts(prog: Program, X_new, model: str = "best", seed: int = 0, pnn_settings: dict | None = None,
                   candidates=BEST_CANDIDATES, progress=None) -> CountPrediction:
    """Every block's count of ``prog`` at the inputs ``X_new`` (points x ``prog.params``; see
    :func:`parse_inputs`), by ``model`` fitted on all of ``prog``'s measured inputs. See the module docstring
    for ``how``, the error, the range rule and irregular blocks."""
    t0 = time.perf_counter()
    model = _check_model(model)
    X_new = np.asarray(X_new, dtype=float)
    if X_new.ndim != 2 or X_new.shape[1] != len(prog.params):
        raise DataError(f"Inputs to predict need one value per parameter ({', '.join(prog.params)}).")
    if len(X_new) == 0:
        raise DataError("No input to predict at.")
    if len(X_new) > MAX_POINTS:
        raise DataError(f"{len(X_new):,} input points; at most {MAX_POINTS:,} are predicted at once.")
    if not np.all(np.isfinite(X_new)) or (X_new <= 0).any() or (X_new > MAX_SIZE).any():
        raise DataError(f"Input sizes must be positive finite numbers up to {MAX_SIZE:.0e}.")
    X, Y = prog.X, M.check_counts(prog.Y)
    run = list(dict.fromkeys([*(candidates if model == "best" else [model]), "glm", "poly"]))
    report = progress or (lambda f, label: None)
    notes = []
    # the held-out inputs of the measured ones (ranges.py): each model's error per block when extrapolating
    try:
        held = R.held_out(X, seed)
    except NotEnoughDataError as exc:
        held = None
        notes.append(f"No measured input can be held out ({exc}): no error or range for model-predicted counts.")
    if held is not None and (n := held.note()):
        notes.append(n)
    hl_err, hl_q = {}, {}
    steps = 2 * len(run) + 1
    for k, m in enumerate(run):
        if held is None:
            break
        report(k / steps, f"{prog.name}: {NAMES.get(m, m)} on {held.n} held-out inputs ({held.scheme})")
        p = R.held_out_predictions(held, X, Y, lambda a, b, c, m=m: M.make(m, seed, pnn_settings).fit(a, b)
                                   .predict(c))
        hl_err[m] = block_errors(Y[held.test], p)
        hl_q[m] = R.score_quantile(R.log_errors(Y[held.test], p), held.distance, R.LEVEL)
    base_err = []
    if held is not None:  # the baseline on the same held-out inputs: reported beside, and a candidate of best
        p = R.held_out_predictions(held, X, Y, scaled_counts)
        base_err = [float(e) for e in block_errors(Y[held.test], p)]
        hl_err[BASELINE] = np.array(base_err)
        hl_q[BASELINE] = R.score_quantile(R.log_errors(Y[held.test], p), held.distance, R.LEVEL)
    # every model on all the measured inputs
    fitted, preds = {}, {}
    for k, m in enumerate(run):
        report((len(run) + k) / steps, f"{prog.name}: {NAMES.get(m, m)} on all {len(X)} measured inputs")
        fitted[m] = M.make(m, seed, pnn_settings).fit(X, Y)
        preds[m] = np.maximum(fitted[m].predict(X_new), 0.0)
    law = fit_power_law(X, Y)
    preds[BASELINE] = scaled_counts(X, Y, X_new, law)
    report((2 * len(run)) / steps, f"{prog.name}: exact polynomials and ranges")
    exact = {b: e for b in range(len(prog.blocks))
             if (e := exact_polynomial(fitted["poly"], b, X, Y[:, b])) is not None}
    exact_pred = {b: e(X_new) for b, e in exact.items()}
    dist = beyond(X_new, X)
    n_blocks = len(prog.blocks)

    def assemble(m_of_block):
        pred = np.zeros((len(X_new), n_blocks))
        lo, hi = np.full_like(pred, np.nan), np.full_like(pred, np.nan)
        how, err, lev = [], [], []
        for b in range(n_blocks):
            m = m_of_block[b]
            if m == "exact":
                pred[:, b] = lo[:, b] = hi[:, b] = exact_pred[b]
                how.append("exact")
                err.append(float(hl_err["poly"][b]) if "poly" in hl_err else None)
                lev.append(1.0)
                continue
            pred[:, b] = preds[m][:, b]
            how.append(m)
            if m in hl_q:
                w = R.half_width(hl_q[m][b:b + 1], dist, held.distance)[:, 0] + RANGE_FLOOR
                lo[:, b], hi[:, b] = _range(pred[:, b], w)
                err.append(float(hl_err[m][b]))
                lev.append(held.level)
            else:
                err.append(None)
                lev.append(None)
        return pred, lo, hi, how, err, lev

    if model == "best":
        cands = [m for m in [*candidates, BASELINE] if m in hl_err] or [candidates[0]]
        choice = []
        for b in range(n_blocks):
            if b in exact:
                choice.append("exact")
            elif len(cands) > 1:
                # errors equal to 1e-6 % (rounding) are a tie, won by the first candidate (models before the baseline)
                choice.append(min(cands, key=lambda m: (round(float(hl_err[m][b]), 6), cands.index(m))))
            else:
                choice.append(cands[0])
    else:
        choice = ["exact" if (b in exact and model == "poly") else model for b in range(n_blocks)]
    pred, lo, hi, how, err, lev = assemble(choice)
    by_model = {}
    for m in [*run, BASELINE]:
        mp, ml, mh, *_ = assemble([m] * n_blocks)
        by_model[m] = {"predicted": mp, "lower": ml, "upper": mh}
    irregular = []
    for b in range(n_blocks):
        if (b not in exact and any(m in hl_err for m in run)
                and min(float(hl_err[m][b]) for m in run if m in hl_err) > IRREGULAR_PCT):
            irregular.append(irregular_reason(X, Y[:, b], prog.params))
        else:
            irregular.append(None)
    return CountPrediction(
        program=prog.name, params=list(prog.params), model=model, blocks=list(prog.blocks),
        kind=_kind(prog.blocks), inputs=X_new, predicted=pred, lower=lo, upper=hi, how=how, error=err, level=lev,
        irregular=irregular, beyond=dist, n_measured=int(len(X)),
        measured_max={p: _plain(v) for p, v in zip(prog.params, X.max(axis=0))},
        n_hl_train=0 if held is None else held.n_train, n_hl_test=0 if held is None else held.n,
        hl_distance=None if held is None else float(math.exp(float(np.median(held.distance)))),
        scheme=None if held is None else held.scheme, level_supported=held is not None and held.supported,
        formulas={prog.blocks[b]: e.text(prog.params) for b, e in exact.items()}, notes=notes, by_model=by_model,
        baseline=preds[BASELINE], baseline_error=base_err,
        baseline_scales=[law.text(b, prog.params) for b in range(n_blocks)], seconds=time.perf_counter() - t0)
