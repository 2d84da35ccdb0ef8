"""Uploaded offload timing tables (LogCA): ``timings/tt-<16 hex>.parquet`` and its metadata JSON."""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from pathlib import Path

import pandas as pd

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state.files import _parquet_bytes, atomic_write_bytes, clean_name, stored_meta, stored_metas


TIMING_ID = re.compile(r"^tt-[0-9a-f]{16}$")


def _timings_dir() -> Path:
    return project_path("timings")


def save_timing(frame: pd.DataFrame, name: str) -> dict:
    """Store an offload timing table (Parquet) and its metadata (JSON) under a new id.

    The caller has validated and fitted it: nothing that was shown as an error is
    kept. Both files are written to a temp file, fsynced and renamed; the
    metadata goes last, so a table without it is never listed or opened.
    """
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    tt_id = "tt-" + secrets.token_hex(8)
    root = _timings_dir()
    data = _parquet_bytes(frame)
    meta = {"id": tt_id, "name": clean_name(name), "created": time.time(), "rows": int(len(frame)),
            "kernels": sorted(map(str, frame["kernel"].unique())), "sha256": hashlib.sha256(data).hexdigest()}
    atomic_write_bytes(root / f"{tt_id}.parquet", data)
    atomic_write_bytes(root / f"{tt_id}.json", json.dumps(meta, indent=1).encode())
    audit_log.record("timing table saved", timing_table=tt_id, rows=meta["rows"], name=meta["name"])
    return meta


def timing_meta(tt_id: str) -> dict:
    return stored_meta(_timings_dir(), tt_id, TIMING_ID, "timing table")


def list_timings() -> list[dict]:
    """The metadata of the current project's timing tables, newest first."""
    return [m for m in stored_metas(_timings_dir(), "tt") if TIMING_ID.match(str(m.get("id", "")))]


def timing_table(tt_id: str) -> pd.DataFrame:
    timing_meta(tt_id)
    return pd.read_parquet(_timings_dir() / f"{tt_id}.parquet")
