"""The shipped data in data/: shape, provenance rules, MAD filtering, determinism."""

import hashlib
import os
from pathlib import Path

import numpy as np
import pytest

from modeling import shipped
from modeling.tables.repeats import mad_window
from modeling.build.rodinia import GPUS, build

#: gpuperfpredict's files as data/README.md describes them, in the folder ``PERFCAST_PUBLIC_DATA`` names
SOURCE = Path(os.environ.get("PERFCAST_PUBLIC_DATA", "/nonexistent")) / "gpuperfpredict"
DATA = Path(__file__).resolve().parents[2] / "data"


def test_workload_table_shape_and_columns():
    w = shipped.workloads()
    assert len(w) >= 250 and w["workload"].is_unique
    assert {"workload", "application", "kernel"} <= set(w.columns)
    meta = shipped.counters()
    assert len(meta[meta.role == "feature"]) >= 65
    assert set(meta.category) == {"instruction", "memory", "cache", "occupancy", "utilization",
                                  "launch geometry", "time"}
    for gpu in GPUS:
        for c in meta.counter:
            assert f"{c}@{gpu}" in w.columns
        assert f"duration@{gpu}" in w.columns and f"elapsed_cycles_sm@{gpu}" in w.columns
    # lud_perimeter was not measured on GTX-970 and TitanX
    lp = w[w.kernel == "lud_perimeter"]
    assert lp["duration@GTX-970"].isna().all() and lp["duration@GTX-680"].notna().all()


def test_devices_table():
    d = shipped.devices()
    assert d["device"].tolist() == GPUS
    assert set(d.architecture) == {"Kepler", "Maxwell", "Pascal"}
    assert (d.sms > 0).all() and (d.memory_bandwidth_gbs > 0).all()
    assert d.compute_capability.tolist()[:2] == ["3.0", "3.5"]


def test_data_folder_is_compact():
    total = sum(p.stat().st_size for p in DATA.rglob("*") if p.is_file())
    assert total < 15 * 1024 * 1024


def test_mad_filter_reproduces_shipped_hotspot_values():
    raw = shipped.raw_launches()
    w = shipped.workloads().set_index("workload")
    for (s1, s2), grp in list(raw.groupby(["input_size_1", "input_size_2"]))[:6]:
        win = mad_window(grp["duration"].to_numpy(), k=7)
        shipped_val = w.loc[f"calculate_temp:{s1}x{s2}", "duration@GTX-680"]
        assert shipped_val == pytest.approx(win.mean_inliers, rel=1e-12)
        assert w.loc[f"calculate_temp:{s1}x{s2}", "repeats_outliers@GTX-680"] == win.n_outliers


def test_scenario_builds_host_target_pairs():
    s = shipped.scenario("GTX-680", "Tesla-P100", "duration")
    assert s["X"].shape == (283, len(s["feature_names"])) and np.all(np.isfinite(s["X"]))
    assert s["feature_names"][s["host_index"]] == "duration"
    s2 = shipped.scenario("GTX-970", "GTX-980", "cycles")
    assert s2["missing_rows"] == 32 and s2["X"].shape[0] == 251


@pytest.mark.skipif(not SOURCE.exists(),
                    reason="PERFCAST_PUBLIC_DATA names no folder with gpuperfpredict/ (data/README.md)")
def test_build_is_deterministic_and_matches_shipped(tmp_path):
    summary = build(SOURCE, tmp_path)
    for name, digest in summary["files"].items():
        assert digest == hashlib.sha256((DATA / name).read_bytes()).hexdigest(), name
