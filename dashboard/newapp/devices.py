"""Device tables a team brings for the roofline, named by content (in the project's ``devices/dev-<16 hex>.parquet``).

A table is validated (:func:`modeling.newapp.data.device_table`) before it is stored; its id is a
digest of the validated content, so the same table uploaded twice is one file and a result key that
names it names exactly that content. Files are written atomically and never change.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state.files import clean_name, store_by_content, stored_meta, stored_metas
from modeling.newapp.data import device_table

DEVICES_ID = re.compile(r"^dev-[0-9a-f]{16}$")
SHIPPED = "shipped"


def _dir() -> Path:
    return project_path("devices")


def save_devices(frame: pd.DataFrame, name: str) -> dict:
    """Validate and store a device table; returns its metadata (id, name, devices)."""
    require("editor", "upload")  # the callbacks check first; this holds for every caller
    table = device_table(frame)
    meta = store_by_content(_dir(), "dev", table, {"name": clean_name(name), "created": time.time(),
                                                   "devices": table["device"].tolist()})
    audit_log.record("device table saved", device_table=meta["id"], devices=len(meta["devices"]), name=meta["name"])
    return meta


def devices_meta(dev_id: str) -> dict:
    return stored_meta(_dir(), dev_id, DEVICES_ID, "device table")


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
    opts = [{"label": "shipped device table (9 NVIDIA GPUs)", "value": SHIPPED}]
    for m in stored_metas(_dir(), "dev"):
        opts.append({"label": f"{m['name']} ({len(m['devices'])} devices)", "value": m["id"]})
    return opts
