"""Which target transform to start from, given the scale of a table's target.

The papers fit the target as it is (transform ``"none"``): their cycles per frame span about one order
of magnitude. A table whose workloads run from microseconds to minutes is another matter: a model fitted
on absolute values is driven by the few largest workloads and misses the small ones by factors, so the
leaderboard fills with E_out above 1,000 %. A public CPU table (6,134 runs, run times over six orders of
magnitude, the host run time mapped) gave 13 of 15 models above 1,000 % with ``"none"``, and 2.65 % (forest)
/ 5.3 % (linear models) with ``"ratio"``.

Modelling the target relative to the host's own measure removes the scale: the models then learn how much
faster or slower the target is, a number near 1 for every workload. Between ``"ratio"`` and
``"logratio"`` the rule picks ``"logratio"``: on synthetic tables of 600 workloads whose host times span
six orders of magnitude (target = host time x a speedup that depends on the memory-bound share, with
lognormal noise), 5-fold CV, the 13 HALWPE models:

============  ==================  ========================  =========================
noise sigma   none: best / >1000%  ratio: best / median      logratio: best / median
============  ==================  ========================  =========================
0.05 (x2)     22.7 % / 12 of 13    9.3 % / 19.2 %            9.0 % / 18.8 %
0.3 (x2)      39.4 % / 12 of 13    29.5 % / 33.4 %           27.4 % / 30.7 %
0.6           88.9 % / 12 of 13    73.1 % / 74.0 %           57.3 % / 58.0 %
============  ==================  ========================  =========================

(second seeds alike). The log of the ratio fits the median ratio, which is what a percentage error
rewards, and a noisy workload pulls it less; with little noise the two are within a few tenths of a
point. ``"log"`` alone does not help (12 of 13 models still above 1,000 %: the features keep their scale).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Above this ratio of the target's 95th to 5th percentile (two orders of magnitude), the default
#: transform is the log ratio to the host's metric (when one is mapped).
SPAN_LIMIT = 100.0

#: The transforms that model the target relative to the host's metric (scale-free).
RELATIVE = ("ratio", "logratio")


@dataclass(frozen=True)
class TransformChoice:
    """The default transform of a scenario and why.

    Attributes
    ----------
    transform : str
        One of ``modeling.crossgen.ensemble.TRANSFORMS``.
    reason : str
        One sentence a user can read: the target's span and what follows from it.
    span : float or None
        95th / 5th percentile of the positive, finite target values (None with fewer than 2 of them).
    wide : bool
        True when ``span > SPAN_LIMIT``: absolute fits (``"none"``, ``"log"``) are then likely absurd.
    relative_possible : bool
        True when the host metric is given, positive and finite wherever the target is measured.
    """

    transform: str
    reason: str
    span: float | None
    wide: bool
    relative_possible: bool

    def to_dict(self) -> dict:
        return {"transform": self.transform, "reason": self.reason, "span": self.span, "wide": self.wide,
                "relative_possible": self.relative_possible}


def target_span(y) -> float | None:
    """Ratio of the 95th to the 5th percentile of the positive, finite values of ``y``.

    Parameters
    ----------
    y : array_like, shape (n,)
        Target values (missing values as NaN are ignored, as are values <= 0, which the ensemble
        excludes from training).

    Returns
    -------
    float or None
        The span (>= 1), or None when fewer than 2 values are positive and finite.
    """
    v = np.asarray(y, dtype=float).ravel()
    v = v[np.isfinite(v) & (v > 0)]
    if len(v) < 2:
        return None
    lo, hi = np.percentile(v, [5, 95])
    return float(hi / lo)


def _orders(span: float) -> str:
    return f"{span:,.0f}x (about {np.log10(span):.1f} orders of magnitude)" if span >= 10 else f"{span:.1f}x"


def default_transform(y, host=None, limit: float = SPAN_LIMIT) -> TransformChoice:
    """The transform a scenario starts from when the user did not name one.

    Rule: ``"logratio"`` when the host's own metric is given (positive and finite wherever the target is
    measured) and the target spans more than ``limit`` (95th over 5th percentile, see
    :func:`target_span`); otherwise ``"none"``, the papers' choice.

    Parameters
    ----------
    y : array_like, shape (n,)
        The target per workload (NaN for a workload not measured on the target).
    host : array_like, shape (n,), optional
        The host's own measure of the same metric per workload, aligned with ``y``; None when the table
        has none mapped (the ratio transforms are then impossible).
    limit : float
        The span above which a relative transform is chosen (default :data:`SPAN_LIMIT`, 100).

    Returns
    -------
    TransformChoice
    """
    y = np.asarray(y, dtype=float).ravel()
    span = target_span(y)
    wide = span is not None and span > limit
    relative = False
    if host is not None:
        h = np.asarray(host, dtype=float).ravel()
        if h.shape != y.shape:
            raise ValueError(f"host has {h.size} values, the target {y.size}")
        measured = np.isfinite(y) & (y > 0)
        relative = bool(measured.any()) and bool(np.all(np.isfinite(h[measured]) & (h[measured] > 0)))
    if span is None:
        return TransformChoice("none", "too few target values to judge their scale: the papers' transform, none.",
                               None, False, relative)
    where = f"the target spans {_orders(span)} between its 5th and 95th percentiles"
    if not wide:
        return TransformChoice("none", f"{where[0].upper()}{where[1:]}, within {limit:,.0f}x: the papers' "
                               "transform, none (the target as it is).", span, False, relative)
    if relative:
        return TransformChoice("logratio", f"{where[0].upper()}{where[1:]}, more than {limit:,.0f}x: models fitted "
                               "on absolute values would be driven by the largest workloads, so they model the log "
                               "of the target's ratio to the host's metric (scale-free).", span, True, True)
    why = ("no host metric is mapped" if host is None
           else "the host metric is missing, zero or negative for some measured workloads")
    return TransformChoice("none", f"{where[0].upper()}{where[1:]}, more than {limit:,.0f}x, but {why}, so the "
                           "ratio transforms are impossible: expect large percentage errors on the smallest "
                           "workloads.", span, True, False)


def transform_warning(transform: str, choice: TransformChoice) -> str | None:
    """A warning before the run when ``transform`` fits absolute values on a target of wide span.

    Returns None when the chosen transform is relative to the host, the span is within the limit, or no
    relative transform is possible (the choice's reason already says so)."""
    if not choice.wide or not choice.relative_possible or transform in RELATIVE:
        return None
    return (f"Transform {transform!r} fits the target's absolute values, which span {_orders(choice.span)}: "
            "expect most models to miss the small workloads by factors (E_out above 1,000 % is common on such "
            "tables). The log ratio (or ratio) to the host's metric is scale-free.")
