"""Saved scenarios: a run's inputs and summary as JSON under ``scenarios/sc-<16 hex>.json``."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import time
from pathlib import Path

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state import trash
from dashboard.state.files import NotFound, _fsync_dir, atomic_write_bytes, clean_name


SCENARIO_ID = re.compile(r"^sc-[0-9a-f]{16}$")


def _scenarios_dir() -> Path:
    return project_path("scenarios")


def save_scenario(page: str, params: dict, summary: dict, name: str | None = None) -> dict:
    """Save a run's inputs and summary; returns the record, ``existing=True`` when it was saved before.

    The id is derived from the page, the inputs and the name the user typed, so
    saving the same scenario twice (a double click, or two users through two
    workers at the same moment) gives one record: the file is created with an
    atomic link that fails when it exists, and the loser reads the winner's.
    """
    require("editor", "save")  # the callbacks check first; this holds for every caller
    blob = json.dumps({"page": page, "params": params, "name": clean_name(name, "")}, sort_keys=True, default=str)
    sc_id = "sc-" + hashlib.sha256(blob.encode()).hexdigest()[:16]
    path = _scenarios_dir() / f"{sc_id}.json"
    rec = {"id": sc_id, "page": page, "name": clean_name(name, fallback=f"{page} {time.strftime('%Y-%m-%d %H:%M')}"),
           "created": time.time(), "params": params, "summary": summary}
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        atomic_write_bytes(tmp, json.dumps(rec, indent=1).encode())
        os.link(tmp, path)
    except FileExistsError:
        audit_log.record("scenario saved", scenario=sc_id, page=page, existing="yes")
        return {**load_scenario(sc_id), "existing": True}
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
    audit_log.record("scenario saved", scenario=sc_id, page=page)
    return rec


def load_scenario(sc_id: str) -> dict:
    if not isinstance(sc_id, str) or not SCENARIO_ID.match(sc_id):
        raise NotFound(f"scenario {str(sc_id)[:40]!r} not found")
    path = _scenarios_dir() / f"{sc_id}.json"
    if not path.exists():
        raise NotFound(f"scenario {sc_id} not found (it may have been deleted)")
    return json.loads(path.read_text())


def list_scenarios(page: str | None = None) -> list[dict]:
    out = []
    for p in _scenarios_dir().glob("sc-*.json"):
        try:
            rec = json.loads(p.read_text())
        except (OSError, ValueError):
            continue
        if page is None or rec.get("page") == page:
            out.append(rec)
    return sorted(out, key=lambda r: -r["created"])


def delete_scenario(sc_id: str) -> dict:
    """Move the saved scenario to the trash; returns its trash record (``NotFound`` when there is none)."""
    require("editor", "delete")  # the callbacks check first; this holds for every caller
    load_scenario(sc_id)
    return trash.move_to_trash("scenario", sc_id)
