"""Datasets: the shipped GPU profiles and uploaded workload tables, on disk and as the pages see them.

On disk in the current project's directory (``VAR_DIR/projects/<project id>``, dashboard/access/projects.py)::

    datasets/ds-<16 hex>/meta.json      mapping, display name, the target's unit, checksums
    datasets/ds-<16 hex>/table.parquet  one row per workload (after repeat filtering)
    datasets/ds-<16 hex>/raw.parquet    the rows as uploaded, when they hold repeats

Ids are generated here, never taken from a user; a user's name for a dataset is
kept as display text only. A dataset is written into a temporary directory and
renamed into place (atomic on one filesystem), so a crash mid-save leaves the
previous state.

As the pages see them (:class:`DatasetView`): the shipped dataset (id
``rodinia``) has a host and a target GPU and a metric; an uploaded workload
table has one host (the machine its features were measured on) and the target
columns chosen at upload. Both produce the scenario dict of
:mod:`modeling.shipped` / :mod:`modeling.tables.workload`, and say the unit of their target values
(:meth:`DatasetView.unit`: the one place a page asks it).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from cachetools import LRUCache

from dashboard import audit_log
from dashboard.access.projects import project_path, require
from dashboard.state import trash
from dashboard.state.files import (NotFound, atomic_dir, atomic_write_bytes, clean_name, sha256_file,
                                   shipped_fingerprint)
from dashboard.state.uploads import checked_unit
from modeling import shipped
from modeling.parallel import ForkSafeLock
from modeling.tables.workload import table_scenario

DATASET_ID = re.compile(r"^ds-[0-9a-f]{16}$")
SHIPPED_ID = "rodinia"
TABLE_HOST = "table"

def _datasets_dir() -> Path:
    return project_path("datasets")


def save_dataset(table: pd.DataFrame, name: str, mapping: dict, notes: dict | None = None,
                 raw: pd.DataFrame | None = None, unit: str | None = None,
                 target_units: dict | None = None) -> dict:
    """Store a mapped workload table under a new id; returns its metadata. ``unit`` is the unit of the
    target values ("" or None: none given); ``target_units`` gives a target its own unit where the targets
    differ (a profiler's time in s and cycles in cycle); both checked here too (``uploads.checked_unit``)."""
    require("editor", "save")  # the callbacks check first; this holds for every caller
    unit = checked_unit(unit)
    target_units = {t: checked_unit(u) for t, u in (target_units or {}).items() if t in mapping["targets"]}
    ds_id = "ds-" + secrets.token_hex(8)
    with atomic_dir(_datasets_dir() / ds_id) as tmp:
        table.to_parquet(tmp / "table.parquet", index=False)
        files = {"table.parquet": sha256_file(tmp / "table.parquet")}
        if raw is not None:
            raw.to_parquet(tmp / "raw.parquet", index=False)
            files["raw.parquet"] = sha256_file(tmp / "raw.parquet")
        meta = {"id": ds_id, "name": clean_name(name), "created": time.time(), "rows": int(len(table)),
                "columns": [str(c) for c in table.columns], "mapping": mapping, "notes": notes or {},
                "target_unit": unit, **({"target_units": target_units} if target_units else {}), "files": files}
        atomic_write_bytes(tmp / "meta.json", json.dumps(meta, indent=1).encode())
    audit_log.record("dataset saved", dataset=ds_id, rows=meta["rows"], name=meta["name"])
    return meta


def _dataset_dir(ds_id: str) -> Path:
    if not isinstance(ds_id, str) or not DATASET_ID.match(ds_id):
        raise NotFound(f"dataset {str(ds_id)[:40]!r} not found")
    path = _datasets_dir() / ds_id
    if not (path / "meta.json").exists():
        raise NotFound(f"dataset {ds_id} not found (it may have been deleted)")
    return path


# A saved dataset never changes (a new save is a new id), so what was read is kept in memory, keyed by
# the file's identity (path, size, mtime): a page render that asks for a dataset's metadata or table
# many times reads it once per process; a deleted dataset is "not found" at once (its file is gone).
_READ_ENTRIES = {"meta": 64, "table": 4}


def fresh_read_cache() -> dict:
    """One least-recently-used cache per kind of read (a few tables, more metadata)."""
    return {kind: LRUCache(maxsize=n) for kind, n in _READ_ENTRIES.items()}


_READ = fresh_read_cache()
_READ_LOCK = ForkSafeLock()  # renewed in a forked job (modeling.parallel)




def _read_once(kind: str, path: Path, read):
    st = path.stat()  # FileNotFoundError when it was deleted
    ident = (kind, str(path), st.st_size, st.st_mtime_ns)
    with _READ_LOCK:
        value = _READ[kind].get(ident)
    if value is not None:
        return value
    value = read(path)
    with _READ_LOCK:
        _READ[kind][ident] = value
    return value


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def dataset_meta(ds_id: str) -> dict:
    """The dataset's metadata (read once per process; treat it as read-only)."""
    try:
        return _read_once("meta", _dataset_dir(ds_id) / "meta.json", _json)
    except FileNotFoundError:
        raise NotFound(f"dataset {ds_id} not found (it may have been deleted)") from None


def dataset_table(ds_id: str, raw: bool = False) -> pd.DataFrame:
    """The dataset's table, or its raw repeated runs (read once per process; treat it as read-only)."""
    path = _dataset_dir(ds_id) / ("raw.parquet" if raw else "table.parquet")
    try:
        return _read_once("table", path, pd.read_parquet)
    except FileNotFoundError:
        raise NotFound(f"dataset {ds_id} has no {'raw repeats' if raw else 'table'}") from None


def list_datasets() -> list[dict]:
    out = []
    for p in _datasets_dir().iterdir():
        if DATASET_ID.match(p.name):
            try:
                out.append(_read_once("meta", p / "meta.json", _json))
            except (OSError, ValueError):
                continue
    return sorted(out, key=lambda m: -m["created"])


def delete_dataset(ds_id: str) -> dict:
    """Move the dataset to the trash (one atomic rename: "not found" everywhere at once); returns its trash
    record. ``NotFound`` when there is no such dataset."""
    require("editor", "delete")  # the callbacks check first; this holds for every caller
    _dataset_dir(ds_id)
    return trash.move_to_trash("dataset", ds_id)


def verify_dataset(ds_id: str) -> bool:
    """True when every stored file still has the checksum recorded at save time."""
    meta = dataset_meta(ds_id)
    root = _dataset_dir(ds_id)
    return all(sha256_file(root / f) == h for f, h in meta["files"].items())


# ---------------------------------------------------------------- as the pages see them


@dataclass
class DatasetView:
    id: str
    name: str
    kind: str  # "shipped" | "upload"
    hosts: list
    targets: list
    metrics: list
    fingerprint: str
    mapping: dict = field(default_factory=dict)
    has_repeats: bool = False
    notes: dict = field(default_factory=dict)  # what the upload changed: rows dropped, columns filled, ...
    target_unit: str = ""  # an upload's: the unit given at upload ("" = none given, as in older datasets)
    target_units: dict = field(default_factory=dict)  # a target's own unit, where an upload's targets differ

    def unit(self, metric: str, target: str | None = None) -> str:
        """The unit of the target values of ``metric`` (of ``target``'s, when an upload gave its targets
        different units): seconds or cycles on the shipped data, the unit given at upload for an uploaded
        table, "" when none was given (pages then say so; they never invent one)."""
        if self.kind == "shipped":
            return shipped.UNITS.get(metric, "")
        return self.target_units.get(target) or self.target_unit

    def host_feature(self, host: str, metric: str) -> str | None:
        """The feature that is the host's own measure of ``metric`` (the column the baseline and the ratio
        transforms use), or None when there is no such feature. The shipped host's time and cycles are
        counters among its features; an upload's host column is added to its features at upload."""
        if self.kind == "shipped":
            return shipped.METRICS.get(metric)
        hc = self.mapping.get("host_col")
        return hc if hc and hc in (self.mapping.get("features") or []) else None

    def host_label(self, host: str) -> str:
        """How to name the host: an uploaded table's host is the machine its features were measured on."""
        return f"{self.name} (its host)" if host == TABLE_HOST else host

    def scenario(self, host: str, target: str, metric: str) -> dict:
        if self.kind == "shipped":
            return shipped.scenario(host, target, metric)
        df = dataset_table(self.id)
        m = self.mapping
        scen = table_scenario(df, target, m.get("group_col"), m.get("id_col"), m.get("features"),
                              m.get("host_col"))
        scen["scenario"].update(dataset=self.id, host=TABLE_HOST, metric=metric)
        scen["categories"] = [m.get("categories", {}).get(f, "feature") for f in scen["feature_names"]]
        return scen

    def host_metric(self, host: str, metric: str) -> pd.Series | None:
        """The host's own measure of the metric per workload (for speedups), or None."""
        if self.kind == "shipped":
            w = shipped.workloads().set_index("workload")
            return w[f"{shipped.METRICS[metric]}@{host}"]
        hc = self.mapping.get("host_col")
        return self._column(hc) if hc else None

    def simulator_times(self, target: str) -> tuple[pd.Series, pd.Series] | None:
        """(host run seconds, simulator seconds for ``target``) per workload, or None.

        Only uploads carry them (optional columns mapped at upload); they give
        the model-vs-simulator speedup of HALWPE Fig. 12.
        """
        col = (self.mapping.get("sim_time_cols") or {}).get(target)
        host = self.mapping.get("host_time_col")
        if self.kind != "upload" or not col or not host:
            return None
        return self._column(host), self._column(col)

    def target_values(self, target: str, metric: str) -> pd.Series:
        if self.kind == "shipped":
            w = shipped.workloads().set_index("workload")
            return w[f"{shipped.METRICS[metric]}@{target}"]
        return self._column(target)

    def _column(self, col: str) -> pd.Series:
        """One column of an uploaded table, indexed by workload id."""
        df = dataset_table(self.id)
        return df.set_index(self.mapping["id_col"])[col] if self.mapping.get("id_col") else df[col]

    def applications(self) -> list:
        if self.kind == "shipped":
            return sorted(shipped.workloads()["application"].unique().tolist())
        g = self.mapping.get("group_col")
        if not g:
            return []
        return sorted(dataset_table(self.id)[g].astype(str).unique().tolist())


def get(ds_id: str) -> DatasetView:
    """Resolve a dataset id; raises ``files.NotFound`` for unknown or deleted ids."""
    if ds_id == SHIPPED_ID:
        gpus = shipped.gpu_names()
        return DatasetView(SHIPPED_ID, shipped.NAME, "shipped", gpus, gpus,
                           list(shipped.METRICS), shipped_fingerprint("gpu_workloads.parquet"), has_repeats=True)
    meta = dataset_meta(ds_id)
    m = meta["mapping"]
    return DatasetView(meta["id"], meta["name"], "upload", [TABLE_HOST], list(m["targets"]), ["value"],
                       meta["files"]["table.parquet"][:16], m, bool(m.get("repeat_col")), meta.get("notes") or {},
                       _stored_unit(meta.get("target_unit")),
                       {t: _stored_unit(u) for t, u in _dict(meta.get("target_units")).items()})


def _dict(value) -> dict:
    return value if isinstance(value, dict) else {}


def _stored_unit(unit) -> str:
    """A unit kept in ``meta.json``: "" for a dataset saved before units were asked (or a file that no
    longer holds a valid one)."""
    try:
        return checked_unit(unit)
    except ValueError:
        return ""


def unit_of(params: dict, dataset: str = "dataset", fallback: str = "", target: str = "target") -> str:
    """:meth:`DatasetView.unit` of the dataset, metric and target a result's parameters name (``dataset``,
    ``target``: the names of its dataset and target parameters); ``fallback`` (the unit the result kept) when
    that dataset is gone."""
    try:
        return get(params[dataset]).unit(params["metric"], params.get(target))
    except (LookupError, TypeError):
        return fallback if isinstance(fallback, str) else ""


def options() -> list[dict]:
    """Dropdown options: the shipped dataset, then uploads (newest first)."""
    opts = [{"label": shipped.NAME, "value": SHIPPED_ID}]
    for meta in list_datasets():
        opts.append({"label": f"{meta['name']} ({meta['rows']} workloads)", "value": meta["id"]})
    return opts
