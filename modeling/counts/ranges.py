"""Held-out inputs for a count prediction's errors, model choice and ranges, and the range at a stated level.

**Which inputs are held out.** BB-ML's high-low split (sec. 4.3) tests on the inputs with every size above 70 %
of its range; on a small grid that is one input (a 4 x 4 grid: the largest corner only), and a range from one
error is a 50 % range whatever it claims. So:

* ``high-low`` - used when it holds out at least :data:`MIN_HELD_OUT` inputs (what :data:`LEVEL` needs, below);
* ``leave-one-input-out`` - otherwise: every measured input t in turn is predicted from the measured inputs
  that are *not at least as large as t in every size* (the inputs that dominate t are held out with it, so t
  always lies beyond its training inputs, as a new input does); an input whose training set has fewer than
  :data:`MIN_FOLD_TRAIN` inputs or a single value of some size is skipped; at most :data:`MAX_FOLDS` inputs,
  the largest first (their training sets are the closest to the final model's). Used when it holds out more
  inputs than high-low.

**The range.** Per held-out input t and block: the log error q = |log((measured + 0.5) / (predicted + 0.5))|
and the distance d_t the input lies beyond its training inputs (:func:`modeling.counts.predict.beyond`); the
score is the error per unit of log distance, s = q / d_t (a model's log error grows about linearly with how
far it extrapolates: an exponent off by e gives e x log distance). With n scores, the half-width at a new input
D beyond the measured ones is w = s_(k) x max(D, median d_t), s_(k) the k-th smallest score, k = ceil((n + 1)
x LEVEL) (split conformal: a new exchangeable score falls at or below it with probability >= LEVEL). With
n < MIN_HELD_OUT the level cannot be reached; the largest score is used and the level it supports, n / (n + 1),
is the one printed, with a note saying so.

**The bound.** The rate s is an error per unit of log distance; a block whose counts barely move (0, 1, 2 at
every input) has held-out log errors of order log(2.5 / 0.5) however close the held-out input lies, so its
rate, divided by a small distance, can be large and the range [0, 1e14] for a count of 2. Chosen here: the half-
width never exceeds what a model that missed the block's dependence on the sizes entirely would need, the
block's largest held-out log error plus the steepest growth of any block of the program over the distance
(:func:`bound`: q_max + g x max(D, median d_t), g the largest |exponent| of the blocks' power-law fits,
:mod:`modeling.counts.baseline`). A count can be off by no more than the program's fastest-growing count grows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modeling.counts.splits import split
from modeling.errors import NotEnoughDataError
from modeling.intervals.conformal import conformal_quantile, units_needed

LEVEL = 0.9
MIN_HELD_OUT = units_needed(LEVEL)  # the fewest n with ceil((n + 1) LEVEL) <= n: 9 at 90 %
MAX_FOLDS = 19
MIN_FOLD_TRAIN = 4


def beyond(X_new: np.ndarray, X_known: np.ndarray) -> np.ndarray:
    """How far each new input lies beyond the known ones: min over known inputs t of sum_j max(0, log x_j -
    log t_j) (0 when some known input is at least as large in every size)."""
    L_new, L_known = np.log(np.asarray(X_new, float)), np.log(np.asarray(X_known, float))
    out = np.empty(len(L_new))
    for i, row in enumerate(L_new):
        out[i] = np.maximum(row[None, :] - L_known, 0.0).sum(axis=1).min()
    return out


@dataclass(frozen=True)
class HeldOut:
    """The held-out inputs of one program: folds (train rows, test rows), every test row in fold order, and
    each test input's distance beyond its fold's training inputs."""

    scheme: str                 # "high-low" or "leave-one-input-out"
    folds: tuple                # ((train rows, test rows), ...)
    test: np.ndarray            # held-out rows, fold order
    distance: np.ndarray        # per held-out row: log distance beyond its training inputs (> 0)

    @property
    def n(self) -> int:
        return int(len(self.test))

    @property
    def n_train(self) -> int:
        """Training inputs of the (median) fold."""
        return int(np.median([len(tr) for tr, _ in self.folds]))

    @property
    def level(self) -> float:
        """The level the ranges reach: :data:`LEVEL`, or n / (n + 1) when n is too small for it."""
        return LEVEL if self.n >= MIN_HELD_OUT else self.n / (self.n + 1)

    @property
    def supported(self) -> bool:
        return self.n >= MIN_HELD_OUT

    def describe(self) -> str:
        if self.scheme == "high-low":
            return (f"the high-low split of the measured inputs ({self.n_train} training, {self.n} held-out "
                    "inputs with every size above 70 % of its range)")
        return (f"leave-one-input-out: {self.n} measured inputs each predicted from the inputs not at least as "
                f"large in every size (median {self.n_train} training inputs)")

    def note(self) -> str | None:
        if self.supported:
            return None
        return (f"Only {self.n} held-out input{'s' if self.n != 1 else ''} ({self.scheme}): the ranges are at "
                f"{self.level:.0%}, the most {self.n} held-out errors support; a {LEVEL:.0%} range needs at least "
                f"{MIN_HELD_OUT}. Measure more inputs (more values of each size) for {LEVEL:.0%} ranges.")


def _loo(X: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    varying = X.max(axis=0) > X.min(axis=0)
    V = X[:, varying]
    folds = []
    for t in range(len(X)):
        train = np.flatnonzero(~np.all(V >= V[t], axis=1))
        if len(train) < MIN_FOLD_TRAIN or any(len(np.unique(V[train, j])) < 2 for j in range(V.shape[1])):
            continue
        folds.append((train, np.array([t])))
    size = np.log(X).sum(axis=1)
    folds.sort(key=lambda f: (-size[f[1][0]], -f[1][0]))
    return folds[:MAX_FOLDS]


def held_out(X: np.ndarray, seed: int = 0) -> HeldOut:
    """The held-out scheme of the module docstring; ``NotEnoughDataError`` when neither holds out an input."""
    X = np.asarray(X, float)
    try:
        hl = [split(X, "high-low", seed)]
    except NotEnoughDataError:
        hl = []
    n_hl = len(hl[0][1]) if hl else 0
    folds = hl
    scheme = "high-low"
    if n_hl < MIN_HELD_OUT:
        loo = _loo(X)
        if len(loo) > n_hl:
            folds, scheme = loo, "leave-one-input-out"
    if not folds:
        raise NotEnoughDataError("No measured input lies beyond enough others to be held out (neither a high-low "
                                 "split nor leave-one-input-out): measure at least two values of every size.")
    test = np.concatenate([te for _, te in folds])
    dist = np.concatenate([beyond(X[te], X[tr]) for tr, te in folds])
    return HeldOut(scheme, tuple(folds), test, dist)


def held_out_predictions(h: HeldOut, X: np.ndarray, Y: np.ndarray, fit_predict) -> np.ndarray:
    """Predictions (held-out rows x blocks, in ``h.test`` order) of ``fit_predict(X_train, Y_train, X_test)``
    trained on each fold's training rows."""
    return np.vstack([np.asarray(fit_predict(X[tr], Y[tr], X[te]), float) for tr, te in h.folds])


