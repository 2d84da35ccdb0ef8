"""The unit of a dataset's target values: typed on /data, checked on the server, kept with the dataset and
asked of the dataset (``DatasetView.unit``) by every page that shows target values; no unit given is said
as such, never replaced by an invented one nor given an SI prefix."""

import json

import numpy as np
import pandas as pd
import pytest

from dashboard.access.projects import project_path
from dashboard.state import datasets, uploads
from modeling.errors import DataError


def _table(n=12):
    rng = np.random.default_rng(1)
    x1 = rng.uniform(1, 9, n)
    return pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "x1": x1, "x2": rng.uniform(1, 9, n),
                         "host_t": 2 * x1, "t": 3 * x1 + 1})


MAP = {"id_col": "workload", "group_col": None, "targets": ["t"], "features": ["x1", "x2", "host_t"],
       "host_col": "host_t", "repeat_col": None}


@pytest.mark.parametrize("typed, kept", [(None, ""), ("", ""), ("   ", ""), (" ms ", "ms"), ("s", "s"),
                                         ("cycles", "cycles"), ("J", "J"), ("µs", "µs"), ("m²", "m²"),
                                         ("W·h", "W·h"), ("1/s", "1/s"), ("%", "%"), ("°C", "°C"),
                                         ("GB/s", "GB/s"), ("x" * uploads.UNIT_MAX, "x" * uploads.UNIT_MAX)])
def test_a_typed_unit_is_kept_as_typed(typed, kept):
    assert uploads.checked_unit(typed) == kept


@pytest.mark.parametrize("typed, said", [
    ("x" * (uploads.UNIT_MAX + 1), "at most 16"),
    ("<b>ms</b>", "remove '<', '>'"),
    ("ms'); alert(1)//", "remove"),
    ('"s"', "remove '\"'"),
    ("{y}", "remove '{', '}'"),
    ("s\nms", "U+000A"),
    ("s\u200b", "U+200B"),
    ("=1+2", "remove '+', '='"),
    ("-s", "cannot start with '-'"),
    (["s"], "expected a short text"),
    (3, "expected a short text"),
])
def test_a_unit_that_is_not_plain_text_is_refused_with_what_to_change(typed, said):
    with pytest.raises(DataError, match="unit") as err:
        uploads.checked_unit(typed)
    assert said in str(err.value)


def test_the_unit_is_kept_with_the_dataset_and_asked_of_it(var):
    meta = datasets.save_dataset(_table(), "timed", MAP, unit="ms")
    assert json.loads((project_path("datasets") / meta["id"] / "meta.json").read_text())["target_unit"] == "ms"
    ds = datasets.get(meta["id"])
    assert ds.unit("value") == "ms"
    assert datasets.unit_of({"dataset": meta["id"], "metric": "value"}) == "ms"
    # the shipped data as before: seconds and cycles
    shipped = datasets.get(datasets.SHIPPED_ID)
    assert (shipped.unit("duration"), shipped.unit("cycles")) == ("s", "cycles")
    # none given: "" (the pages say so), not the target column's name nor "target units"
    bare = datasets.save_dataset(_table(), "bare", MAP)
    assert datasets.get(bare["id"]).unit("value") == "" and bare["target_unit"] == ""
    # save_dataset checks the unit itself, whoever calls it
    with pytest.raises(DataError):
        datasets.save_dataset(_table(), "bad", MAP, unit="<i>s</i>")
    assert len(datasets.list_datasets()) == 2


def test_a_dataset_saved_before_units_were_asked_has_none(var):
    meta = datasets.save_dataset(_table(), "old", MAP, unit="ms")
    path = project_path("datasets") / meta["id"] / "meta.json"
    old = json.loads(path.read_text())
    del old["target_unit"]
    path.write_text(json.dumps(old))
    assert datasets.get(meta["id"]).unit("value") == ""
    old["target_unit"] = "<script>"  # a hand-edited file: not shown
    path.write_text(json.dumps(old))
    assert datasets.get(meta["id"]).unit("value") == ""


def test_a_result_whose_dataset_is_gone_keeps_the_unit_it_was_made_with(var):
    meta = datasets.save_dataset(_table(), "gone", MAP, unit="J")
    params = {"dataset": meta["id"], "metric": "value"}
    datasets.delete_dataset(meta["id"])
    assert datasets.unit_of(params, fallback="J") == "J" and datasets.unit_of(params) == ""
    assert datasets.unit_of({}) == "" and datasets.unit_of({"dataset": ["x"], "metric": "value"}) == ""
