"""Host traces of programs never run on the target (/phases "Predict a new program"), stored in the project's
``phase_traces/`` as ``ht-<16 hex>.parquet`` named by content, with metadata JSON.

Parsed with the project's upload limits (:func:`dashboard.state.uploads.parse_upload`; the raw armpm trace,
tab-separated, through :mod:`modeling.build.armpm`), checked before anything is kept (a trace missing
columns gets a message naming them, :func:`modeling.phases.predict.check_trace`), then stored by content:
the same file uploaded twice is one item and an id names exactly one content, so a result key that names
the id names the trace. Target columns a file may carry are dropped before it is stored (never read).
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state.files import clean_name, store_by_content, stored_meta
from modeling.build import armpm
from modeling.errors import DataError
from modeling.phases.predict import check_trace, host_only

TRACE_ID = re.compile(r"^ht-[0-9a-f]{16}$")
#: the kind's value before anything is uploaded
NONE = "none"


def _dir() -> Path:
    return project_path("phase_traces")


def read(raw: bytes, filename: str | None) -> tuple[pd.DataFrame, list]:
    """The host trace in ``raw`` (no target columns) and what was dropped; ``DataError`` saying what is wrong."""
    head = raw[:4096].lstrip(b"\xef\xbb\xbf")
    if raw[:2] == b"\x1f\x8b" or head.startswith(b"#Timestamp") or b"\tINST_RETIRED" in head:
        frame, notes = armpm.samples(armpm.read_trace(raw), cores=None)
    else:
        from dashboard.state.uploads import parse_upload

        frame, notes = parse_upload(raw, filename).frame, []
        frame.columns = [str(c) for c in frame.columns]
    if frame.empty:
        raise DataError("The host trace has no data rows.")
    kind = check_trace(frame)
    frame, dropped = host_only(frame)
    if dropped:
        notes.append(f"target column(s) {', '.join(dropped)} dropped, never read")
    return frame.assign(program=frame["program"].astype(str)), [*notes, kind]


def save_trace(raw: bytes, filename: str | None) -> dict:
    """Check and store an uploaded host trace; returns its metadata (id, name, kind, programs, frequencies)."""
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    frame, notes = read(raw, filename)
    kind = notes.pop()
    freq_col = "freq_mhz" if "freq_mhz" in frame.columns else "host_freq_mhz"
    freqs = sorted(float(f) for f in frame[freq_col].unique()) if freq_col in frame.columns else []
    stored = store_by_content(_dir(), "ht", frame, {
        "name": clean_name(filename, "host trace"), "created": time.time(), "kind": kind, "rows": int(len(frame)),
        "programs": sorted(frame["program"].unique().tolist())[:50], "frequencies": freqs, "notes": notes})
    audit_log.record("host trace saved", host_trace=stored["id"], name=stored.get("name"))
    return stored


def trace_meta(ht_id: str) -> dict:
    """The metadata of a stored trace; ``NotFound`` for an id the server did not make or that is gone."""
    return stored_meta(_dir(), ht_id, TRACE_ID, "host trace")


def trace_frame(ht_id: str) -> pd.DataFrame:
    trace_meta(ht_id)
    return pd.read_parquet(_dir() / f"{ht_id}.parquet")


def describe(meta: dict) -> str:
    progs = meta["programs"]
    what = "per-sample trace" if meta["kind"] == "samples" else "phase table"
    freqs = f" at {', '.join(f'{f:g}' for f in meta['frequencies'])} MHz" if meta["frequencies"] else ""
    notes = (" " + "; ".join(meta["notes"]) + ".") if meta["notes"] else ""
    return (f"Stored {meta['name']!r} ({meta['id']}): a {what} of {', '.join(progs[:5])}"
            f"{' …' if len(progs) > 5 else ''}{freqs}, {meta['rows']} rows.{notes}")
