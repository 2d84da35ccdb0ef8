"""From kernel launches to workloads: the rules written once, for the shipped build and for imports.

A profiler prints one row per kernel launch (or per kernel, averaged over its launches). A *workload* is
what the user chooses to predict: a kernel, a kernel at one input, or a whole application run. Two steps
turn the launches of one workload into one row (``modeling.build.rodinia`` and
``modeling.tables.profilers.workloads`` both call them):

1. :func:`average_repeats`: launches of one workload with the same launch configuration and the same
   deterministic work are repeated runs of the same work. Their durations are tested with the +/- k
   scaled-MAD window of HALWPE VI.A (vectorised form of :func:`modeling.tables.repeats.mad_window`: same
   median, same scaled MAD, and a MAD of 0 keeps every run) and every metric is averaged over the kept runs.
2. :func:`combine_parts`: the distinct parts of one workload (LU's perimeter kernel shrinks its grid at
   every step; a whole application run has many kernels) are combined per metric by its kind: ``sum`` for
   counts and times, ``wmean`` for rates and percentages (weighted by each part's duration), ``mean`` for
   launch geometry.
"""

from __future__ import annotations

import pandas as pd

from modeling.tables.repeats import MAD_SCALE

#: How a metric's parts are combined into one workload value.
KINDS = ("sum", "wmean", "mean")


def mad_inliers(values: pd.Series, groups: pd.Series, k: float) -> pd.Series:
    """True for the values inside ``median +/- k * scaled MAD`` of their group (all kept when the MAD is 0)."""
    med = values.groupby(groups).transform("median")
    mad = MAD_SCALE * (values - med).abs().groupby(groups).transform("median")
    return (mad == 0) | ((values - med).abs() <= k * mad)


def average_repeats(df: pd.DataFrame, keys: list, measure: str, columns: list, k: float,
                    first: list) -> pd.DataFrame:
    """One row per group of repeated launches (same ``keys``): ``columns`` averaged over the launches whose
    ``measure`` passes the MAD test, ``repeats_total`` and ``repeats_outliers`` counted, ``first`` taken
    from the group's first launch. Groups are in sorted key order."""
    df = df.reset_index(drop=True)
    gid = df.groupby(keys, sort=True).ngroup()
    inlier = mad_inliers(df[measure], gid, k)
    runs = df.loc[inlier, columns].groupby(gid[inlier]).mean()
    runs["repeats_total"] = gid.value_counts().sort_index()
    runs["repeats_outliers"] = (~inlier).groupby(gid).sum()
    runs[first] = df.groupby(gid)[first].first()
    return runs


def combine_parts(runs: pd.DataFrame, by: list, kinds: dict, weight: str) -> pd.DataFrame:
    """One row per workload (``by``): each metric of ``kinds`` (name -> ``sum`` | ``wmean`` | ``mean``)
    combined over the workload's parts, ``wmean`` weighted by the ``weight`` column; ``launches`` is the
    number of parts, ``repeats_total`` / ``repeats_outliers`` are summed. A metric no part of a workload
    has stays empty (not 0)."""
    by_key = runs.groupby(by, sort=True)
    w = runs[weight]
    cols = {}
    for c, kind in kinds.items():
        if kind == "sum":
            cols[c] = by_key[c].sum(min_count=1)
        elif kind == "wmean":
            cols[c] = (runs[c] * w).groupby([runs[s] for s in by]).sum(min_count=1) / by_key[weight].sum()
        else:
            cols[c] = by_key[c].mean()
    cols["launches"] = by_key.size().astype(float)
    cols["repeats_total"] = by_key["repeats_total"].sum()
    cols["repeats_outliers"] = by_key["repeats_outliers"].sum()
    return pd.concat(cols, axis=1).reset_index()
