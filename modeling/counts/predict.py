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
from dataclasses import dataclass
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
from modeling.counts.results import RULE, CountPrediction, PredictedCount, PredictedTotal, _plain

PREDICT_MODELS = ("best", "glm", "poly", "pnn-tuned", "pnn-paper", "pnn")
BEST_CANDIDATES = ("glm", "poly", "pnn-tuned")
#: ``how`` of a block best-per-block gave to the size-scaling baseline (it beat every model on the held-out inputs)
BASELINE = "baseline"
MAX_POINTS = 1000
MAX_SIZE = 1e12
MAX_SPEC_CHARS = 20_000
MAX_DENOMINATOR = 720
RANGE_FLOOR = 1e-6
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
    hl_err, hl_q, hl_qmax = {}, {}, {}
    steps = 2 * len(run) + 1
    for k, m in enumerate(run):
        if held is None:
            break
        report(k / steps, f"{prog.name}: {NAMES.get(m, m)} on {held.n} held-out inputs ({held.scheme})")
        p = R.held_out_predictions(held, X, Y, lambda a, b, c, m=m: M.make(m, seed, pnn_settings).fit(a, b)
                                   .predict(c))
        hl_err[m] = block_errors(Y[held.test], p)
        q = R.log_errors(Y[held.test], p)
        hl_q[m], hl_qmax[m] = R.score_quantile(q, held.distance, R.LEVEL), q.max(axis=0)
    base_err = []
    if held is not None:  # the baseline on the same held-out inputs: reported beside, and a candidate of best
        p = R.held_out_predictions(held, X, Y, scaled_counts)
        base_err = [float(e) for e in block_errors(Y[held.test], p)]
        hl_err[BASELINE] = np.array(base_err)
        q = R.log_errors(Y[held.test], p)
        hl_q[BASELINE], hl_qmax[BASELINE] = R.score_quantile(q, held.distance, R.LEVEL), q.max(axis=0)
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
    g = R.growth(X, Y)
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
                w = R.bound(R.half_width(hl_q[m][b:b + 1], dist, held.distance), hl_qmax[m][b:b + 1], g, dist,
                            held.distance)[:, 0] + RANGE_FLOOR
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
