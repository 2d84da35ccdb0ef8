"""The one prediction-table shape: core columns first, in order; a missing or misplaced core column refused."""

import pytest

from modeling.prediction_table import CORE, frame


def _core(**over):
    core = {"id": ["a", "b"], "predicted": [1.0, 2.0], "lower": [0.5, 1.5], "upper": [1.5, 2.5], "level": 0.9,
            "how": "m", "applicable": [True, False], "why": ["", "outside"], "baseline": [None, 3.0]}
    core.update(over)
    return core


def test_core_columns_lead_then_extra_then_provenance():
    df = frame(_core(), {"program": "p"}, {"code_version": "abc", "program": "ignored: extra wins"})
    assert list(df.columns) == [*CORE, "program", "code_version"]
    assert df["program"].tolist() == ["p", "p"] and df["level"].tolist() == [0.9, 0.9]


def test_a_missing_or_doubled_core_column_is_refused():
    core = _core()
    del core["baseline"]
    with pytest.raises(ValueError, match="missing"):
        frame(core)
    with pytest.raises(ValueError, match="core"):
        frame(_core(), {"predicted": [0, 0]})
    with pytest.raises(ValueError, match="not core"):
        frame({**_core(), "program": "p"})
