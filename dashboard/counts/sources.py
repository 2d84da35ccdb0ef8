"""The count tables /counts reads (its jobs' ``source``): the two shipped ones and those a team uploads, stored
in the project's ``countdata/`` as ``cd-<16 hex>.parquet`` named by content (validated first, written atomically,
never changed)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state.files import clean_name, store_by_content, stored_meta, stored_metas
from modeling.counts import data
from modeling.counts.splits import split
from modeling.counts.table import validate_counts
from modeling.errors import DataError, NotEnoughDataError

COUNTDATA_ID = re.compile(r"^cd-[0-9a-f]{16}$")
SHIPPED = tuple(data.SHIPPED)
DEFAULT = "cpu"


def _dir() -> Path:
    return project_path("countdata")


def save_upload(raw: bytes, filename: str | None) -> dict:
    """Validate an uploaded count table (CSV or Parquet) and store it; ``DataError`` says what is wrong."""
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    from dashboard.state.uploads import parse_upload

    table = validate_counts(parse_upload(raw, filename).frame)
    notes = []
    for name in data.programs(table):
        prog = data.program(table, name)
        try:
            split(prog.X, "high-low")
        except NotEnoughDataError as exc:
            notes.append(f"{name}: {exc}")
    meta = store_by_content(_dir(), "cd", table, {"name": clean_name(filename or "upload"), "created": time.time(),
                                                  "programs": data.programs(table), "rows": len(table),
                                                  "notes": notes})
    audit_log.record("count table saved", count_table=meta["id"], rows=meta["rows"], name=meta["name"])
    return meta


def meta(source: str) -> dict:
    """Metadata of a shipped table (``cpu``, ``gpu``) or a stored upload; ``LookupError`` for anything else."""
    if source in SHIPPED:
        return {"id": source, "name": data.SHIPPED[source][1], "programs": data.programs(data.shipped(source))}
    return stored_meta(_dir(), source, COUNTDATA_ID, "count table")


def frame(source: str) -> pd.DataFrame:
    if source in SHIPPED:
        return data.shipped(source)
    meta(source)
    return validate_counts(pd.read_parquet(_dir() / f"{source}.parquet"))


def programs(source: str) -> list[str]:
    try:
        return meta(source)["programs"]
    except (LookupError, DataError):
        return []


def options() -> list[dict]:
    opts = [{"label": label, "value": k} for k, (_, label) in data.SHIPPED.items()]
    for m in stored_metas(_dir(), "cd"):
        opts.append({"label": f"{m['name']} ({len(m['programs'])} programs, uploaded)", "value": m["id"]})
    return opts
