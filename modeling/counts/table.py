"""The count table (BB-ML): ``program``, one column per input size parameter, ``block`` (a basic-block id or
an event name), ``count``. A program's size parameters are the numeric columns it fills; each message says
what is wrong with which program or column."""

from __future__ import annotations

import numpy as np
import pandas as pd

from modeling.errors import DataError

REQUIRED = ("program", "block", "count")


def validate_counts(frame: pd.DataFrame) -> pd.DataFrame:
    """A clean copy of a count table, or ``DataError`` naming the first problem."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise DataError(f"A count table needs the columns program, block and count (and one column per input "
                        f"size); missing: {', '.join(missing)}.")
    df = frame.copy()
    sizes = [c for c in df.columns if c not in REQUIRED]
    if not sizes:
        raise DataError("A count table needs at least one input size column beside program, block and count.")
    if len(df) == 0:
        raise DataError("The count table has no rows.")
    for c in sizes + ["count"]:
        if not pd.api.types.is_numeric_dtype(df[c]):
            bad = df[c][pd.to_numeric(df[c], errors="coerce").isna() & df[c].notna()]
            raise DataError(f"Column {c!r} must be numbers; it holds {str(bad.iloc[0])[:30]!r} "
                            f"(row {int(bad.index[0]) + 2}).")
    cnt = df["count"].astype(float)
    if cnt.isna().any():
        first = int(cnt.index[cnt.isna()][0]) + 2
        raise DataError(f"{int(cnt.isna().sum())} count(s) are missing (NaN), first in row {first}; "
                        "a count table needs every count.")
    if (cnt < 0).any():
        i = cnt.index[cnt < 0][0]
        raise DataError(f"Counts must be zero or more; row {int(i) + 2} has {cnt[i]:g} (a Poisson model cannot "
                        "be trained on negative counts).")
    if not np.all(np.isfinite(cnt)) or (np.abs(cnt - np.round(cnt)) > 1e-9).any():
        i = cnt.index[~np.isfinite(cnt) | (np.abs(cnt - np.round(cnt)) > 1e-9)][0]
        raise DataError(f"Counts must be whole numbers; row {int(i) + 2} has {cnt[i]:g}.")
    df["program"] = df["program"].astype(str)
    df["block"] = df["block"].astype(str)
    df["count"] = cnt.round().astype("int64")
    for prog, g in df.groupby("program", sort=True):
        params = program_params(g)
        if not params:
            raise DataError(f"Program {prog!r} has no input size values.")
        for p in params:
            if g[p].isna().any():
                raise DataError(f"Program {prog!r} has rows without a value of {p!r}.")
            if (g[p] <= 0).any():
                raise DataError(f"Program {prog!r}: input sizes must be positive ({p!r} has {g[p].min():g}).")
        if all(g[p].nunique() < 2 for p in params):
            raise DataError(f"Program {prog!r} was measured at a single input size: nothing to extrapolate from.")
        dup = g.duplicated(params + ["block"])
        if dup.any():
            r = g[dup].iloc[0]
            raise DataError(f"Program {prog!r} has block {r['block']!r} twice at the same input sizes "
                            f"({', '.join(f'{p}={r[p]:g}' for p in params)}).")
    return df


def program_params(g: pd.DataFrame) -> list[str]:
    """The size columns a program fills (in table order), dropping those with a single value."""
    cols = [c for c in g.columns if c not in REQUIRED and g[c].notna().any()]
    varying = [c for c in cols if g[c].nunique() > 1]
    return varying or cols
