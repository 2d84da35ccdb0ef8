"""The offload timing table (LogCA calibration): reading its columns and checking its values.

Columns ``kernel, granularity_bytes, repeat, host_s, accel_s`` (one row per
kernel, offloaded size and repeat; times in seconds), optionally ``host_j,
accel_j`` (energy, joules) and ``clock_hz``; other columns are ignored.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from modeling.errors import DataError

REQUIRED = ("kernel", "granularity_bytes", "repeat", "host_s", "accel_s")


def validate_timing(frame: pd.DataFrame) -> pd.DataFrame:
    """Check columns and values; return the usable rows (numeric, positive)."""
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise DataError(f"the timing table lacks column(s) {missing}; expected {list(REQUIRED)} "
                        "(optional host_j, accel_j).")
    df = frame.copy()
    df["kernel"] = df["kernel"].astype(str).str.strip()
    numeric = ["granularity_bytes", "repeat", "host_s", "accel_s"]
    numeric += [c for c in ("host_j", "accel_j", "clock_hz") if c in df.columns]
    for c in numeric:
        df[c] = pd.to_numeric(df[c], errors="coerce")
    bad = df[numeric[:4]].isna().any(axis=1) | ~np.isfinite(df[numeric[:4]]).all(axis=1)
    bad |= (df["granularity_bytes"] <= 0) | (df["host_s"] <= 0) | (df["accel_s"] <= 0)
    if bad.any():
        rows = [int(i) + 2 for i in np.nonzero(bad.to_numpy())[0][:5]]
        raise DataError(f"{int(bad.sum())} row(s) have a missing, non-numeric or non-positive granularity or "
                        f"time (first at CSV lines {rows}); times must be seconds > 0.")
    return df
