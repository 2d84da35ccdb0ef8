"""Uploads between the preview and the Save: parsed tables kept under ``staging/`` for a few hours."""

from __future__ import annotations

import json
import re
import secrets
import time

import pandas as pd

from dashboard.access.projects import project_path, require
from dashboard.state.files import NotFound, _parquet_bytes, atomic_write_bytes


STAGE_ID = re.compile(r"^st-[0-9a-f]{16}$")


#: A parsed upload waits this long for its Save (the preview's page may stay open for a while).
STAGE_TTL_SECONDS = 6 * 3600
#: At most this many uploads wait for their Save in one project: a new one beyond it removes the oldest (whose
#: Save then says to upload the file again). Without it an editor could fill the disk with previews for 6 h.
STAGED_MAX = 32


def expire_staged(now: float | None = None) -> int:
    """Delete staged uploads older than ``STAGE_TTL_SECONDS``; returns how many went."""
    now = time.time() if now is None else now
    gone = 0
    for p in project_path("staging").iterdir():
        try:
            if now - p.stat().st_mtime > STAGE_TTL_SECONDS:
                p.unlink()
                gone += p.suffix == ".json"
        except FileNotFoundError:
            continue
    return gone


def _keep_newest(keep: int) -> None:
    """Remove the oldest staged uploads of this project until ``keep`` remain."""
    root = project_path("staging")
    staged = []
    for p in root.glob("st-*.json"):
        try:
            staged.append((p.stat().st_mtime, p.name, p.stem))
        except FileNotFoundError:
            continue
    for _, _, token in sorted(staged)[:max(0, len(staged) - keep)]:
        for suffix in (".json", ".parquet"):
            (root / f"{token}{suffix}").unlink(missing_ok=True)


def stage_upload(frame: pd.DataFrame, info: dict) -> str:
    """Keep a parsed upload between the preview and the save step; returns its token.
    Older staged uploads that expired are removed here, and the oldest beyond :data:`STAGED_MAX`."""
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    expire_staged()
    _keep_newest(STAGED_MAX - 1)
    token = "st-" + secrets.token_hex(8)
    root = project_path("staging")
    atomic_write_bytes(root / f"{token}.parquet", _parquet_bytes(frame))
    atomic_write_bytes(root / f"{token}.json", json.dumps(info).encode())
    from dashboard import audit_log

    audit_log.record("upload staged", upload=token, rows=len(frame), columns=frame.shape[1],
                     file=str(info.get("filename") or info.get("name") or "-"))
    return token


def staged_upload(token: str) -> tuple[pd.DataFrame, dict]:
    if not isinstance(token, str) or not STAGE_ID.match(token):
        raise NotFound("upload not found: upload the file again")
    root = project_path("staging")
    try:
        if time.time() - (root / f"{token}.json").stat().st_mtime > STAGE_TTL_SECONDS:
            raise FileNotFoundError
        return pd.read_parquet(root / f"{token}.parquet"), json.loads((root / f"{token}.json").read_text())
    except FileNotFoundError:
        raise NotFound(f"upload not found (uploads expire after {STAGE_TTL_SECONDS // 3600} h, and a project keeps "
                       f"its {STAGED_MAX} newest, or it was never staged): upload the file again") from None
