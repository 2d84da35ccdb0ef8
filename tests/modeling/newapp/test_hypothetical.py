"""A GPU never built or measured: the spec roofline of a typed device by hand, its label equal to the same rule
evaluated on the measured pairs, refused specs, and the command line giving the same numbers."""

import json

import numpy as np
import pytest

from modeling import shipped
from modeling.errors import ConfigError, DataError, ModelingError
from modeling.metrics import ape
from modeling.newapp import estimators as est
from modeling.newapp.data import device_spec, frame_table, shipped_host_table, shipped_table
from modeling.newapp.evaluate import evaluate
from modeling.newapp.hypothetical import (SpecError, applicability, estimate_hypothetical, parse_target_spec,
                                          shipped_hypothetical, table_hypothetical, track_record, typed_device)
from tests.modeling.newapp.test_newapp import constructed, run_cli, shipped_frame

VOLTA = dict(name="Next", architecture="Volta", sms=80, cuda_cores=5120, boost_clock_mhz=1530,
             memory_bandwidth_gbs=900)
HOPPER = "name=H,architecture=Hopper,sms=132,cuda_cores=16896,boost_clock_mhz=1980,memory_bandwidth_gbs=3350"


def test_typed_device_roofline_by_hand():
    dev = typed_device(**VOLTA)
    res = estimate_hypothetical(constructed(), dev, track_record([], "none"))
    r_mem = 192.3 / 900
    r_cmp = (1536 * 1058) / (5120 * 1530)
    # latency: clock ratio x waves; 64 blocks: ceil(64/80) = 1 wave on the device, ceil(64/8) = 8 on GTX-680;
    # 20 blocks: 1 wave against ceil(20/8) = 3
    r_lat = [(1058 / 1530) / 8, (1058 / 1530) / 8, (1058 / 1530) / 3]
    rows = res.to_dict()["rows"]
    assert [r["class"] for r in rows] == ["memory", "compute", "latency"]
    for r, want, lat in zip(rows, (r_mem, r_cmp, r_lat[2]), r_lat):
        assert r["host"] == 1.0
        assert r["point"] == pytest.approx(want, rel=1e-12)
        assert r["lo"] == pytest.approx(min(r_mem, r_cmp, lat), rel=1e-12)
        assert r["hi"] == pytest.approx(max(r_mem, r_cmp, lat), rel=1e-12)
    assert res.class_ratios["memory"] == pytest.approx(r_mem) and res.class_ratios["compute"] == pytest.approx(r_cmp)
    assert res.applicability["verdict"] == "no record"
    json.dumps(res.to_dict())


def test_the_label_is_the_same_rule_on_every_measured_pair_of_the_host():
    dev = parse_target_spec(HOPPER)
    res = shipped_hypothetical("GTX-680", dev)
    track = res.track
    targets = [g for g in shipped.gpu_names() if g != "GTX-680"]
    assert [p["target"] for p in track.pairs] == targets and "GTX-680" in track.source
    pooled_a, pooled_in = [], []
    for p, g in zip(track.pairs, targets):
        t = shipped_table("GTX-680", g)
        e = est.roofline(t)
        a = ape(t.target, e.point)
        inside = (t.target >= e.lo * (1 - 1e-12)) & (t.target <= e.hi * (1 + 1e-12))
        assert p["n"] == len(t.target) and p["architecture"] == device_spec(g)["architecture"]
        assert p["median_ape"] == pytest.approx(np.median(a)) and p["mean_ape"] == pytest.approx(a.mean())
        assert p["in_class_range"] == pytest.approx(100 * inside.mean())
        # and it is exactly the roofline row of the held-out evaluation of that pair
        roof = evaluate(t, "logo", models=[]).method("roofline")
        assert p["mean_ape"] == pytest.approx(roof.mean_ape) and p["median_ape"] == pytest.approx(roof.median_ape)
        pooled_a.append(a)
        pooled_in.append(inside)
    a = np.concatenate(pooled_a)
    assert track.pooled["n"] == a.size == 2200
    assert track.pooled["median_ape"] == pytest.approx(np.median(a))
    assert track.pooled["in_class_range"] == pytest.approx(100 * np.concatenate(pooled_in).mean())
    assert track.same_architecture is None  # no Hopper was measured
    assert track.to_dict()["architectures"] == sorted({device_spec(g)["architecture"] for g in targets})
    assert res.applicability["verdict"] == "extrapolation"
    assert "another architecture generation" in res.warnings[0]["evidence"]
    assert len(res.rows) == 283  # every workload measured on the host, none dropped for lacking a target