def log_errors(actual: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return np.abs(np.log((actual + 0.5) / (np.maximum(pred, 0.0) + 0.5)))


def score_quantile(q: np.ndarray, distance: np.ndarray, level: float = LEVEL) -> np.ndarray:
    """Per block: the k-th smallest score q / d over the held-out inputs, k = ceil((n + 1) level), or the
    largest when k > n (module docstring)."""
    return conformal_quantile(np.asarray(q, float) / np.asarray(distance, float)[:, None], level)[0]


def growth(X: np.ndarray, Y: np.ndarray) -> float:
    """The steepest growth of any block's count per unit of log distance: the largest |exponent| of the blocks'
    power-law fits on the measured inputs (0 when every count is constant)."""
    from modeling.counts.baseline import fit_power_law

    fitted = fit_power_law(X, Y).fitted
    return float(np.abs(fitted).max()) if fitted.size else 0.0


def bound(w: np.ndarray, q_max: np.ndarray, g: float, D: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """Log half-widths (points x blocks) ``w`` bounded by q_max + g x max(D, median held-out distance) (module
    docstring, "The bound"); ``q_max`` the block's largest held-out log error."""
    reach = np.maximum(np.asarray(D, float), float(np.median(distance)))
    return np.minimum(np.asarray(w, float), np.asarray(q_max, float)[None, :] + g * reach[:, None])


def half_width(quantile: np.ndarray, D: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """Log half-widths (points x blocks): quantile x max(D, median held-out distance)."""
    reach = np.maximum(np.asarray(D, float), float(np.median(distance)))
    return reach[:, None] * np.asarray(quantile, float)[None, :]
