"""The /new-app job: parameters validated on the server, the result's content, figures plotly accepts."""

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.newapp import figures, work
from dashboard.newapp.results import HeldOutRun
from dashboard.newapp.kinds import NEWAPP
from dashboard.newapp.views import picks_of
from modeling.newapp.results import ApplicationEstimate, HeldOutEvaluation
from dashboard.state import datasets
from dashboard.ui.url_state import InvalidParameter
from tests.shared_data import shipped_as_upload


def test_defaults_and_refusals():
    req = NEWAPP.request({})
    p = req["params"]
    assert (p["host"], p["target"], p["application"], p["host_device"], p["target_device"]) == \
        ("GTX-680", "GTX-980", "heartwall", "GTX-680", "GTX-980")
    with pytest.raises(InvalidParameter, match="application"):
        NEWAPP.request({"application": "../../etc"})
    with pytest.raises(InvalidParameter, match="shipped data's devices"):
        NEWAPP.request({"host_device": "Tesla-P100"})
    with pytest.raises(InvalidParameter, match="is the host"):
        NEWAPP.request({"target": "GTX-680"})


def test_an_upload_without_an_application_column_says_so():
    df = pd.DataFrame({"w": [f"w{i}" for i in range(6)], "a": np.arange(6.0), "host_t": np.arange(1.0, 7.0),
                       "t": np.arange(1.0, 7.0)})
    meta = datasets.save_dataset(df, "no groups", {"id_col": "w", "group_col": None, "targets": ["t"],
                                                   "features": ["a", "host_t"], "host_col": "host_t",
                                                   "repeat_col": None})
    with pytest.raises(InvalidParameter, match="no an application|application \\(group\\) column"):
        NEWAPP.request({"dataset": meta["id"]})


def test_an_upload_with_applications_runs_and_names_the_missing_roofline():
    rng = np.random.default_rng(1)
    apps = np.repeat(["a", "b", "c"], 8)
    host = rng.uniform(1, 10, 24)
    ratio = {"a": 0.5, "b": 0.6, "c": 0.55}
    df = pd.DataFrame({"w": [f"w{i}" for i in range(24)], "app": apps, "x1": rng.uniform(1, 2, 24),
                       "x2": rng.uniform(1, 2, 24), "host_t": host,
                       "t": host * np.array([ratio[a] for a in apps])})
    meta = datasets.save_dataset(df, "three apps", {"id_col": "w", "group_col": "app", "targets": ["t"],
                                                    "features": ["x1", "x2", "host_t"], "host_col": "host_t",
                                                    "repeat_col": None})
    req = NEWAPP.request({"dataset": meta["id"], "application": "b"})
    assert req["params"]["host_device"] == work.NO_DEVICE
    res = work.newapp_result(req["params"])
    roof = res.application.method("roofline")
    assert roof.mean_ape is None and "device specs" in roof.missing
    naive = res.application.method("naive-pooled")
    assert naive.mean_ape == pytest.approx(100 * abs(0.6 - 0.525) / 0.6, rel=0.05)
    cal = work.calibrated(req["params"], [{"id": "w9"}])
    one = cal.method("one-run")
    assert one.mean_ape < 1e-9 and one.n == 7  # a constant ratio: exact on the other inputs


def test_result_merge_and_figures():
    params = NEWAPP.request({"models": "forest"})["params"]
    res = work.newapp_result(params)
    app = res.application
    assert type(res) is HeldOutRun and type(app) is ApplicationEstimate and res.every.rows is None
    hw = [r["id"] for r in app.rows]
    merged = app.with_calibration(work.calibrated(params, [{"id": hw[5]}]))
    names = [m.method for m in merged.methods]
    assert names == ["naive-pooled", "naive-balanced", "roofline", "one-run", "RandomForest", "GradientBoosting"]
    one = merged.method("one-run")
    assert one.n == len(hw) - 1 and merged.calibrated
    for r in merged.rows:
        assert r["RandomForest|point"] is not None
    go.Figure(figures.estimates(merged, "duration", "s"))
    go.Figure(figures.per_application(res.every))
    assert type(res.every) is HeldOutEvaluation and set(res.every.groups) == {"backprop", "heartwall", "hotspot", "lud"}


@pytest.mark.parametrize("cal,time,ok", [(None, None, True), ("w1", None, True), ("w1", 0.5, True),
                                         ("w1", "0.5", True), ("w1", -1, False), ("w1", "x", False),
                                         ("w1", True, False), (["w1"], None, False), ("w1", float("inf"), False)])
def test_calibration_form_values_are_validated(cal, time, ok):
    if ok:
        picks_of(cal, time)
    else:
        with pytest.raises(InvalidParameter):
            picks_of(cal, time)


def test_an_uploaded_device_table_is_validated_stored_by_content_and_feeds_the_roofline():
    from dashboard.newapp import devices
    from modeling import shipped
    from modeling.errors import DataError

    table = shipped.devices().copy()
    table["device"] = ["Ours-" + d for d in table["device"]]
    a = devices.save_devices(table, "our GPUs")
    b = devices.save_devices(table.iloc[::-1].iloc[::-1], "again")
    assert a["id"] == b["id"] and devices.DEVICES_ID.match(a["id"])
    for bad, why in ((table.drop(columns=["sms"]), "lacks"), (table.assign(sms=-1), "positive"),
                     (table.assign(device="same"), "unique")):
        with pytest.raises(DataError, match=why):
            devices.save_devices(bad, "bad")
    up, mapping = shipped_as_upload()
    meta = datasets.save_dataset(up, "ours", mapping)
    with pytest.raises(InvalidParameter, match="host_device"):
        NEWAPP.request({"dataset": meta["id"], "host_device": "Ours-GTX-680"})  # not in the shipped table
    req = NEWAPP.request({"dataset": meta["id"], "devices": a["id"], "host_device": "Ours-GTX-680",
                          "target_device": "Ours-GTX-980", "models": "none"})
    res = work.newapp_result(req["params"])
    roof = res.every.method("roofline")
    assert roof.mean_ape == pytest.approx(33.5, abs=0.1)  # the shipped pair's roofline, from the upload
    with pytest.raises(InvalidParameter, match="shipped device table"):
        NEWAPP.request({"devices": a["id"]})
