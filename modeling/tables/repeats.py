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


def aggregate_repeats(frame, id_col: str, measure: str, k: float = DEFAULT_K, keep_first: list | None = None,
                      keep_unmeasured: bool = False):
    """Collapse repeated runs to one row per workload (HALWPE VI.A).

    For each workload the runs are tested with :func:`mad_window` on ``measure``
    (e.g. the target's cycles per frame); runs outside the window are dropped
    as a whole, and every numeric column is averaged over the kept runs.
    Non-numeric columns (and ``keep_first``) take the workload's first value.
    A workload with no finite ``measure`` in any run is refused, unless
    ``keep_unmeasured``: then it is a workload whose measure was not taken (one
    to predict), nothing can be filtered, and all its runs are averaged (its
    measure stays NaN).

    Returns
    -------
    table : DataFrame, one row per workload, in first-seen order, with
        ``repeats_total`` and ``repeats_outliers`` columns added.
    """
    import pandas as pd

    if id_col not in frame.columns or measure not in frame.columns:
        raise DataError(f"Repeat filtering needs columns {id_col!r} and {measure!r}.")
    numeric = [c for c in frame.columns if c != id_col and pd.api.types.is_numeric_dtype(frame[c])
               and c not in (keep_first or [])]
    other = [c for c in frame.columns if c != id_col and c not in numeric]
    rows = []
    for wid, grp in frame.groupby(id_col, sort=False):
        vals = grp[measure].to_numpy(dtype=float)
        ok = np.isfinite(vals)
        if not ok.any() and not keep_unmeasured:
            raise DataError(f"Workload {wid!r} has no finite {measure!r} value in any repeat.")
        if ok.any():
            win = mad_window(vals[ok], k)
            keep = np.zeros(len(grp), dtype=bool)
            keep[np.flatnonzero(ok)[win.inlier]] = True
        else:
            keep = np.ones(len(grp), dtype=bool)
        row = {id_col: wid}
        row.update({c: grp[c].iloc[0] for c in other})
        row.update(grp.loc[keep, numeric].mean(axis=0).to_dict())
        row["repeats_total"] = int(len(grp))
        row["repeats_outliers"] = int(len(grp) - keep.sum())
        rows.append(row)
    return pd.DataFrame(rows, columns=[id_col, *other, *numeric, "repeats_total", "repeats_outliers"])


@dataclass
class Structure:
    """What a set of repeated runs looks like beyond "a centre and some outliers".

    kind : "level shift" (runs in launch order switch from one level to another once), "bimodal" (two
    levels, interleaved) or "none". ``split`` is the first run of the second level (level shift);
    ``low_share`` the share of runs at the lower level; ``levels`` the two levels' means and
    ``separation`` their distance in pooled standard deviations.
    """

    kind: str
    levels: tuple[float, float] | None = None
    separation: float = 0.0
    split: int | None = None
    low_share: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


#: Two levels count when they are this many pooled standard deviations apart...
MIN_SEPARATION = 4.0
#: ...and the smaller one holds at least this share of the runs (and at least MIN_RUNS runs).
MIN_SHARE = 0.05
MIN_RUNS = 5


def _separation(a: np.ndarray, b: np.ndarray) -> float:
    pooled = np.sqrt((a.var() * a.size + b.var() * b.size) / (a.size + b.size))
    gap = abs(a.mean() - b.mean())
    return float(gap / pooled) if pooled > 0 else (np.inf if gap > 0 else 0.0)


def structure(values) -> Structure:
    """Detect a level shift (one change point in launch order) or two interleaved levels.

    A MAD filter assumes one level with scattered outliers. When the runs sit at
    two levels (e.g. the first runs slower, before clocks or caches settle), it
    calls the smaller level "outliers", which is a decision about which level
    represents the workload, not a filter of noise; this says so instead.
    The change point minimizes the two segments' summed squared error; the
    interleaved case splits the sorted runs at the largest gap (two 1-D
    clusters). Either counts when the levels are ``MIN_SEPARATION`` pooled
    standard deviations apart and the smaller holds ``MIN_SHARE`` of the runs.
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    n = v.size
    least = max(MIN_RUNS, int(np.ceil(MIN_SHARE * n)))
    if n < 2 * least:
        return Structure("none")
    # one change point in launch order
    c1, c2 = np.cumsum(v), np.cumsum(v * v)
    k = np.arange(least, n - least + 1)
    sse_left = c2[k - 1] - c1[k - 1] ** 2 / k
    sse_right = (c2[-1] - c2[k - 1]) - (c1[-1] - c1[k - 1]) ** 2 / (n - k)
    best = int(k[np.argmin(sse_left + sse_right)])
    left, right = v[:best], v[best:]
    sep = _separation(left, right)
    if sep >= MIN_SEPARATION:
        low = left.size / n if left.mean() < right.mean() else right.size / n
        return Structure("level shift", (float(left.mean()), float(right.mean())), sep, best, low)
    # two interleaved levels: split the sorted runs at the largest gap
    s = np.sort(v)
    gaps = np.diff(s)[least - 1: n - least]
    if gaps.size:
        cut = int(np.argmax(gaps)) + least
        lo, hi = s[:cut], s[cut:]
        sep = _separation(lo, hi)
        if sep >= MIN_SEPARATION:
            return Structure("bimodal", (float(lo.mean()), float(hi.mean())), sep, None, lo.size / n)
    return Structure("none")
