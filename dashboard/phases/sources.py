"""The phase data /phases reads (its jobs' ``source``): the shipped cBench traces, or what a team brings, an
armpm-layout trace (kept as its cleaned samples) or a ready phase table, stored in the project's ``phasedata/``
as ``pd-<16 hex>.parquet`` named by content, with metadata JSON.

Validated before it is stored (:mod:`modeling.build.armpm`, :func:`modeling.phases.data.check_phase_table`);
files are written atomically and never change, so a result key that names one names its content.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state.files import clean_name, store_by_content, stored_meta, stored_metas
from modeling.build import armpm
from modeling.errors import DataError
from modeling.phases.data import check_phase_table

PHASEDATA_ID = re.compile(r"^pd-[0-9a-f]{16}$")
SHIPPED = "shipped"


def _dir() -> Path:
    return project_path("phasedata")


def _store(frame: pd.DataFrame, meta: dict) -> dict:
    stored = store_by_content(_dir(), "pd", frame, meta)
    audit_log.record("phase table saved", phase_table=stored["id"], kind=stored.get("kind"), name=stored.get("name"))
    return stored


def save_upload(raw: bytes, filename: str | None) -> dict:
    """A trace (tab-separated, ``#Timestamp`` header) becomes cleaned samples; anything else must be a
    phase table (CSV or Parquet). Raises ``DataError`` saying what is wrong."""
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    name = clean_name(filename or "upload")
    head = raw[:4096].lstrip(b"\xef\xbb\xbf")
    if raw[:2] == b"\x1f\x8b" or head.startswith(b"#Timestamp") or b"\tINST_RETIRED" in head:
        s, notes = armpm.samples(armpm.read_trace(raw))
        bad = armpm.quality(s)
        freqs = sorted(float(f) for f in s["freq_mhz"].unique())
        return _store(s, {"kind": "samples", "name": name, "created": time.time(), "frequencies": freqs,
                          "programs": int(s["program"].nunique()), "notes": notes,
                          "excluded_runs": bad.to_dict("records")})
    from dashboard.state.uploads import parse_upload

    table = parse_upload(raw, filename).frame
    check_phase_table(table)
    return _store(table, {"kind": "phases", "name": name, "created": time.time(), "frequencies": [],
                          "programs": int(table["program"].nunique()), "notes": [], "excluded_runs": []})


def meta(pd_id: str) -> dict:
    return stored_meta(_dir(), pd_id, PHASEDATA_ID, "phase data")


def frame(pd_id: str) -> pd.DataFrame:
    meta(pd_id)
    return pd.read_parquet(_dir() / f"{pd_id}.parquet")


def options() -> list[dict]:
    opts = [{"label": "cBench on ODROID-XU3 (shipped)", "value": SHIPPED}]
    for m in stored_metas(_dir(), "pd"):
        what = "trace" if m["kind"] == "samples" else "phase table"
        opts.append({"label": f"{m['name']} ({what}, {m['programs']} programs)", "value": m["id"]})
    return opts


def frequencies(source: str) -> list[int]:
    """Frequencies a source offers (a phase table is one pair: none to choose)."""
    if source == SHIPPED:
        from modeling.phases import data

        return [int(f) for f in data.frequencies()]
    return [int(f) for f in meta(source)["frequencies"]]


def programs(source: str) -> list[str]:
    """The programs of a source (known before any run, so a link's chosen program is kept)."""
    if source == SHIPPED:
        from modeling.phases import data

        return sorted(data.shipped_samples()["program"].astype(str).unique().tolist())
    return sorted(frame(source)["program"].astype(str).unique().tolist())


def phases(source: str, host_freq, target_freq, granularity: float) -> tuple[pd.DataFrame, list]:
    """(phase table, excluded runs) of a source for the chosen pair and granularity."""
    from modeling.phases import data

    if source == SHIPPED:
        return data.shipped_pair(host_freq, target_freq, granularity), data.excluded_runs()
    m = meta(source)
    df = frame(source)
    if m["kind"] == "phases":
        return df, []
    if float(host_freq) not in m["frequencies"] or float(target_freq) not in m["frequencies"]:
        raise DataError(f"This trace has frequencies {', '.join(f'{f:g}' for f in m['frequencies'])} MHz.")
    return data.pair_from(df, host_freq, target_freq, granularity), m["excluded_runs"]


def granularity(source: str, host_freq, target_freq):
    """The default granularity of a source at a pair (:func:`modeling.phases.granularity.rule`, the one rule):
    the page's field default, minimum and hint; a phase table was cut already (the preferred value, unused)."""
    from modeling.phases import data
    from modeling.phases.granularity import PREFERRED, Granularity

    if source == SHIPPED:
        return data.shipped_granularity(host_freq, target_freq)
    if meta(source)["kind"] != "samples":
        return Granularity(PREFERRED, PREFERRED, 0.0)
    return data.granularity_of(frame(source), host_freq, target_freq)
