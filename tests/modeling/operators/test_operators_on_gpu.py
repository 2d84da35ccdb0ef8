"""``operators_on_gpu``, the one function behind /operators and ``python -m modeling operators``: every operator and
model of the table on a GPU, its result read back typed through the job encoding, the roofline beside every
model, which predictor was closer said; a transformer layer with impossible sizes refused by name."""

import math

import numpy as np
import pytest

from modeling.errors import DataError
from modeling.operators.model import (HELD_OUT_RECORD, ModelLatency, OperatorsOnGpu, check_layer, load_operators,
                                      operators_on_gpu, table_operators)
from modeling.operators.specs import edit_spec, load_devices
from modeling.results import dumps, loads


@pytest.fixture(scope="module")
def result():
    devices = load_devices()
    return operators_on_gpu(edit_spec(devices["H100"], ["bandwidth=1.5x"]), ("P4", "T4", "V100"), 30, 0.9,
                            (2, 128, 768, 12), devices=devices)


def test_every_operator_and_model_with_the_roofline_beside(result):
    assert len(result.operators["op"]) == len(table_operators(load_operators()))
    assert result.operators["latency_ms"] and all(isinstance(m, ModelLatency) for m in result.models)
    layer = next(m for m in result.models if m.name == "layer b2 s128 h768 heads12")
    assert layer.roofline_ms > 0 and layer.latency_ms >= layer.roofline_ms
    assert all(type(m.name) is str for m in result.models)
    assert "roofline is closer" in result.record and result.record == HELD_OUT_RECORD
    # flagged operators have no interval
    out = np.asarray(result.operators["outside"], bool)
    assert out.any() and np.isnan(np.asarray(result.operators["upper_ms"], float)[out]).all()


def test_the_result_reads_back_as_its_types(result):
    back = loads(dumps(result))
    assert isinstance(back, OperatorsOnGpu) and isinstance(back.models[0], ModelLatency)
    assert back.models[0].latency_ms == result.models[0].latency_ms
    same = [a == b or (math.isnan(a) and math.isnan(b))
            for a, b in zip(back.operators["upper_ms"], result.operators["upper_ms"])]
    assert all(same)


@pytest.mark.parametrize("layer, words", [
    ((0, 128, 768, 12), "batch"), ((2, 128, 770, 12), "multiple"), ((2, 1.5, 768, 12), "seq"),
    ((2, 128, 10**7, 1), "hidden"), ((2, 128, "x", 12), "not a number"), ((2, float("inf"), 768, 12), "seq"),
])
def test_impossible_layers_are_refused_by_name(layer, words):
    with pytest.raises(DataError, match=words):
        check_layer(*layer)
