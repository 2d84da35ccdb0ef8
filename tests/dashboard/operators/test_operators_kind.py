"""/operators' job parameters: every browser value is checked on the server, a bad spec sheet is refused naming
the field (zero SMs, a bandwidth in bytes/s, 1e308, text, infinity), and an edit is named in the GPU's name."""

import pytest

from dashboard.operators.kinds import OPERATORS
from dashboard.operators.work import spec_of
from dashboard.ui.url_state import InvalidParameter
from modeling.operators.specs import load_devices


@pytest.mark.parametrize("bad, param, words", [
    ({"sms": 0}, "sms", "sms = 0"),
    ({"sms": 13.5}, "sms", "whole number"),
    ({"bw": 3.35e12}, "bw", "check the unit"),
    ({"fp32": 1e308}, "fp32", "fp32_gflops"),
    ({"bw": "fast"}, "bw", "not a number"),
    ({"bw": float("inf")}, "bw", "finite"),
    ({"bw": ["1"]}, "bw", "expected a number"),
    ({"clock": -1}, "clock", "positive"),
    ({"gpu": "B300"}, "gpu", "is not one of"),
    ({"hidden": 1000, "heads": 16}, "heads", "not a multiple"),
    ({"batch": 10**9}, "batch", "outside"),
    ({"fit": "slow"}, "fit", "is not one of"),
])
def test_bad_values_are_refused_by_name(bad, param, words):
    with pytest.raises(InvalidParameter) as exc:
        OPERATORS.request({"gpu": "H100", **bad})
    assert exc.value.name == param and words in str(exc.value)


def test_a_listed_gpu_fills_the_spec_and_an_edit_is_named():
    plain = OPERATORS.request({"gpu": "L4"})["params"]
    assert spec_of(plain).name == "L4" and plain["sms"] == load_devices()["L4"].sms
    edited = OPERATORS.request({"gpu": "H100", "bw": 3430 * 1.5})["params"]
    assert spec_of(edited).name == "H100, edited: memory_bandwidth_gbs x1.5"
    assert OPERATORS.request({"gpu": "H100", "bw": 3430 * 1.5})["key"] != OPERATORS.request({"gpu": "H100"})["key"]
