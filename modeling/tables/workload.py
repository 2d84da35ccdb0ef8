"""Scenarios from a user's workload table (CSV or Parquet).

The canonical workload table has one row per workload: an id column, an
optional group column (the application, for grouped CV), numeric feature
columns measured on the host, and one or more target columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from modeling.errors import DataError


def _missing(df: pd.DataFrame, cols) -> list[str]:
    return [c for c in cols if c not in df.columns]


def table_scenario(df: pd.DataFrame, target: str, group: str | None = None, id_col: str | None = None,
                   features: list[str] | None = None, host_col: str | None = None,
                   conversions: dict | None = None) -> dict:
    """Build the inputs of ``run_ensemble`` from a table.

    Features default to every numeric column other than target, id and group.
    Rows with missing features are dropped and counted. Rows whose target is
    empty (a missing value) are not training rows: when their features are
    complete they are kept apart as ``unmeasured`` (``X``, ``workload_ids``,
    ``groups``), the workloads a prediction is for. An infinite target is
    refused (the message counts the rows), as it is a measurement gone wrong,
    not one that was never made.
    """
    named = [c for c in [target, group, id_col, host_col] if c] + list(features or [])
    miss = _missing(df, named)
    if miss:
        raise DataError(f"Column(s) not in the table: {', '.join(miss)}. "
                        f"Available: {', '.join(map(str, df.columns[:30]))}.")
    if not pd.api.types.is_numeric_dtype(df[target]):
        raise DataError(f"Target column {target!r} is not numeric.")
    if features:
        feats = list(features)
        nonnum = [c for c in feats if not pd.api.types.is_numeric_dtype(df[c])]
        if nonnum:
            raise DataError(f"Feature column(s) are not numeric: {', '.join(nonnum)}.")
    else:
        skip = {target, group, id_col}
        feats = [c for c in df.columns if c not in skip and pd.api.types.is_numeric_dtype(df[c])]
    if host_col and host_col not in feats:
        feats.append(host_col)
    if not feats:
        raise DataError("No numeric feature columns found.")
    y = df[target].to_numpy(dtype=float)
    bad_y = np.isinf(y)
    if bad_y.any():
        note = f" ({conversions[target]})" if conversions and target in conversions else ""
        raise DataError(f"Target {target!r} has {int(bad_y.sum())} infinite values"
                        f"{note}; fix or remove those rows.")
    measured = np.isfinite(y)
    X = df[feats].to_numpy(dtype=float)
    complete = np.all(np.isfinite(X), axis=1)
    ok = complete & measured
    if not ok.any():
        raise DataError("No row has both a target value and complete, finite feature values."
                        if complete.any() else "Every row has a missing or infinite feature value.")
    ids = (df[id_col].astype(str) if id_col else pd.Series(np.arange(len(df)).astype(str))).to_numpy()
    if id_col and pd.Series(ids).duplicated().any():
        raise DataError(f"Workload ids in {id_col!r} are not unique.")
    groups = df[group].astype(str).to_numpy() if group else None
    todo = complete & ~measured
    dropped = ~complete
    return {
        "X": X[ok], "y": y[ok], "feature_names": feats, "workload_ids": list(ids[ok]),
        "groups": None if groups is None else groups[ok],
        "host_index": feats.index(host_col) if host_col else None,
        "missing_rows": int(dropped.sum()),
        "missing_reason": "a missing feature value",
        "missing_ids": [str(i) for i in ids[dropped][:20]],
        "unmeasured": unmeasured_rows(X[todo], ids[todo], None if groups is None else groups[todo]),
        "scenario": {"dataset": "table", "target": target, "group": group, "host_col": host_col},
    }


def unmeasured_rows(X, ids, groups) -> dict:
    """The ``unmeasured`` part of a scenario dict: workloads with complete host features and no target.

    ``X`` has the scenario's feature columns in its order; ``groups`` is None when the table has no
    group column."""
    return {"X": np.asarray(X, dtype=float), "workload_ids": [str(i) for i in ids],
            "groups": None if groups is None else np.asarray(groups).astype(str)}


MISSING_RULES = {
    "rows": "drop the workloads (rows) that miss a feature value",
    "columns": "drop the feature columns that miss a value",
    "median": "fill each missing value with its column's median over the whole table (simple, but the median "
              "then also sees the rows each CV fold holds out)",
}


def missing_report(df: pd.DataFrame, features: list[str], id_col: str | None = None) -> dict:
    """Which rows and columns miss feature values: ``rows`` (count), ``row_ids`` (first 20),
    ``columns`` {column: missing count}, most missing first."""
    rows = np.zeros(len(df), dtype=bool)
    cols = {}
    for c in features:  # a column at a time: an upload's preview never holds a second copy of the table
        bad = ~np.isfinite(pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=float))
        rows |= bad
        if n := int(bad.sum()):
            cols[c] = n
    first = np.flatnonzero(rows)[:20]
    ids = df[id_col].iloc[first].astype(str).to_numpy() if id_col else first.astype(str)
    return {"rows": int(rows.sum()), "row_ids": [str(i) for i in ids],
            "columns": dict(sorted(cols.items(), key=lambda kv: -kv[1]))}


def handle_missing(df: pd.DataFrame, features: list[str], rule: str, id_col: str | None = None):
    """Apply a missing-value rule (:data:`MISSING_RULES`); returns (table, features, note)."""
    if rule not in MISSING_RULES:
        raise DataError(f"Unknown rule for missing values {rule!r}; use one of {', '.join(MISSING_RULES)}.")
    report = missing_report(df, features, id_col)
    note = {"rule": rule, "rule_text": MISSING_RULES[rule], **report}
    if not report["rows"]:
        return df, features, None
    if rule == "rows":
        X = df[features].to_numpy(dtype=float)
        keep = np.all(np.isfinite(X), axis=1)
        return df.loc[keep].reset_index(drop=True), features, note
    if rule == "columns":
        return df, [c for c in features if c not in report["columns"]], note
    out = df.copy()
    for c in report["columns"]:
        col = out[c].astype(float)
        out[c] = col.where(np.isfinite(col), np.nanmedian(col.to_numpy()))
    return out, features, note
