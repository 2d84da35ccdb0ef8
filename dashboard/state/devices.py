"""Device tables a team brings for the roofline: ``devices/dev-<16 hex>.parquet``, named by content.

A table is validated (:func:`modeling.newapp.data.device_table`) before it is stored; its id is a
digest of the validated content, so the same table uploaded twice is one file and a result key that
names it names exactly that content. Files are written atomically and never change.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

import pandas as pd

from dashboard.settings import var_path
from dashboard.state.files import NotFound, _parquet_bytes, atomic_write_bytes, clean_name
from modeling.newapp.data import device_table

DEVICES_ID = re.compile(r"^dev-[0-9a-f]{16}$")
SHIPPED = "shipped"


def _dir() -> Path:
    return var_path("devices")


def save_devices(frame: pd.DataFrame, name: str) -> dict:
    """Validate and store a device table; returns its metadata (id, name, devices)."""
    table = device_table(frame)
    digest = hashlib.sha256(table.to_csv(index=False).encode()).hexdigest()[:16]
    dev_id = f"dev-{digest}"
    meta = {"id": dev_id, "name": clean_name(name), "created": time.time(), "devices": table["device"].tolist()}
    root = _dir()
    if not (root / f"{dev_id}.json").exists():
        atomic_write_bytes(root / f"{dev_id}.parquet", _parquet_bytes(table))
        atomic_write_bytes(root / f"{dev_id}.json", json.dumps(meta, indent=1).encode())
    return json.loads((root / f"{dev_id}.json").read_text())


def devices_meta(dev_id: str) -> dict:
    if not isinstance(dev_id, str) or not DEVICES_ID.match(dev_id):
        raise NotFound(f"device table {str(dev_id)[:40]!r} not found")
    path = _dir() / f"{dev_id}.json"
    if not path.exists():
        raise NotFound(f"device table {dev_id} not found")
    return json.loads(path.read_text())


def devices_table(dev_id: str) -> pd.DataFrame:
    devices_meta(dev_id)
    return pd.read_parquet(_dir() / f"{dev_id}.parquet")


def device_names(dev_id: str) -> list[str]:
    """Names in a stored table, or the shipped table's for ``shipped``."""
    if dev_id == SHIPPED:
        from modeling import shipped

        return shipped.gpu_names()
    return list(devices_meta(dev_id)["devices"])


def options() -> list[dict]:
    """Dropdown options: the shipped device table, then stored tables (newest first)."""
    metas = []
    for p in _dir().glob("dev-*.json"):
        try:
            metas.append(json.loads(p.read_text()))
        except (OSError, ValueError):
            continue
    opts = [{"label": "shipped device table (9 NVIDIA GPUs)", "value": SHIPPED}]
    for m in sorted(metas, key=lambda m: -m["created"]):
        opts.append({"label": f"{m['name']} ({len(m['devices'])} devices)", "value": m["id"]})
    return opts
