"""Saved prediction tables: ``predictions/pr-<16 hex>/`` with ``meta.json`` (name, date, params, key,
provenance, summary), ``result.json`` (the whole result as :func:`modeling.results.dumps` writes it: plain JSON,
a typed result tagged with its type, read back as that type) and ``table.parquet`` (the exported prediction
table). Never pickle.

The id is derived from the result's key and the name the user typed, so saving the same prediction
twice (a double click, two users through two workers at once) gives one item: the item is written into
a temporary directory and renamed into place; the loser of a race reads the winner's. A saved item is
reopened through its link, which is its parameters.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import time
from pathlib import Path

import pandas as pd

from dashboard.access.projects import project_path, require
from dashboard.state import trash
from dashboard.state.files import AlreadyStored, NotFound, atomic_dir, atomic_write_bytes, clean_name
from modeling.results import Result, dumps, loads

PREDICTION_ID = re.compile(r"^pr-[0-9a-f]{16}$")


def _dir() -> Path:
    return project_path("predictions")


def _item(pr_id) -> Path:
    if not isinstance(pr_id, str) or not PREDICTION_ID.match(pr_id):
        raise NotFound(f"saved prediction {str(pr_id)[:40]!r} not found")
    path = _dir() / pr_id
    if not (path / "meta.json").exists():
        raise NotFound(f"saved prediction {pr_id} not found (it may have been deleted)")
    return path


#: the pages a saved prediction reopens on, by method (its link is the page and the result's parameters)
PAGES = {"crossgen": "/predict", "counts": "/counts", "phases": "/phases"}
METHOD_LABELS = {"crossgen": "next-generation time", "counts": "counts at new inputs",
                 "phases": "a new program's target trace"}


def save_prediction(result: dict | Result, key: str, table: pd.DataFrame, summary: dict, name: str | None = None,
                    method: str = "crossgen", default_name: str | None = None) -> dict:
    """Save a prediction result of ``method`` (crossgen, counts or phases: every method's table has the same
    leading columns, modeling/prediction_table.py) under a new id; returns its metadata (``existing=True`` when
    it was saved before under the same key and name). ``summary["text"]``: the line the saved list shows."""
    if method not in PAGES:
        raise ValueError(f"unknown prediction method {method!r}")
    require("editor", "save")  # the callbacks check first; this holds for every caller
    cleaned = clean_name(name, "")
    pr_id = "pr-" + hashlib.sha256(json.dumps([key, cleaned]).encode()).hexdigest()[:16]
    root = _dir()
    if (root / pr_id / "meta.json").exists():
        return {**load_meta(pr_id), "existing": True}
    if isinstance(result, Result):  # a typed run: its parameters and the provenance the job runner stamped
        params, provenance = result.params, result.provenance.to_dict() if result.provenance else {}
    else:
        params, provenance = result["params"], result.get("provenance", {})
    stamp = time.strftime("%Y-%m-%d %H:%M")
    fallback = f"{default_name} {stamp}" if default_name else f"{params.get('host')} → {params.get('target')} {stamp}"
    meta = {"id": pr_id, "name": cleaned or fallback, "method": method, "page": PAGES[method],
            "created": time.time(), "key": key, "params": params, "provenance": provenance,
            "summary": summary}
    try:
        with atomic_dir(root / pr_id) as tmp:
            buf = io.BytesIO()
            table.to_parquet(buf, index=False)
            atomic_write_bytes(tmp / "table.parquet", buf.getvalue())
            atomic_write_bytes(tmp / "result.json", dumps(result).encode())
            atomic_write_bytes(tmp / "meta.json", json.dumps(meta, indent=1).encode())
    except AlreadyStored:  # saved at the same moment by another request: theirs stands
        return {**load_meta(pr_id), "existing": True}
    return meta


def page_of(meta: dict) -> str:
    """The page a saved prediction reopens on (items saved before methods were recorded: /predict)."""
    return PAGES.get(meta.get("method", "crossgen"), "/predict")


def load_meta(pr_id: str) -> dict:
    return json.loads((_item(pr_id) / "meta.json").read_text())


def load_result(pr_id: str):
    """The saved result: a typed result (:class:`modeling.results.Result`) for a method whose jobs return one,
    else the dict."""
    return loads((_item(pr_id) / "result.json").read_text())


def load_table(pr_id: str) -> pd.DataFrame:
    return pd.read_parquet(_item(pr_id) / "table.parquet")


def list_predictions() -> list[dict]:
    """Every saved prediction's metadata, newest first (unreadable ones skipped)."""
    out = []
    for p in _dir().iterdir():
        if PREDICTION_ID.match(p.name):
            try:
                out.append(json.loads((p / "meta.json").read_text()))
            except (OSError, ValueError):
                continue
    return sorted(out, key=lambda m: -m.get("created", 0))


def find_by_key(key: str) -> str | None:
    """The id of a saved prediction whose result has ``key``, or None."""
    return next((m["id"] for m in list_predictions() if m.get("key") == key), None)


def delete_prediction(pr_id: str) -> dict:
    """Move the saved prediction to the trash; returns its trash record (``NotFound`` when there is none)."""
    require("editor", "delete")  # the callbacks check first; this holds for every caller
    _item(pr_id)
    return trash.move_to_trash("prediction", pr_id)
