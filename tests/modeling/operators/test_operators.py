"""Operator latency on a GPU given by its specs: the shipped NeuSight table, the spec sheet's checks, the
utilisation model's bounds, flags and intervals (a small fit on a subsample, to stay fast)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from modeling import DATA_DIR
from modeling.build.neusight import trace_operator
from modeling.errors import DataError
from modeling.operators.features import roofline_ms
from modeling.operators.model import OperatorModel, load_operators, model_latencies, model_latency, transformer_layer
from modeling.operators.specs import SpecError, edit_spec, load_devices, validate_spec

TRAIN = ("P4", "T4", "V100")


@pytest.fixture(scope="module")
def table():
    return load_operators()


@pytest.fixture(scope="module")
def devices():
    return load_devices()


@pytest.fixture(scope="module")
def model(table, devices):
    rows = table[table["gpu"].isin(TRAIN) & (table["op"] != "other")]
    small = rows.sample(frac=1.0, random_state=0).groupby(["gpu", "op"]).head(60)
    return OperatorModel.fit(small, TRAIN, devices)


# --- the shipped table ---------------------------------------------------------------------------------

def test_shipped_tables_are_small_and_complete(table, devices):
    assert (DATA_DIR / "neusight_operators.parquet").stat().st_size < 5e6
    assert set(devices) == {"P4", "P100", "T4", "V100", "A100-40GB", "A100-SXM4-40GB", "A100-80GB", "H100", "L4",
                            "MI100", "MI210", "MI250"}
    assert set(table["gpu"]) <= set(devices)
    ops = table[table["op"] != "other"]
    assert (ops["latency_ms"] > 0).all() and (ops[["b", "m", "n", "k"]] >= 1).all().all()
    # NeuSight's held-out GPUs are measured on model traces (H100, L4) or the grid (A100-80GB)
    for gpu in ("H100", "L4", "A100-80GB"):
        assert (table["gpu"] == gpu).sum() > 1000
    dev = pd.read_csv(DATA_DIR / "neusight_devices.csv")
    assert dev["spec_source"].str.contains("NeuSight").all() and dev["vendor_source"].str.len().gt(10).all()
    assert {"architecture", "release", "l2_mb", "fp16_matrix_tflops", "memory_gb"} <= set(dev.columns)


def test_trace_nodes_become_operators():
    linear = {"op": "call_module", "target": "bert.encoder.layer.0.attention.self.query",
              "input_shapes": "[[8, 512, 1024]]", "output_shape": "(8, 512, 1024)",
              "meta": "{'nn_module_stack': OrderedDict([('q', <class 'torch.nn.modules.linear.Linear'>)])}"}
    assert trace_operator(linear) == ("linear", 1, 4096, 1024, 1024)
    addmm = {"op": "call_function", "target": "<built-in method addmm of type object at 0x1>",
             "input_shapes": "[[3840], [4096, 1280], [1280, 3840]]", "output_shape": "(4096, 3840)", "meta": ""}
    assert trace_operator(addmm) == ("linear", 1, 4096, 3840, 1280)
    matmul = {"op": "call_function", "target": "<built-in method matmul of type object at 0x1>",
              "input_shapes": "[[4, 20, 1024, 64], [4, 20, 64, 1024]]", "output_shape": "(4, 20, 1024, 1024)",
              "meta": ""}
    assert trace_operator(matmul) == ("bmm", 80, 1024, 1024, 64)
    add2 = {"op": "call_function", "target": "<built-in function add>",
            "input_shapes": "[[8, 512, 1024], [8, 512, 1024]]", "output_shape": "(8, 512, 1024)", "meta": ""}
    assert trace_operator(add2) == ("add", 4096, 1, 1024, 1)
    scalar = dict(add2, input_shapes="[[8, 512, 1024], [1]]")
    assert trace_operator(scalar)[0] == "addu"
    size = {"op": "call_method", "target": "size", "input_shapes": "[[8, 512]]", "output_shape": "(1,)", "meta": ""}
    assert trace_operator(size) is None


# --- the spec sheet -------------------------------------------------------------------------------------

GOOD = {"sms": 132, "clock_mhz": 1980, "memory_bandwidth_gbs": 3430, "l2_mb": 50, "fp32_gflops": 66908}


@pytest.mark.parametrize("field, value, words", [
    ("sms", 0, "sms = 0 must be a positive number"),
    ("memory_bandwidth_gbs", 3.35e12, "check the unit"),  # bytes/s given for GB/s
    ("fp32_gflops", 1e308, "outside what a GPU can have"),
    ("clock_mhz", float("nan"), "clock_mhz"),
    ("l2_mb", None, "l2_mb is missing"),
    ("sms", "many", "is not a number"),
    ("sms", 13.5, "whole number"),
])
def test_absurd_spec_values_are_refused_by_name(field, value, words):
    with pytest.raises(SpecError, match=words.replace("(", r"\(")):
        validate_spec("X", **{**GOOD, field: value})


def test_spec_edits(devices):
    h = devices["H100"]
    e = edit_spec(h, ["bandwidth=1.5x", "sms=144"])
    assert e.memory_bandwidth_gbs == pytest.approx(1.5 * h.memory_bandwidth_gbs) and e.sms == 144
    assert e.fp32_gflops == h.fp32_gflops and "bandwidth=1.5x" in e.name
    assert edit_spec(h, ["fp32=2x"]).fp32_matrix_gflops == pytest.approx(2 * h.fp32_gflops)
    with pytest.raises(SpecError, match="FIELD=VALUE"):
        edit_spec(h, ["bandwidth"])
    with pytest.raises(SpecError, match="check the unit"):
        edit_spec(h, ["bandwidth=1e9x"])


# --- the model -------------------------------------------------------------------------------------------

def test_never_below_the_roofline_and_intervals_contain_the_estimate(model, table, devices):
    part = table[(table["gpu"] == "L4") & (table["op"] != "other")].head(400)
    p = model.predict(part, devices["L4"])
    inside = ~p.outside
    assert np.all(p.latency_ms[inside] >= p.roofline_ms[inside] * (1 - 1e-12))
    assert np.all(p.lower_ms[inside] <= p.latency_ms[inside]) and np.all(p.latency_ms[inside] <= p.upper_ms[inside])
    assert np.all(p.lower_ms[inside] >= p.roofline_ms[inside] * (1 - 1e-12))
    np.testing.assert_allclose(p.roofline_ms, roofline_ms(part, devices["L4"]))
    r = model.predict(part, devices["L4"], method="roofline")
    np.testing.assert_allclose(r.latency_ms, p.roofline_ms)


def test_intervals_are_calibrated_on_training_gpus_only(model):
    for fam in ("gemm", "vector"):
        assert set(np.unique(model.loo_gpu[fam])) == set(TRAIN)
        assert math.isfinite(model.half_width[fam]) and model.half_width[fam] > 0
        # three GPUs cannot support 90 %: the level they can is stated
        assert model.level_supported[fam] == pytest.approx(3 / 4)


def test_a_gpu_identical_to_a_training_gpu_is_named(model, devices):
    p = model.predict(transformer_layer(1, 128, 768, 12), devices["V100"])
    assert p.identical_to == "V100" and "same spec sheet as V100" in p.notes[0]
    renamed = validate_spec("My GPU", **devices["V100"].values())
    assert model.predict(transformer_layer(1, 128, 768, 12), renamed).identical_to == "V100"
    assert model.predict(transformer_layer(1, 128, 768, 12), devices["H100"]).identical_to is None


def test_shapes_and_types_never_measured_are_flagged_not_pretended(model, devices):
    ops = pd.DataFrame([
        {"op": "linear", "b": 1, "m": 4096, "n": 1024, "k": 1024, "dtype": "float32"},
        {"op": "linear", "b": 1, "m": 10**7, "n": 10**5, "k": 10**5, "dtype": "float32"},  # beyond every measured
        {"op": "linear", "b": 1, "m": 4096, "n": 1024, "k": 1024, "dtype": "float16"},
        {"op": "conv2d", "b": 1, "m": 64, "n": 64, "k": 64, "dtype": "float32"},
    ])
    p = model.predict(ops, devices["H100"])
    assert list(p.outside) == [False, True, True, True]
    assert np.isfinite(p.upper_ms[0])
    assert np.isfinite(p.latency_ms[1]) and np.isnan(p.lower_ms[1]) and np.isnan(p.upper_ms[1])
    assert "outside what was measured" in p.reasons[1] and "FLOPs" in p.reasons[1]
    assert np.isnan(p.latency_ms[2]) and "float16" in p.reasons[2]
    assert np.isnan(p.latency_ms[3]) and "conv2d" in p.reasons[3]
    total = model_latency(p)
    assert math.isnan(total.latency_ms) and total.n_outside == 3  # no sum pretends to include them


def test_bad_operator_sizes_are_refused(model, devices):
    with pytest.raises(DataError, match="at least 1"):
        model.predict(pd.DataFrame([{"op": "bmm", "b": 0, "m": 1, "n": 1, "k": 1}]), devices["H100"])
    with pytest.raises(DataError, match="lacks column"):
        model.predict(pd.DataFrame([{"op": "bmm", "b": 1}]), devices["H100"])


def test_a_model_is_the_sum_of_its_operators(model, devices):
    layer = transformer_layer(2, 256, 1024, 16)
    p = model.predict(layer, devices["A100-80GB"])
    total = model_latency(p, "layer")
    assert total.latency_ms == pytest.approx(np.sum(p.latency_ms))
    assert total.lower_ms == pytest.approx(np.sum(p.lower_ms)) and total.upper_ms == pytest.approx(np.sum(p.upper_ms))
    assert total.lower_ms < total.latency_ms < total.upper_ms and total.n_operators == len(layer)
    two = model_latencies(p, ["a"] * 5 + ["b"] * (len(layer) - 5))
    assert sum(m.latency_ms for m in two) == pytest.approx(total.latency_ms)


def test_more_bandwidth_never_slows_a_memory_bound_operator(model, devices):
    ops = pd.DataFrame([{"op": "add", "b": 8192, "m": 1, "n": 4096, "k": 1}])
    base = model.predict(ops, devices["A100-80GB"]).roofline_ms[0]
    faster = model.predict(ops, edit_spec(devices["A100-80GB"], ["bandwidth=2x"])).roofline_ms[0]
    assert faster == pytest.approx(base / 2)


# --- the builder -----------------------------------------------------------------------------------------

def _neusight_folder(root):
    base = root / "scripts" / "asplos"
    (base / "data" / "device_configs").mkdir(parents=True)
    (base / "data" / "device_configs" / "Tesla_T4.json").write_text(
        '{"Device": "Tesla T4", "Dev_Mem": 15, "Mem_Bw": 320, "Num_Sm": 40, "Core_Per_SM": 64, "Freq": 1590, '
        '"SingleFLOPs": 8141, "L2Cache": 4}')
    (base / "data" / "dataset" / "train").mkdir(parents=True)
    (base / "data" / "dataset" / "train" / "ln.csv").write_text(
        "OPName,Latency,Device,B,H\nln,0.11,Tesla T4,4100,556\nln,0.12,Tesla T4,4708,564\n")
    (base / "label" / "Tesla_T4").mkdir(parents=True)
    (base / "label" / "Tesla_T4" / "bert-inf-512-8.csv").write_text(
        "op,target,meta,input_shapes,output_shape,latency\n"
        'call_function,<built-in method matmul of type object at 0x1>,,"[[8, 16, 512, 64], [8, 16, 64, 512]]",'
        '"(8, 16, 512, 512)",0.5\n'
        'call_method,size,,"[[8, 512]]","(1,)",0.007\n')
    return root


def test_the_builder_reads_neusight_the_same_way_twice(tmp_path):
    from modeling.build.neusight import build

    src = _neusight_folder(tmp_path / "src")
    info = build(src, tmp_path / "a")
    build(src, tmp_path / "b")
    for name in ("neusight_operators.parquet", "neusight_devices.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    ops = pd.read_parquet(tmp_path / "a" / "neusight_operators.parquet")
    assert info["devices"] == 1 and set(ops["op"]) == {"ln", "bmm", "other"}
    bmm = ops[ops["op"] == "bmm"].iloc[0]
    assert (bmm["b"], bmm["m"], bmm["n"], bmm["k"]) == (128, 512, 512, 64)
    assert ops.loc[ops["op"] == "other", "latency_ms"].iloc[0] == pytest.approx(0.007)
    with pytest.raises(DataError, match="not NeuSight"):
        build(tmp_path, tmp_path / "c")


def test_a_malformed_shape_cell_of_a_trace_is_no_shape():
    """A trace cell that is a literal of another kind, malformed or nested without end reads as no shape (only
    literals are evaluated: ast.literal_eval); it does not stop the build."""
    from modeling.build.neusight import _out_shape, _shapes

    assert _shapes("[[8, 512, 1024], [1]]") == [[8, 512, 1024], [1]] and _out_shape("(8, 512)") == [8, 512]
    for cell in ("5", "[" * 100_000, "__import__('os')", None, 3.0):
        assert _shapes(cell) == [] and _out_shape(cell) == []
