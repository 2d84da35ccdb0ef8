"""Saved datasets and scenarios on disk (JSON + Parquet, atomic writes).

Layout under ``VAR_DIR``::

    datasets/ds-<16 hex>/meta.json      mapping, display name, checksums
    datasets/ds-<16 hex>/table.parquet  one row per workload (after repeat filtering)
    datasets/ds-<16 hex>/raw.parquet    the rows as uploaded, when they hold repeats
    scenarios/sc-<16 hex>.json          inputs + results summary of a saved run

Ids are generated here, never taken from a user; a user's name for a dataset is
kept as display text only. A dataset is written into a temporary directory and
renamed into place (atomic on one filesystem), so a crash mid-save leaves the
previous state; single files are written to a temp file, fsynced and renamed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import secrets
import shutil
import time
import unicodedata
from pathlib import Path

import pandas as pd

from dashboard.settings import var_path

DATASET_ID = re.compile(r"^ds-[0-9a-f]{16}$")
SCENARIO_ID = re.compile(r"^sc-[0-9a-f]{16}$")
NAME_MAX = 120


class NotFound(LookupError):
    """A dataset or scenario id that does not exist (deleted, or never did)."""


def clean_name(name: str | None, fallback: str = "untitled") -> str:
    """Display text from a user-supplied name: no control characters, bounded length. Anything
    but text (a forged list or number) counts as no name."""
    text = "".join(ch for ch in (name if isinstance(name, str) else "") if unicodedata.category(ch)[0] != "C").strip()
    if len(text) > NAME_MAX:
        text = text[: NAME_MAX - 1] + "…"
    return text or fallback


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old or the new file, never half."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- datasets

def _datasets_dir() -> Path:
    return var_path("datasets")


def save_dataset(table: pd.DataFrame, name: str, mapping: dict, notes: dict | None = None,
                 raw: pd.DataFrame | None = None) -> dict:
    """Store a mapped workload table under a new id; returns its metadata."""
    ds_id = "ds-" + secrets.token_hex(8)
    root = _datasets_dir()
    tmp = root / f".{ds_id}.{os.getpid()}.tmp"
    tmp.mkdir()
    try:
        table.to_parquet(tmp / "table.parquet", index=False)
        files = {"table.parquet": sha256_file(tmp / "table.parquet")}
        if raw is not None:
            raw.to_parquet(tmp / "raw.parquet", index=False)
            files["raw.parquet"] = sha256_file(tmp / "raw.parquet")
        meta = {"id": ds_id, "name": clean_name(name), "created": time.time(), "rows": int(len(table)),
                "columns": [str(c) for c in table.columns], "mapping": mapping, "notes": notes or {},
                "files": files}
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        atomic_write_bytes(tmp / "meta.json", json.dumps(meta, indent=1).encode())
        os.rename(tmp, root / ds_id)
        _fsync_dir(root)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return meta


def _dataset_dir(ds_id: str) -> Path:
    if not isinstance(ds_id, str) or not DATASET_ID.match(ds_id):
        raise NotFound(f"dataset {str(ds_id)[:40]!r} not found")
    path = _datasets_dir() / ds_id
    if not (path / "meta.json").exists():
        raise NotFound(f"dataset {ds_id} not found (it may have been deleted)")
    return path


def dataset_meta(ds_id: str) -> dict:
    return json.loads((_dataset_dir(ds_id) / "meta.json").read_text())


def dataset_table(ds_id: str, raw: bool = False) -> pd.DataFrame:
    path = _dataset_dir(ds_id) / ("raw.parquet" if raw else "table.parquet")
    if not path.exists():
        raise NotFound(f"dataset {ds_id} has no {'raw repeats' if raw else 'table'}")
    return pd.read_parquet(path)


def list_datasets() -> list[dict]:
    out = []
    for p in _datasets_dir().iterdir():
        if DATASET_ID.match(p.name) and (p / "meta.json").exists():
            try:
                out.append(json.loads((p / "meta.json").read_text()))
            except (OSError, ValueError):
                continue
    return sorted(out, key=lambda m: -m["created"])


def delete_dataset(ds_id: str) -> None:
    path = _dataset_dir(ds_id)
    trash = path.with_name(f".{path.name}.deleted.{secrets.token_hex(4)}")
    os.rename(path, trash)  # atomic disappearance, then clean up
    shutil.rmtree(trash, ignore_errors=True)


def verify_dataset(ds_id: str) -> bool:
    """True when every stored file still has the checksum recorded at save time."""
    meta = dataset_meta(ds_id)
    root = _dataset_dir(ds_id)
    return all(sha256_file(root / f) == h for f, h in meta["files"].items())


# ---------------------------------------------------------------- scenarios

def _scenarios_dir() -> Path:
    return var_path("scenarios")


def save_scenario(page: str, params: dict, summary: dict, name: str | None = None) -> dict:
    """Save a run's inputs and summary; returns the record, ``existing=True`` when it was saved before.

    The id is derived from the page, the inputs and the name the user typed, so
    saving the same scenario twice (a double click, or two users through two
    workers at the same moment) gives one record: the file is created with an
    atomic link that fails when it exists, and the loser reads the winner's.
    """
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
        return {**load_scenario(sc_id), "existing": True}
    finally:
        tmp.unlink(missing_ok=True)
    _fsync_dir(path.parent)
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


def delete_scenario(sc_id: str) -> None:
    load_scenario(sc_id)
    (_scenarios_dir() / f"{sc_id}.json").unlink(missing_ok=True)


# ---------------------------------------------------------------- staged uploads

STAGE_ID = re.compile(r"^st-[0-9a-f]{16}$")
#: A parsed upload waits this long for its Save (the preview's page may stay open for a while).
STAGE_TTL_SECONDS = 6 * 3600


def _parquet_bytes(frame: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    return buf.getvalue()


def expire_staged(now: float | None = None) -> int:
    """Delete staged uploads older than ``STAGE_TTL_SECONDS``; returns how many went."""
    now = time.time() if now is None else now
    gone = 0
    for p in var_path("staging").iterdir():
        try:
            if now - p.stat().st_mtime > STAGE_TTL_SECONDS:
                p.unlink()
                gone += p.suffix == ".json"
        except FileNotFoundError:
            continue
    return gone


def stage_upload(frame: pd.DataFrame, info: dict) -> str:
    """Keep a parsed upload between the preview and the save step; returns its token.
    Older staged uploads that expired are removed here."""
    expire_staged()
    token = "st-" + secrets.token_hex(8)
    root = var_path("staging")
    atomic_write_bytes(root / f"{token}.parquet", _parquet_bytes(frame))
    atomic_write_bytes(root / f"{token}.json", json.dumps(info).encode())
    return token


def staged_upload(token: str) -> tuple[pd.DataFrame, dict]:
    if not isinstance(token, str) or not STAGE_ID.match(token):
        raise NotFound("upload not found: upload the file again")
    root = var_path("staging")
    try:
        if time.time() - (root / f"{token}.json").stat().st_mtime > STAGE_TTL_SECONDS:
            raise FileNotFoundError
        return pd.read_parquet(root / f"{token}.parquet"), json.loads((root / f"{token}.json").read_text())
    except FileNotFoundError:
        raise NotFound(f"upload not found (uploads expire after {STAGE_TTL_SECONDS // 3600} h, or it was "
                       "never staged): upload the file again") from None


# ---------------------------------------------------------------- offload timing tables (LogCA)

TIMING_ID = re.compile(r"^tt-[0-9a-f]{16}$")


def _timings_dir() -> Path:
    return var_path("timings")


def save_timing(frame: pd.DataFrame, name: str) -> dict:
    """Store an offload timing table (Parquet) and its metadata (JSON) under a new id.

    The caller has validated and fitted it: nothing that was shown as an error is
    kept. Both files are written to a temp file, fsynced and renamed; the
    metadata goes last, so a table without it is never listed or opened.
    """
    tt_id = "tt-" + secrets.token_hex(8)
    root = _timings_dir()
    data = _parquet_bytes(frame)
    meta = {"id": tt_id, "name": clean_name(name), "created": time.time(), "rows": int(len(frame)),
            "kernels": sorted(map(str, frame["kernel"].unique())), "sha256": hashlib.sha256(data).hexdigest()}
    atomic_write_bytes(root / f"{tt_id}.parquet", data)
    atomic_write_bytes(root / f"{tt_id}.json", json.dumps(meta, indent=1).encode())
    return meta


def timing_meta(tt_id: str) -> dict:
    if not isinstance(tt_id, str) or not TIMING_ID.match(tt_id):
        raise NotFound(f"timing table {str(tt_id)[:40]!r} not found")
    path = _timings_dir() / f"{tt_id}.json"
    if not path.exists():
        raise NotFound(f"timing table {tt_id} not found (it may have been deleted)")
    return json.loads(path.read_text())


def timing_table(tt_id: str) -> pd.DataFrame:
    timing_meta(tt_id)
    return pd.read_parquet(_timings_dir() / f"{tt_id}.parquet")