def test_a_device_like_the_measured_ones_is_inside_and_pooled_with_its_generation():
    dev = typed_device("K-like", "kepler", 14, 2688, 876, 288)
    res = shipped_hypothetical("GTX-680", dev)
    assert res.applicability == {"verdict": "inside", "reasons": []}
    assert not [w for w in res.warnings if w["code"] == "extrapolation"]
    kepler = [p for p in res.track.pairs if p["architecture"] == "Kepler"]
    assert res.track.same_architecture["n"] == sum(p["n"] for p in kepler) == 4 * 283
    # the Titan's specs typed in give the Titan pair's estimates exactly (the estimate never saw its times)
    titan = shipped_table("GTX-680", "Titan")
    e = est.roofline(titan)
    by_id = {r["id"]: r["point"] for r in res.rows}
    assert np.allclose([by_id[i] for i in titan.ids], e.point, rtol=1e-12)


def test_applicability_names_out_of_range_specs():
    measured = [device_spec(g) for g in ("GTX-980", "Tesla-P100")]
    v = applicability(typed_device("slow", "Maxwell", 4, 512, 900, 100), measured)
    assert v["verdict"] == "extrapolation"
    assert any("below the lowest" in r and "memory bandwidth" in r for r in v["reasons"])
    assert applicability(device_spec("GTX-980"), measured)["verdict"] == "inside"


@pytest.mark.parametrize("change,match", [
    ({"sms": 0}, "sms, the number of streaming multiprocessors, must be a positive"),
    ({"sms": 80.5}, "whole number"),
    ({"sms": 5000}, "between 1 and 1,024"),
    ({"cuda_cores": "many"}, "must be a number, not 'many'"),
    ({"cuda_cores": 10}, "fewer than sms"),
    ({"boost_clock_mhz": float("nan")}, "positive finite"),
    ({"boost_clock_mhz": float("inf")}, "positive finite"),
    ({"boost_clock_mhz": 1.5}, "between 100 and 5,000"),  # GHz typed as MHz
    ({"memory_bandwidth_gbs": -3}, "positive finite"),
    ({"memory_bandwidth_gbs": None}, "must be a number"),
    ({"memory_bandwidth_gbs": True}, "must be a number"),
    ({"name": ""}, "name is empty"),
    ({"name": "x" * 61}, "longer than 60"),
    ({"name": "a\x00b"}, "control characters"),
    ({"architecture": 7}, "architecture must be text"),
])
def test_bad_specs_are_refused_with_the_field_named(change, match):
    with pytest.raises(SpecError, match=match) as info:
        typed_device(**{**VOLTA, **change})
    assert isinstance(info.value, ConfigError) and isinstance(info.value, ModelingError)


def test_markup_in_a_name_is_kept_as_plain_text():
    dev = typed_device(**{**VOLTA, "name": "<img src=x onerror=alert(1)>"})
    assert dev["device"] == "<img src=x onerror=alert(1)>"


@pytest.mark.parametrize("text,match", [
    ("", "takes"), ("name=X", "lacks architecture"), (HOPPER + ",colour=red", "unknown field 'colour'"),
    (HOPPER + ",sms=3", "sms is given twice"), ("name=X;sms=3", "not KEY=VALUE|lacks"),
    (HOPPER.replace("sms=132", "sms=lots"), "must be a number"),
])
def test_target_spec_text_is_parsed_strictly(text, match):
    with pytest.raises(SpecError, match=match):
        parse_target_spec(text)


def test_roofline_needs_its_counters_and_host_specs():
    df = shipped_frame().drop(columns=["issue_slot_utilization"])
    t = frame_table(df, target="t_target", group="application", host_col="duration", id_col="workload",
                    host_device="GTX-680", target_device="GTX-980")
    with pytest.raises(DataError, match="issue_util"):
        table_hypothetical(t, typed_device(**VOLTA))
    t = frame_table(shipped_frame(), target=None, group="application", host_col="duration", id_col="workload")
    with pytest.raises(DataError, match="host device specs"):
        table_hypothetical(t, typed_device(**VOLTA))


