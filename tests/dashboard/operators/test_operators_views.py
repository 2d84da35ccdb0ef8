"""What /operators shows of a result: a spec sheet identical to a training GPU's is said not to be a prediction,
specs beyond the training GPUs' are flagged, an operator outside what was measured is flagged with no interval."""

import math

from dash import html

from dashboard.operators.views import model_rows, operator_rows, summary
from modeling.operators.model import HELD_OUT_RECORD, ModelLatency, OperatorsOnGpu


def _text(component) -> str:
    if isinstance(component, str):
        return component
    if isinstance(component, (list, tuple)):
        return " ".join(_text(c) for c in component)
    children = getattr(component, "children", None)
    return "" if children is None else _text(children)


def _result(identical_to=None, notes=()):
    ops = {"op": ["linear", "bmm"], "b": [1, 8], "m": [512, 4096], "n": [1024, 4096], "k": [1024, 4096],
           "latency_ms": [0.2, 50.0], "lower_ms": [0.15, math.nan], "upper_ms": [0.3, math.nan],
           "roofline_ms": [0.1, 40.0], "outside": [False, True], "reason": ["", "outside what was measured: ..."]}
    models = [ModelLatency("layer b1 s512 h1024 heads16", 1.0, 0.8, 1.6, 0.7, 13, 0, 0.9),
              ModelLatency("big", 60.0, math.nan, math.nan, 45.0, 2, 1, 0.9)]
    return OperatorsOnGpu("V100", {}, ("P4", "V100"), 40, 0.9, {"gemm": 0.67}, 1.0, 0.1, list(notes), identical_to,
                          models, ops)


def test_a_twin_of_a_training_gpu_is_not_a_prediction():
    text = _text(summary(_result("V100", ["V100 has the same spec sheet as V100, a training GPU: ..."])))
    assert "Not a prediction" in text and HELD_OUT_RECORD in text
    assert text.count("same spec sheet") == 1  # said once, as the warning
    plain = _text(summary(_result()))
    assert "Not a prediction" not in plain


def test_specs_beyond_training_and_operators_outside_are_flagged():
    text = _text(summary(_result(notes=["sms = 200 is outside the training GPUs' 40 to 108: ..."])))
    assert "Outside what was measured: sms = 200" in text and "at most gemm 67 %" in text
    rows = operator_rows(_result())
    assert rows[1]["flag"] == "outside what was measured" and rows[1]["upper_ms"] is None and rows[0]["flag"] == ""
    m = model_rows(_result())
    assert m[1]["lower_ms"] is None and m[1]["roofline_ms"] == 45.0 and m[0]["vs_roofline"] == 1.0 / 0.7
    assert isinstance(summary(_result()), html.Div)
