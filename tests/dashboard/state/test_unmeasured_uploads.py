"""An empty target cell is a workload not measured on that target: kept as a workload to predict, not
trained on. Text that is not a number, or an infinite value, in a target is still refused with its row."""

from urllib.parse import parse_qs, urlparse

import numpy as np
import pandas as pd
import pytest
from dash import dcc

from dashboard.state import datasets, uploads
from modeling.errors import DataError

CSV = ("workload,app,x1,x2,t\n"
       "w1,a,1,2,3\n"
       "w2,a,2,3,\n"
       "w3,b,3,1,5\n"
       "w4,b,4,4,N/A\n"
       "w5,c,5,2,6\n"
       "w6,c,6,5,7\n"
       "w7,d,7,1,8\n"
       "w8,d,8,7,9\n")


def _parsed(text=CSV):
    return uploads.parse_upload(text.encode(), "t.csv")


def test_empty_target_cells_are_kept_as_workloads_to_predict(var):
    table = _parsed()
    assert table.text_dropped == {}
    report = uploads.target_report(table.frame, ["t"], "workload", table.text_dropped)
    assert report == {"t": {"count": 2, "ids": ["w2", "w4"]}}
    assert uploads.unmeasured_text(report) == ("2 workloads have no value for t: they are kept as workloads to "
                                               "predict (see /predict), not trained on (w2, w4).")
    kind, text = uploads.target_preview(table.frame, {"text_dropped": table.text_dropped}, ["t"], "workload")
    assert kind == "ok" and text.startswith("2 workloads have no value for t")
    out, raw, mapping, notes = uploads.build_dataset(table.frame, {"id_col": "workload", "group_col": "app",
                                                                   "targets": ["t"]}, text_dropped={})
    assert len(out) == 8 and notes["unmeasured"] == {"t": {"count": 2, "ids": ["w2", "w4"]}}
    meta = datasets.save_dataset(out, "partly measured", mapping, notes, raw)
    scen = datasets.get(meta["id"]).scenario(datasets.TABLE_HOST, "t", "value")
    assert scen["workload_ids"] == ["w1", "w3", "w5", "w6", "w7", "w8"]
    assert scen["unmeasured"]["workload_ids"] == ["w2", "w4"]
    assert scen["unmeasured"]["X"].tolist() == [[2.0, 3.0], [4.0, 4.0]]


def test_one_unmeasured_workload_reads_in_the_singular():
    report = uploads.target_report(_parsed(CSV.replace("w4,b,4,4,N/A", "w4,b,4,4,9")).frame, ["t"], "workload")
    assert uploads.unmeasured_text(report) == ("1 workload has no value for t: it is kept as workload to predict "
                                               "(see /predict), not trained on (w2).")
    full = uploads.target_report(_parsed(CSV.replace(",\n", ",8\n").replace("N/A", "9")).frame, ["t"], "workload")
    assert full == {"t": {"count": 0, "ids": []}} and uploads.unmeasured_text(full) == ""


def test_text_and_infinite_targets_are_refused_with_their_rows():
    text = _parsed(CSV.replace("w5,c,5,2,6", "w5,c,5,2,3.2GHz"))
    assert text.text_dropped == {"t": {"count": 1, "rows": [4]}}
    with pytest.raises(DataError, match=r"Target column 't' has 1 value\(s\) that are not numbers \(data rows 5\)"):
        uploads.build_dataset(text.frame, {"id_col": "workload", "targets": ["t"]}, text_dropped=text.text_dropped)
    kind, msg = uploads.target_preview(text.frame, {"text_dropped": text.text_dropped}, ["t"], "workload")
    assert kind == "error" and "data rows 5" in msg
    for bad in ("inf", "1e400", "-inf"):
        inf = _parsed(CSV.replace("w6,c,6,5,7", f"w6,c,6,5,{bad}"))
        with pytest.raises(DataError, match=r"1 infinite or overflowing value\(s\) \(data rows 6\)"):
            uploads.build_dataset(inf.frame, {"id_col": "workload", "targets": ["t"]}, text_dropped=inf.text_dropped)


def test_too_few_measured_workloads_and_an_empty_target_column_are_refused():
    few = _parsed(CSV.replace("w3,b,3,1,5", "w3,b,3,1,").replace("w5,c,5,2,6", "w5,c,5,2,")
                  .replace("w6,c,6,5,7", "w6,c,6,5,").replace("w7,d,7,1,8", "w7,d,7,1,"))
    with pytest.raises(DataError, match="Only 2 workload\\(s\\) have a value for target 't'"):
        uploads.build_dataset(few.frame, {"id_col": "workload", "targets": ["t"]})
    empty = _parsed(CSV.replace("x2,t", "x2,t,u").replace("\n", ",\n").replace("x2,t,u,", "x2,t,u"))
    assert not pd.api.types.is_numeric_dtype(empty.frame["u"])
    with pytest.raises(DataError, match="Target column 'u' is empty"):
        uploads.build_dataset(empty.frame, {"id_col": "workload", "targets": ["u"]})