def test_a_table_is_labelled_with_its_own_measured_pair_or_says_it_has_none():
    df = shipped_frame().rename(columns={"issue_slot_utilization": "util"})
    t = frame_table(df, target="t_target", group="application", host_col="duration", id_col="workload",
                    host_device="GTX-680", target_device="GTX-980", mapping={"issue_util": "util"})
    res = table_hypothetical(t, typed_device(**VOLTA))
    ref = shipped_hypothetical("GTX-680", typed_device(**VOLTA))
    gtx980 = next(p for p in ref.track.pairs if p["target"] == "GTX-980")
    # the same record, except the interval's coverage: one pair alone calibrates no interval
    assert res.track.pairs == [{**gtx980, "in_interval": None}] and "t_target" in res.track.source
    assert res.track.interval is None
    assert [r["point"] for r in res.rows] == pytest.approx([r["point"] for r in ref.rows])
    t = frame_table(df, target=None, group="application", host_col="duration", id_col="workload",
                    host_device="GTX-680", mapping={"issue_util": "util"})
    res = table_hypothetical(t, typed_device(**VOLTA))
    assert res.track.pairs == [] and res.track.pooled["n"] == 0 and res.applicability["verdict"] == "no record"


def test_cycles_take_the_clock_ratio_out():
    dev = typed_device(**VOLTA)
    d = shipped_hypothetical("GTX-680", dev, "duration")
    c = shipped_hypothetical("GTX-680", dev, "cycles")
    assert c.class_ratios["memory"] == pytest.approx(d.class_ratios["memory"] * 1530 / 1058)
    assert len(shipped_host_table("GTX-970").ids) == 251


def test_cli_target_spec_gives_the_same_numbers(tmp_path):
    r = run_cli("--host", "GTX-680", "--target-spec", HOPPER, "--json")
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    want = shipped_hypothetical("GTX-680", parse_target_spec(HOPPER)).to_dict()
    got.pop("seconds"), want.pop("seconds")
    assert got == json.loads(json.dumps(want))
    r = run_cli("--host", "GTX-680", "--target-spec", HOPPER)
    assert r.returncode == 0 and "pooled" in r.stdout and "extrapolation" in r.stdout
    r = run_cli("--host", "GTX-680", "--gpu", "Tesla-P100", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    # P100's own pair is scored but neither calibrates nor vouches for it: without it Pascal is unmeasured
    assert d["source"] == "device table" and d["applicability"]["verdict"] == "extrapolation"
    assert "Pascal is another architecture" in d["applicability"]["reasons"][0]
    assert d["track"]["excluded"] == "Tesla-P100" and d["track"]["interval"]["n_pairs"] == 7
    r = run_cli("--host", "GTX-680", "--target-spec", HOPPER.replace("sms=132", "sms=-1"))
    assert r.returncode == 2 and "sms" in r.stderr and "Traceback" not in r.stderr
    path = tmp_path / "t.csv"
    shipped_frame().rename(columns={"issue_slot_utilization": "util"}).to_csv(path, index=False)
    r = run_cli("--csv", str(path), "--target", "t_target", "--group", "application", "--host-col", "duration",
                "--id", "workload", "--host-device", "GTX-680", "--target-device", "GTX-980",
                "--map", "issue_util=util", "--target-spec", HOPPER, "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [p["target"] for p in d["track"]["pairs"]] == ["GTX-980"] and d["n_workloads"] == 283


def test_the_interval_is_calibrated_over_measured_pairs_as_units():
    """Each measured pair's own 90 % quantile of |log(measured / estimate)|, then the conformal rank over the
    pairs: with 8 pairs the rank (9) exceeds them, so the widest pair is used and 8/9 is the level supported;
    every workload's interval is the estimate divided and multiplied by that factor."""
    from modeling.newapp.hypothetical import error_interval, shipped_hypothetical, shipped_pairs, track_record

    tables = shipped_pairs("GTX-680")
    per_pair = []
    for t in tables:
        e = est.roofline(t)
        ok = np.isfinite(t.target) & (t.target > 0) & (e.point > 0)
        per_pair.append(np.quantile(np.abs(np.log(t.target[ok] / e.point[ok])), 0.9, method="higher"))
    iv = track_record(tables, "shipped pairs").interval
    assert iv["n_pairs"] == len(tables) == 8
    assert iv["factor"] == pytest.approx(np.exp(max(per_pair)))
    assert iv["level_supported"] == pytest.approx(8 / 9)
    res = shipped_hypothetical("GTX-680", device_spec("Tesla-P100")).to_dict()
    r = res["rows"][0]
    assert r["lower"] == pytest.approx(r["point"] / iv["factor"])
    assert r["upper"] == pytest.approx(r["point"] * iv["factor"])
    # one pair only: no interval can be calibrated
    assert error_interval(np.array([0.1, 0.2]), np.array(["a", "a"])) is None
