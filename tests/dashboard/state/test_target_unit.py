"""The unit of a dataset's target values: typed on /data, checked on the server, kept with the dataset and
asked of the dataset (``DatasetView.unit``) by every page that shows target values; no unit given is said
as such, never replaced by an invented one nor given an SI prefix. And the sentence saying that the host's
own metric is also a feature."""

import json

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.access.projects import project_path
from dashboard.crossgen import figures as crossgen_figures
from dashboard.predict import figures as predict_figures
from dashboard.predict import report as predict_report
from dashboard.predict import views
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


def test_targets_of_different_units_each_keep_their_own(var):
    """A profiler import's targets: time in s and a cycle count; each page asks for its target's unit (a
    dataset-wide unit would have to be none)."""
    table = _table().assign(c=lambda d: d["t"] * 1e9)
    mapping = {**MAP, "targets": ["t", "c"]}
    meta = datasets.save_dataset(table, "two units", mapping, target_units={"t": "s", "c": "cycle", "x": "J"})
    assert meta["target_units"] == {"t": "s", "c": "cycle"}  # a name that is not a target is not kept
    ds = datasets.get(meta["id"])
    assert (ds.unit("value", "t"), ds.unit("value", "c"), ds.unit("value")) == ("s", "cycle", "")
    assert datasets.unit_of({"dataset": meta["id"], "metric": "value", "target": "c"}) == "cycle"
    assert datasets.unit_of({"dataset": meta["id"], "metric": "value", "val_target": "t"}, target="val_target") == "s"
    # /apply names its training target train_target and its validation target val_target: each side its own
    import app  # noqa: F401 - registers the pages
    from dashboard.pages.apply import _units

    apply_params = {"dataset": meta["id"], "train_target": "c", "metric": "value", "val_dataset": meta["id"],
                    "val_target": "t"}
    from dashboard.crossgen.results import ApplyRun

    assert _units(ApplyRun(apply_params, None, [])) == ("s", "cycle")
    with pytest.raises(DataError):
        datasets.save_dataset(table, "bad", mapping, target_units={"t": "<b>s</b>"})
    path = project_path("datasets") / meta["id"] / "meta.json"
    edited = json.loads(path.read_text())
    edited["target_units"] = {"t": "<script>", "c": "cycle"}  # a hand-edited file: the bad one not shown
    path.write_text(json.dumps(edited))
    assert (datasets.get(meta["id"]).unit("value", "t"), datasets.get(meta["id"]).unit("value", "c")) == ("", "cycle")
    edited["target_units"] = ["s"]
    path.write_text(json.dumps(edited))
    assert datasets.get(meta["id"]).unit("value", "t") == ""


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


def _prediction(**more):
    """A one-workload /predict result, read as the page reads a result saved as a plain dict."""
    from dashboard.predict.results import PredictRun

    rows = [{"id": "w1", "group": None, "predicted": 1.5e-4, "lower": 1e-4, "upper": 2e-4, "applicable": True,
             "why": "", "baseline": 1.4e-4, "baseline_lower": 1e-4, "baseline_upper": 2e-4}]
    d = {"predictions": rows, "level": 0.9, "n_new": 1, "n_applicable": 1, "level_supported": 0.9,
         "how": "split conformal", "model": "NNLS", "transform": "log", "situation": "new-inputs",
         "unit": "t", "params": {"dataset": "ds-0123456789abcdef", "metric": "value", "target": "t", "host": "table"},
         **more}
    return PredictRun.from_summary(d)


def test_charts_and_exports_say_the_unit_or_that_none_was_given(var):
    from tests.dashboard.crossgen.typed import ensemble, model

    scen = ensemble([1.0, 2.0], ["a", "b"], [model("OLS", [1.1, 1.9], [10.0, 5.0], 7.5)], groups=["", ""])
    for unit, axis in (("ms", "target (ms, log scale)"), ("", "target (no unit given, log scale)")):
        fig = go.Figure(crossgen_figures.per_workload(scen, "OLS", unit)).to_dict()
        assert fig["layout"]["yaxis"]["title"]["text"] == axis
        assert fig["data"][1]["hovertemplate"].endswith(f"observed %{{y:.4g}}{' ' + unit if unit else ''}"
                                                         "<extra></extra>")
    pair = crossgen_figures.side_by_side(scen, scen, "l", "r", "")
    assert pair["layout"]["yaxis"]["title"]["text"] == "target (no unit given, log)"

    res = _prediction()
    for unit, axis in (("cycles", "t (cycles, log scale)"), ("", "t (no unit given, log scale)")):
        fig = go.Figure(predict_figures.predictions(res, "t", unit)).to_dict()
        assert fig["layout"]["yaxis"]["title"]["text"] == axis
    # a result made before units were given called the target column its unit: its dataset says otherwise
    meta = datasets.save_dataset(_table(), "no unit", MAP)
    res.params["dataset"] = meta["id"]
    assert views.unit(res) == "" and "unit" not in views.export_frame(res).columns
    timed = datasets.save_dataset(_table(), "timed", MAP, unit="ms")
    res.params["dataset"] = timed["id"]
    assert views.unit(res) == "ms" and set(views.export_frame(res)["unit"]) == {"ms"}


