"""Unseen-application estimates: roofline classes and ratios, one-run calibration, held-out evaluation,
warnings, the CLI on the shipped data and on a table."""

import json

import numpy as np
import pytest

from tests import cli

from modeling import shipped
from modeling.crossgen.ensemble import run_scenario
from modeling.errors import ConfigError, DataError
from modeling.newapp import estimators as est
from modeling.newapp.application import estimate_application
from modeling.newapp.data import AppTable, device_spec, frame_table, shipped_table
from modeling.newapp.evaluate import evaluate



def constructed(metric="duration"):
    """Three workloads on GTX-680 -> GTX-980: memory-, compute- and latency-bound by construction."""
    names = ["duration", "device_memory_read_throughput", "device_memory_write_throughput",
             "issue_slot_utilization", "grid_x", "grid_y"]
    X = np.array([[1.0, 80.0, 40.0, 10.0, 64, 1],     # 120 GB/s >= 0.5 x 192.3: memory
                  [1.0, 5.0, 5.0, 70.0, 64, 1],       # 70 % issue slots: compute
                  [1.0, 5.0, 5.0, 20.0, 20, 1]])      # latency: 20 blocks, 8 vs 16 SMs -> 3 vs 2 waves
    roles = {"dram_read": 1, "dram_write": 2, "issue_util": 3, "grid_x": 4, "grid_y": 5}
    return AppTable(["m", "c", "l"], np.array(["a", "b", "c"]), np.array(["a", "b", "c"]), X[:, 0],
                    np.full(3, np.nan), X, names, 0, roles, device_spec("GTX-680"), device_spec("GTX-980"), metric)


def test_roofline_classes_and_ratios_on_constructed_counters():
    t = constructed()
    e = est.roofline(t)
    assert e.detail["class"] == ["memory", "compute", "latency"]
    assert e.point[0] == pytest.approx(192.3 / 224.0)
    assert e.point[1] == pytest.approx((1536 * 1058) / (2048 * 1216))
    assert e.point[2] == pytest.approx((1058 / 1216) * (2 / 3))  # ceil(20/16)=2 waves vs ceil(20/8)=3
    assert np.all(e.lo <= e.point) and np.all(e.point <= e.hi)
    # cycles: the clock ratio is taken out
    c = est.roofline(constructed("cycles"))
    assert c.point[0] == pytest.approx(192.3 / 224.0 * 1216 / 1058)
    # the thresholds are parameters
    assert est.roofline(t, memory_fraction=0.9).detail["class"][0] == "latency"
    assert est.roofline(t, compute_util=80).detail["class"][1] == "latency"


def test_roofline_names_what_is_missing():
    t = constructed()
    t.target_spec = None
    t.roles = {k: v for k, v in t.roles.items() if k != "issue_util"}
    with pytest.raises(LookupError, match="target device specs, the issue_util counter"):
        est.roofline(t)


def test_one_run_calibration_is_exact_for_a_constant_ratio():
    host = np.array([1.0, 2.0, 5.0, 10.0, 40.0])
    target = 0.37 * host
    e = est.one_run(host, host[[2]], target[[2]], spread=1.2)
    assert np.allclose(e.point, target, rtol=1e-12)
    assert np.allclose(e.lo, target / 1.2) and np.allclose(e.hi, target * 1.2)
    # a ratio that grows with size as a power law is exact from two points (line in log-log)
    target2 = 0.2 * host ** 1.1
    e2 = est.one_run(host, host[[1, 3]], target2[[1, 3]])
    assert np.allclose(e2.point, target2, rtol=1e-9)


def test_calibration_points_spread_over_the_sizes():
    host = np.array([5.0, 1.0, 3.0, 2.0, 4.0])
    assert host[est.calibration_points(host, 1)].tolist() == [3.0]
    assert sorted(host[est.calibration_points(host, 3)].tolist()) == [2.0, 3.0, 4.0]


def test_naive_pooled_is_the_leaderboards_baseline_under_logo():
    t = shipped_table("GTX-680", "GTX-980")
    res = evaluate(t, "logo", models=[])
    pooled = res.method("naive-pooled")
    base = run_scenario(shipped.scenario("GTX-680", "GTX-980"), models=["NNLS"], cv="logo").baseline
    assert pooled.mean_ape == pytest.approx(base.e_out, rel=1e-9)
    assert set(pooled.per_group) == {"backprop", "heartwall", "hotspot", "lud"}


def test_held_out_estimates_never_see_the_held_out_targets():
    t = shipped_table("GTX-680", "Tesla-P100")
    a = estimate_application(t, "heartwall", models=["RandomForest"])
    t2 = shipped_table("GTX-680", "Tesla-P100")
    t2.target[t2.groups == "heartwall"] *= 10.0  # other truth for the held-out app only
    b = estimate_application(t2, "heartwall", models=["RandomForest"])
    for ra, rb in zip(a.rows, b.rows):
        for m in ("naive-pooled", "naive-balanced", "roofline", "RandomForest"):
            assert ra[f"{m}|point"] == rb[f"{m}|point"]


