"""Datasets as the pages see them: the shipped GPU profiles or an upload.

The shipped dataset (id ``rodinia``) has a host and a target GPU and a metric;
an uploaded workload table has one host (the machine its features were
measured on) and the target columns chosen at upload. Both produce the
scenario dict of :mod:`modeling.shipped` / :mod:`modeling.scenario`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import lru_cache

import pandas as pd

from dashboard import store
from modeling import shipped
from modeling.scenario import table_scenario

SHIPPED_ID = "rodinia"
TABLE_HOST = "table"


@lru_cache(maxsize=1)
def _shipped_fingerprint() -> str:
    return hashlib.sha256((shipped.DATA_DIR / "gpu_workloads.parquet").read_bytes()).hexdigest()[:16]


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

    def scenario(self, host: str, target: str, metric: str) -> dict:
        if self.kind == "shipped":
            return shipped.scenario(host, target, metric)
        df = store.dataset_table(self.id)
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
        df = store.dataset_table(self.id)
        return df.set_index(self.mapping["id_col"])[col] if self.mapping.get("id_col") else df[col]

    def applications(self) -> list:
        if self.kind == "shipped":
            return sorted(shipped.workloads()["application"].unique().tolist())
        g = self.mapping.get("group_col")
        if not g:
            return []
        return sorted(store.dataset_table(self.id)[g].astype(str).unique().tolist())


def get(ds_id: str) -> DatasetView:
    """Resolve a dataset id; raises ``store.NotFound`` for unknown or deleted ids."""
    if ds_id == SHIPPED_ID:
        gpus = shipped.gpu_names()
        return DatasetView(SHIPPED_ID, "Rodinia on 9 NVIDIA GPUs (shipped)", "shipped", gpus, gpus,
                           list(shipped.METRICS), _shipped_fingerprint(), has_repeats=True)
    meta = store.dataset_meta(ds_id)
    m = meta["mapping"]
    return DatasetView(meta["id"], meta["name"], "upload", [TABLE_HOST], list(m["targets"]), ["value"],
                       meta["files"]["table.parquet"][:16], m, bool(m.get("repeat_col")))


def options() -> list[dict]:
    """Dropdown options: the shipped dataset, then uploads (newest first)."""
    opts = [{"label": "Rodinia on 9 NVIDIA GPUs (shipped)", "value": SHIPPED_ID}]
    for meta in store.list_datasets():
        opts.append({"label": f"{meta['name']} ({meta['rows']} workloads)", "value": meta["id"]})
    return opts
