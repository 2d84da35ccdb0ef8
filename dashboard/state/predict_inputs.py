"""Uploaded tables of workloads to predict: ``predict_inputs/wp-<16 hex>.parquet`` and its metadata JSON.

A table of workloads to predict holds host counters and no target (or a target column that is never
read). It is parsed with the project's reading limits (:mod:`dashboard.state.uploads`), stored by content
(the same table uploaded twice is one item, and an id names exactly one content, so a result key that
names the id names the table's fingerprint) and never changes. Which column is the workload id and which
the application is guessed from the names when it is stored and kept in the metadata; the counters are
matched to a model's features by name when a prediction is made
(:func:`modeling.crossgen.predict.new_workloads`).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd

from dashboard.access.projects import project_path, require
from dashboard.state.files import clean_name, store_by_content, stored_meta, stored_metas
from modeling.errors import DataError

INPUTS_ID = re.compile(r"^wp-[0-9a-f]{16}$")
#: the dataset's own workloads that have host counters and no target
UNMEASURED = "unmeasured"
ID_NAMES = ("workload", "id", "workload_id", "name")
GROUP_NAMES = ("application", "app", "group", "benchmark")


def _dir() -> Path:
    return project_path("predict_inputs")


def guess_roles(frame: pd.DataFrame) -> dict:
    """The id and application columns of a table of workloads to predict, guessed from their names: an id
    column named like ``workload`` (else the first text column with unique values), an application column
    named like ``application``; None where there is none (rows are then named ``row 1``, ``row 2``, …)."""
    cols = [str(c) for c in frame.columns]
    lower = {c.lower(): c for c in cols}
    text = [c for c in cols if not pd.api.types.is_numeric_dtype(frame[c])]
    id_col = next((lower[n] for n in ID_NAMES if n in lower), None)
    if id_col is None:
        id_col = next((c for c in text if c.lower() not in GROUP_NAMES and not frame[c].duplicated().any()), None)
    group = next((lower[n] for n in GROUP_NAMES if n in lower and lower[n] != id_col), None)
    return {"id_col": id_col, "group_col": group}


def save_inputs(frame: pd.DataFrame, name: str | None) -> dict:
    """Store a parsed table of workloads to predict; returns its metadata (id, name, rows, columns, roles)."""
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    if frame.empty:
        raise DataError("The table of workloads to predict has no data rows.")
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    roles = guess_roles(frame)
    return store_by_content(_dir(), "wp", frame, {
        "name": clean_name(name, "workloads to predict"), "created": time.time(), "rows": int(len(frame)),
        "columns": list(frame.columns), **roles})


def inputs_meta(wp_id: str) -> dict:
    """The metadata of a stored table; ``NotFound`` for an id the server did not make or that is gone."""
    return stored_meta(_dir(), wp_id, INPUTS_ID, "table of workloads to predict")


def inputs_table(wp_id: str) -> pd.DataFrame:
    inputs_meta(wp_id)
    return pd.read_parquet(_dir() / f"{wp_id}.parquet")


def workloads_for(wp_id: str, feature_names: list) -> dict:
    """The ``new`` argument of :func:`modeling.crossgen.predict.predict_scenario` from a stored table: its
    counters matched to ``feature_names`` by name (``DataError`` naming missing columns); other columns,
    a target among them, are reported in ``ignored`` and never read."""
    from modeling.crossgen.predict import new_workloads

    meta = inputs_meta(wp_id)
    return new_workloads(inputs_table(wp_id), feature_names, meta.get("id_col"), meta.get("group_col"))


def options() -> list[dict]:
    """Dropdown options: the dataset's own unmeasured workloads, then stored tables (newest first)."""
    opts = [{"label": "the dataset's workloads without a measured target", "value": UNMEASURED}]
    for m in stored_metas(_dir(), "wp"):
        opts.append({"label": f"{m['name']} ({m['rows']} rows, uploaded)", "value": m["id"]})
    return opts