def test_the_predict_report_heads_its_columns_with_the_unit_or_none(var):
    res = _prediction(dataset_name="d", host_label="d (its host)", cv_coverage={"workloads": 90.0, "folds": 90.0,
                                                                         "n_folds": 5},
               cv_error={"mean_ape": 5.0, "median_ape": 4.0, "ir10": 80.0, "max_ape": 20.0}, baseline_cv=None,
               n_train=10, source_name="x", selection=None, requested_model="NNLS", requested_transform="log",
               cv_scheme="k-fold", provenance={})
    html_ms = predict_report.build(res, "http://x/predict", "t", "ms").html().decode()
    html_none = predict_report.build(res, "http://x/predict", "t", "").html().decode()
    assert "predicted (ms)" in html_ms and "value (ms)" in html_ms
    assert "predicted ()" not in html_none and "value (no unit given)" in html_none
    assert "target units" not in html_ms + html_none


def test_the_host_metric_as_a_feature_is_said_in_one_sentence(var):
    cols = ["workload", "x1", "host_t", "t"]
    text = uploads.host_feature_text("host_t", cols)
    assert text.startswith("host_t is the host's own metric") and "also one of the features" in text
    assert text.count(". ") == 0 and text.endswith(".")
    assert uploads.host_feature_text(None, cols) == "" and uploads.host_feature_text("nope", cols) == ""
    assert uploads.host_feature_text(["host_t"], cols) == ""  # a forged value is no column
    # the feature the dataset names as its host metric (after build_dataset added it to the features)
    table, raw, mapping, notes = uploads.build_dataset(_table(), {**MAP, "features": ["x1", "x2"]})
    assert "host_t" in mapping["features"]
    meta = datasets.save_dataset(table, "h", mapping)
    assert datasets.get(meta["id"]).host_feature("table", "value") == "host_t"
    no_host = datasets.save_dataset(_table(), "n", {**MAP, "host_col": None, "features": ["x1", "x2"]})
    assert datasets.get(no_host["id"]).host_feature("table", "value") is None
    assert datasets.get(datasets.SHIPPED_ID).host_feature("GTX-680", "cycles") == "elapsed_cycles_sm"


def _scenario_res(ds_id, feature_names):
    from dashboard.crossgen.results import ScenarioRun
    from tests.dashboard.crossgen.typed import ensemble, model

    ens = ensemble([1.0], ["w"], [model("OLS", [1.0], [0.0])], features=feature_names, scenario={
        "target": "t", "metric": "value", "cv": "kfold", "folds": 5, "transform": "none", "seed": 0})
    return ScenarioRun({"dataset": ds_id, "host": "table", "target": "t", "metric": "value"}, ens, "mine",
                       "mine (its host)")


def test_the_scenario_text_names_the_unit_and_the_host_metric_among_the_features(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages.scenario import scenario_text

    meta = datasets.save_dataset(_table(), "mine", MAP, unit="ms")
    text = "".join(scenario_text(_scenario_res(meta["id"], ["x1", "x2", "host_t"])))
    assert "mine (its host) → t, the t column (ms);" in text
    assert "host_t, the host's own measure of the target metric" in text and "one of the 3 features" in text
    # dropped as constant: not a feature the models saw, nothing said
    assert "host's own measure" not in "".join(scenario_text(_scenario_res(meta["id"], ["x1", "x2"])))
    bare = datasets.save_dataset(_table(), "bare", MAP)
    text = "".join(scenario_text(_scenario_res(bare["id"], ["x1"])))
    assert "the t column (no unit given);" in text and "target units" not in text


def test_repeats_of_an_upload_are_in_its_unit(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages.repeats import unit_of

    assert unit_of(datasets.SHIPPED_ID, "duration") == "s" and unit_of(datasets.SHIPPED_ID, "elapsed_cycles_sm") \
        == "cycles"
    meta = datasets.save_dataset(_table(), "runs", MAP, unit="ms")
    assert unit_of(meta["id"], "t") == "ms"