def test_forged_preview_values_are_refused():
    table = _parsed()
    assert uploads.target_preview(table.frame, {}, ["nope"], "workload")[0] == "error"
    assert uploads.target_preview(table.frame, {}, [{"x": 1}], "workload")[0] == "error"
    assert uploads.target_preview(table.frame, None, "t", 3)[0] == "error"


def test_repeated_runs_of_an_unmeasured_workload_are_averaged_and_kept():
    rows = []
    for i, w in enumerate(("a", "b", "c", "d")):
        for r in range(5):
            rows.append({"workload": w, "run": r, "f1": r + i, "f2": 2.0 * r + i * i,
                         "t": np.nan if w == "d" else 100.0 + (r % 3) * 0.1})
    df = pd.DataFrame(rows)
    report = uploads.target_report(df, ["t"], "workload")
    assert report == {"t": {"count": 1, "ids": ["d"]}}
    table, raw, mapping, notes = uploads.build_dataset(df, {"id_col": "workload", "targets": ["t"],
                                                            "repeat_col": "run", "features": ["f1", "f2"]})
    d = table.set_index("workload").loc["d"]
    assert np.isnan(d["t"]) and d["f1"] == pytest.approx(5.0)
    assert notes["unmeasured"] == {"t": {"count": 1, "ids": ["d"]}}


def _scenario_res(unmeasured):
    from dashboard.crossgen.results import ScenarioRun
    from tests.dashboard.crossgen.typed import ensemble, model

    ens = ensemble([1.0], ["w"], [model("OLS", [1.0], [0.0])], scenario={
        "target": "GTX-970", "metric": "duration", "cv": "kfold", "folds": 10, "transform": "none", "seed": 0})
    unmeasured = unmeasured or {"count": 0, "ids": []}
    return ScenarioRun({"dataset": "rodinia", "host": "GTX-680", "target": "GTX-970", "metric": "duration",
                        "preset": "halwpe", "cv": "kfold", "folds": 10, "transform": "none", "seed": 0},
                       ens, "Rodinia", "GTX-680", unmeasured_count=unmeasured["count"],
                       unmeasured_ids=unmeasured["ids"])


def _text(parts):
    return "".join(p if isinstance(p, str) else p.children for p in parts)


def test_scenario_text_names_the_unmeasured_workloads_and_links_to_predict():
    import app  # noqa: F401 - registers the pages
    from dashboard.pages.scenario import scenario_text

    parts = scenario_text(_scenario_res({"count": 32, "ids": ["lud_perimeter:1", "lud_perimeter:2"]}))
    text = _text(parts)
    assert ("32 workloads have host counters but no GTX-970 value (lud_perimeter:1, lud_perimeter:2 …): they are "
            "not scored here; predict them on /predict.") in text
    link = next(p for p in parts if isinstance(p, dcc.Link))
    url = urlparse(link.href)
    assert url.path == "/predict" and parse_qs(url.query) == {
        "dataset": ["rodinia"], "host": ["GTX-680"], "target": ["GTX-970"], "metric": ["duration"]}
    assert not any(isinstance(p, dcc.Link) for p in scenario_text(_scenario_res({"count": 0, "ids": []})))
    assert "/predict" not in _text(scenario_text(_scenario_res(None)))  # a result computed before the field


def test_scenario_result_counts_the_shipped_unmeasured_workloads():
    from dashboard.crossgen import work
    from dashboard.crossgen.kinds import SCENARIO

    params = SCENARIO.request({"host": "GTX-680", "target": "GTX-970", "folds": "3"})["params"]
    run = work.scenario_result(params)
    assert run.unmeasured_count == 32 and len(run.unmeasured_ids) == 8
    assert all(i.startswith("lud_perimeter:") for i in run.unmeasured_ids)
    assert not set(run.unmeasured_ids) & set(run.ensemble.workload_ids)
    assert run.missing_rows == 0  # the shipped scenario's 32 missing rows are these: said once, as unmeasured


def test_the_missing_feature_sentence_leaves_the_chosen_targets_out():
    frame = _parsed(CSV.replace("w7,d,7,1,8", "w7,d,,1,8")).frame
    before = uploads.missing_after_targets(frame, [], "workload")
    assert "3 of 8 workloads miss a value in 2 column(s): t (2 rows), x1 (1 rows)" in before
    after = uploads.missing_after_targets(frame, ["t"], "workload")
    assert after.startswith("1 of 8 workloads miss a value in 1 column(s): x1 (1 rows)") and "w7" in after
    assert uploads.missing_after_targets(frame, "t", {"x": 1}) == uploads.missing_after_targets(frame, [], None)
