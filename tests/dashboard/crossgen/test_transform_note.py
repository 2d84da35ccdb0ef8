"""On an uploaded table whose target spans orders of magnitude, /scenario starts from the log ratio to the
host and says so before the run; choosing "none" there brings a warning. The shipped dataset is unchanged."""

import numpy as np
import pandas as pd

from dashboard.crossgen.kinds import SCENARIO
from dashboard.crossgen.params import transform_note
from dashboard.state import datasets, uploads


def _text(node) -> str:
    if isinstance(node, str):
        return node
    if isinstance(node, (list, tuple)):
        return "".join(_text(n) for n in node)
    return _text(getattr(node, "children", None) or "")


def _save(span: float, host=True) -> str:
    rng = np.random.default_rng(1)
    n = 60
    h = 10 ** rng.uniform(-3, -3 + span, n)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "instr": h * 3e9 * rng.uniform(1, 2, n),
                       "loads": h * 1e9 * rng.uniform(1, 2, n), "host_s": h, "t": h * rng.uniform(0.4, 0.9, n)})
    df.loc[3, "t"] = np.nan  # a workload to predict does not change the rule
    mapping = {"id_col": "workload", "targets": ["t"], "host_col": "host_s" if host else None}
    if not host:
        df = df.drop(columns="host_s")
    table, raw, m, notes = uploads.build_dataset(df, mapping)
    return datasets.save_dataset(table, f"span {span}", m, notes, raw)["id"]


def test_a_wide_upload_defaults_to_the_log_ratio_and_says_why(var):
    ds = _save(5.0)
    req = SCENARIO.request({"dataset": ds})
    assert req["params"]["transform"] == "logratio"
    assert SCENARIO.request({"dataset": ds, "transform": "none"})["params"]["transform"] == "none"  # the URL wins
    v = req["params"]
    note = _text(transform_note(v, "logratio"))
    assert "Default transform: log of the ratio to host metric." in note and "more than 100x" in note
    assert "fits the target's absolute values" not in note
    warned = transform_note(v, "none")
    assert len(warned) == 2 and "alert-warning" in warned[1].className
    assert "Transform 'none' fits the target's absolute values" in _text(warned)
    assert len(transform_note(v, "ratio")) == 1


def test_a_narrow_upload_and_one_without_host_keep_none(var):
    narrow = _save(1.0)
    v = SCENARIO.request({"dataset": narrow})["params"]
    assert v["transform"] == "none" and "within 100x" in _text(transform_note(v, "none"))
    nohost = _save(5.0, host=False)
    v = SCENARIO.request({"dataset": nohost})["params"]
    assert v["transform"] == "none"
    note = transform_note(v, "none")
    assert len(note) == 1 and "no host metric is mapped" in _text(note)


def test_the_shipped_dataset_keeps_none_and_shows_no_note(var):
    v = SCENARIO.request({})["params"]
    assert v["dataset"] == "rodinia" and v["transform"] == "none"
    assert transform_note(v, "none") == []


def test_the_scenario_page_shows_the_note_before_the_run(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import scenario

    ds = _save(5.0)
    page = scenario.layout(dataset=ds)
    assert "Default transform: log of the ratio to host metric." in _text(page)
    assert "Default transform" not in _text(scenario.layout())
    warned = scenario.layout(dataset=ds, transform="none")
    assert "Transform 'none' fits the target's absolute values" in _text(warned)
