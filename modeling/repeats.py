"""Outlier filtering of repeated runs (HALWPE section VI.A).

HALWPE runs every frame many times, drops the runs whose cycles-per-frame lie
outside +/- 7 median absolute deviations of the median, and averages the rest.
The paper cites Leys et al. (2013) for the test; we follow that reference and
use the *scaled* MAD, ``MAD = 1.4826 * median(|x - median(x)|)``, which makes
one MAD equal to one standard deviation for normally distributed runs.
"""

from __future__ import annotations

from dataclasses import dataclass, asdict

import numpy as np

from modeling.errors import DataError

#: Consistency constant of the scaled MAD (1 / Phi^-1(3/4)).
MAD_SCALE = 1.4826
#: HALWPE's empirically chosen window, in MADs.
DEFAULT_K = 7.0


@dataclass
class MadWindow:
    """Result of a MAD test on one set of repeated runs.

    Attributes
    ----------
    median, mad : float
        Median of the runs and the scaled MAD (same unit as the runs).
    k : float
        Half-width of the window in MADs.
    low, high : float
        Window bounds ``median -/+ k * mad``.
    inlier : ndarray of bool, shape (n_runs,)
        True for runs kept.
    mean_all, mean_inliers : float
        Average over all runs and over the kept runs.
    """

    median: float
    mad: float
    k: float
    low: float
    high: float
    inlier: np.ndarray
    mean_all: float
    mean_inliers: float

    @property
    def n_outliers(self) -> int:
        return int((~self.inlier).sum())

    def to_dict(self) -> dict:
        d = asdict(self)
        d["inlier"] = [bool(v) for v in self.inlier]
        d["n_outliers"] = self.n_outliers
        return d


def mad_window(values, k: float = DEFAULT_K) -> MadWindow:
    """Apply the +/- k MAD test to repeated measurements of one workload.

    Parameters
    ----------
    values : array-like, shape (n_runs,)
        Repeated measurements (e.g. cycles per frame or kernel duration).
    k : float, default 7
        Window half-width in scaled MADs (HALWPE VI.A uses 7).

    Returns
    -------
    MadWindow

    Notes
    -----
    When more than half of the runs are identical the MAD is 0 and the window
    collapses onto the median; we then keep every run instead of discarding all
    runs that differ by a single tick. The choice is reported by ``mad == 0``.
    """
    x = np.asarray(values, dtype=float).ravel()
    if x.size == 0:
        raise DataError("No repeated runs to filter: the workload has no measurements.")
    if not np.all(np.isfinite(x)):
        raise DataError("Repeated runs contain NaN or infinite values; clean them before filtering.")
    if not np.isfinite(k) or k <= 0:
        raise DataError(f"The MAD window must be a positive number of MADs, got {k!r}.")
    med = float(np.median(x))
    mad = float(MAD_SCALE * np.median(np.abs(x - med)))
    if mad == 0.0:
        inlier = np.ones(x.size, dtype=bool)
    else:
        inlier = np.abs(x - med) <= k * mad
    return MadWindow(
        median=med,
        mad=mad,
        k=float(k),
        low=med - k * mad,
        high=med + k * mad,
        inlier=inlier,
        mean_all=float(x.mean()),
        mean_inliers=float(x[inlier].mean()),
    )
