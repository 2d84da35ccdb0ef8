"""``python -m modeling operators``: an edited listed GPU and a GPU from specs, the same numbers as the library,
and a bad spec sheet refused with the field named."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from modeling.__main__ import main
from modeling.operators.cli import table_models
from modeling.operators.model import OperatorModel, load_operators, model_latencies
from modeling.operators.specs import edit_spec, load_devices

QUICK = ["--train", "P4", "T4", "V100", "--sample", "30"]


def test_edited_gpu_matches_the_library(capsys, tmp_path):
    csv = tmp_path / "ops.csv"
    assert main(["operators", "--gpu", "H100", "--edit", "bandwidth=1.5x", "--layer", "2,128,768,12", "--json",
                 "--operators", str(csv), *QUICK]) == 0
    out = json.loads(capsys.readouterr().out)
    written = pd.read_csv(csv)
    assert len(written) == out["operators"] > 10_000
    assert {"latency_ms", "lower_ms", "upper_ms", "roofline_ms", "outside", "reason"} <= set(written.columns)
    assert out["gpu"] == "H100 (bandwidth=1.5x)" and out["spec"]["memory_bandwidth_gbs"] == pytest.approx(3430 * 1.5)
    names = [m["name"] for m in out["models"]]
    assert "layer b2 s128 h768 heads12" in names and "bert_large-inf-512-8" in names
    # the library, fitted the same way, gives the same sums to the digit
    table, devices = load_operators(), load_devices()
    rows = table[table["gpu"].isin(["P4", "T4", "V100"])]
    rows = rows.sample(frac=1.0, random_state=0).groupby(["gpu", "op"]).head(30)
    model = OperatorModel.fit(rows, ["P4", "T4", "V100"], devices)
    models = table_models(table)
    pred = model.predict(models.drop(columns="model"), edit_spec(devices["H100"], ["bandwidth=1.5x"]))
    lib = {m.name: m.latency_ms for m in model_latencies(pred, models["model"].to_numpy())}
    for m in out["models"]:
        if m["name"] in lib:
            assert m["latency_ms"] == lib[m["name"]]
    assert any(np.isfinite(m["upper_ms"] or np.nan) for m in out["models"])


@pytest.mark.parametrize("spec, words", [
    (["sms=0", "clock_mhz=1500", "memory_bandwidth_gbs=900", "l2_mb=6", "fp32_gflops=14000"], "sms = '0'"),
    (["sms=80", "clock_mhz=1500", "memory_bandwidth_gbs=9e11", "l2_mb=6", "fp32_gflops=14000"], "check the unit"),
    (["sms=80", "clock_mhz=1500", "memory_bandwidth_gbs=900", "l2_mb=6", "fp32_gflops=1e308"], "fp32_gflops"),
    (["sms=80", "clock_mhz=1500", "l2_mb=6", "fp32_gflops=14000"], "memory_bandwidth_gbs is missing"),
])
def test_bad_spec_sheets_exit_2_naming_the_field(capsys, spec, words):
    assert main(["operators", "--spec", *spec, *QUICK]) == 2
    assert words in capsys.readouterr().err


def test_a_gpu_from_specs_prints_its_models(capsys):
    assert main(["operators", "--spec", "sms=80", "clock_mhz=1370", "memory_bandwidth_gbs=900", "l2_mb=6",
                 "fp32_gflops=14029", "--name", "Twin", *QUICK]) == 0
    text = capsys.readouterr().out
    assert "Twin" in text and "same spec sheet as V100" in text and "gpt2_large-inf-1024-4" in text