def test_one_run_on_the_page_calibration_and_a_typed_time():
    t = shipped_table("GTX-680", "GTX-980")
    hw = [i for i, g in zip(t.ids, t.groups) if g == "heartwall"]
    base = estimate_application(t, "heartwall", models=[])
    one = base.method("one-run")
    assert one.n == 0 and one.mean_ape is None  # nothing calibrated: no one-run numbers, not zeros
    cal = estimate_application(t, "heartwall", [{"id": hw[10]}], models=[])
    one, naive = cal.method("one-run"), cal.method("naive-pooled")
    assert one.n == len(hw) - 1 and one.mean_ape < 10 < naive.mean_ape
    row = next(r for r in cal.rows if r["id"] == hw[10])
    assert row["calibrating"] and row["one-run|point"] is None
    typed = estimate_application(t, "heartwall", [{"id": hw[10], "time": row["measured"] * 2}], models=[])
    r0 = next(r for r in typed.rows if r["id"] == hw[0])
    r1 = next(r for r in cal.rows if r["id"] == hw[0])
    assert r0["one-run|point"] == pytest.approx(2 * r1["one-run|point"])
    with pytest.raises(DataError, match="not in the held-out application"):
        estimate_application(t, "heartwall", [{"id": "calculate_temp:64x0"}], models=[])
    with pytest.raises(DataError, match="positive"):
        estimate_application(t, "heartwall", [{"id": hw[0], "time": -1}], models=[])


def test_warnings_say_what_they_saw():
    t = shipped_table("GTX-680", "GTX-980")
    res = estimate_application(t, "heartwall", models=[])
    codes = {w["code"]: w for w in res.warnings}
    assert {"architecture", "few", "dominant", "disagree"} <= set(codes)
    assert "Kepler" in codes["architecture"]["evidence"] and "Maxwell" in codes["architecture"]["evidence"]
    assert "backprop is 114 of 198" in codes["dominant"]["evidence"]
    same = estimate_application(shipped_table("GTX-680", "Tesla-K40"), "heartwall", models=[])
    assert "architecture" not in {w["code"] for w in same.warnings}  # both Kepler
    lud = estimate_application(t, "lud", models=[])
    small = next(w for w in lud.warnings if w["code"] == "small")
    assert "fewer thread blocks" in small["evidence"] and "16" in small["evidence"]


def shipped_frame(target="GTX-980"):
    w = shipped.workloads()
    feats = shipped.counters()["counter"].tolist()
    df = w[["workload", "application", "kernel"]].copy()
    for c in feats:
        df[c] = w[f"{c}@GTX-680"]
    df["t_target"] = w[f"duration@{target}"]
    return df


def test_a_table_with_devices_matches_the_shipped_pair():
    df = shipped_frame()
    t = frame_table(df, target="t_target", group="application", host_col="duration", id_col="workload",
                    host_device="GTX-680", target_device="GTX-980")
    a = evaluate(t, "logo", models=[])
    b = evaluate(shipped_table("GTX-680", "GTX-980"), "logo", models=[])
    for ma, mb in zip(a.methods, b.methods):
        assert ma.method == mb.method and ma.mean_ape == pytest.approx(mb.mean_ape)
    # without devices the roofline says what it lacks; the rest still runs
    t2 = frame_table(df, target="t_target", group="application", host_col="duration", id_col="workload")
    roof = evaluate(t2, "logo", models=[]).method("roofline")
    assert roof.mean_ape is None and not roof.scored and "host device specs" in roof.missing
    with pytest.raises(ConfigError, match="Unknown device"):
        frame_table(df, target="t_target", group="application", host_col="duration", host_device="GTX-9999")
    with pytest.raises(DataError, match="only one"):
        frame_table(df.assign(application="x"), target="t_target", group="application", host_col="duration")


def run_cli(*args):
    return cli.run_cli("newapp", *args)


def test_cli_json_on_the_shipped_data_and_a_csv(tmp_path):
    r = run_cli("--host", "GTX-680", "--target", "GTX-980", "--models", "RandomForest", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    names = [m["method"] for m in d["methods"]]
    assert names == ["naive-pooled", "naive-balanced", "roofline", "one-run", "RandomForest"]
    for m in d["methods"]:
        assert set(m) >= {"method", "mean_ape", "median_ape", "within_10", "within_25", "per_group"}
    one = d["methods"][3]
    assert one["mean_ape"] < 5  # the kernel's own ratio from one input
    path = tmp_path / "t.csv"
    shipped_frame().rename(columns={"issue_slot_utilization": "util"}).to_csv(path, index=False)
    r = run_cli("--csv", str(path), "--target", "t_target", "--group", "application", "--host-col", "duration",
                "--id", "workload", "--host-device", "GTX-680", "--target-device", "GTX-980", "--cv", "loko",
                "--map", "issue_util=util", "--models", "none", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["cv_label"] == "leave one kernel out" and len(d["groups"]) == 6
    roof = next(m for m in d["methods"] if m["method"] == "roofline")
    assert roof["mean_ape"] is not None
    r = run_cli("--csv", str(path), "--target", "t_target")
    assert r.returncode == 2 and "--group" in r.stderr and "Traceback" not in r.stderr


def test_cli_smoke_subprocess(tmp_path):
    """``python -m modeling newapp`` as a user starts it: a refusal is a message and exit code 2."""
    path = tmp_path / "t.csv"
    shipped_frame().to_csv(path, index=False)
    r = cli.run_subprocess("newapp", "--csv", str(path), "--target", "t_target")
    assert r.returncode == 2 and "--group" in r.stderr and "Traceback" not in r.stderr
