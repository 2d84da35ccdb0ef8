"""Error measures of HALWPE IV.F and RastSim 4.3 (eqs. 3-5).

All percentages are numbers in percent (12.5 means 12.5 %).
"""

from __future__ import annotations

import numpy as np

from modeling.errors import DataError

#: Inlier-ratio thresholds of RastSim Fig. 13, in percent.
THRESHOLDS = (1, 5, 10, 15, 20, 30, 40, 50)
#: A target counts as "too small for a percentage error" below this fraction of
#: the median positive target (and always when <= 0): such rows are excluded
#: and counted instead of producing 1e15 % errors.
TINY_RELATIVE = 1e-9


def percent_safe(y) -> np.ndarray:
    """Mask of rows whose target can carry a percentage error."""
    y = np.asarray(y, dtype=float)
    pos = y[np.isfinite(y) & (y > 0)]
    if pos.size == 0:
        return np.zeros(y.shape, dtype=bool)
    return np.isfinite(y) & (y > TINY_RELATIVE * float(np.median(pos)))


def ape(y, y_pred) -> np.ndarray:
    """Absolute percentage error per workload, RastSim eq. (4): ``100 |y - f(x)| / |y|``."""
    y = np.asarray(y, dtype=float)
    y_pred = np.asarray(y_pred, dtype=float)
    if y.shape != y_pred.shape:
        raise DataError(f"{y.size} observed values but {y_pred.size} predictions.")
    if np.any(y == 0):
        raise DataError("A percentage error needs non-zero observed values; exclude targets equal to 0.")
    return 100.0 * np.abs(y - y_pred) / np.abs(y)


def mean_ape(y, y_pred) -> float:
    """Mean APE. With out-of-fold predictions this is E_out, RastSim eq. (3);
    with in-sample predictions it is E_in."""
    return float(np.mean(ape(y, y_pred)))


def inlier_ratio(apes, threshold) -> float:
    """Percentage of workloads with APE <= T, RastSim eq. (5)."""
    a = np.asarray(apes, dtype=float)
    if a.size == 0:
        raise DataError("No workloads to compute an inlier ratio on.")
    return float(100.0 * np.mean(a <= threshold))


def inlier_ratios(apes, thresholds=THRESHOLDS) -> dict[str, float]:
    """Inlier ratio at each threshold, keyed by the threshold as text ("10")."""
    return {f"{t:g}": inlier_ratio(apes, t) for t in thresholds}
