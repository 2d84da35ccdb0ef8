"""/predict as plain functions: parameters validated on the server, the work and its provenance, the
stored workloads to predict (a bad upload names its missing columns and stores nothing), the views,
the figure, the export and the saved predictions."""

import io
from dataclasses import replace

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from dashboard.access.projects import project_path
from dashboard.predict.inputs import store_upload
from dashboard.predict import figures, views, work
from dashboard.predict.results import PredictRun
from dashboard.predict.kinds import PREDICT, Refused
from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from dashboard.state import predict_inputs
from dashboard.state import predictions as saved
from dashboard.state.files import NotFound
from dashboard.ui.url_state import InvalidParameter
from modeling.errors import DataError
from tests.dashboard.predict.upload_table import data_url, workloads_to_predict

FAST = {"model": "NNLS", "transform": "logratio"}
SCEN = {"dataset": "rodinia", "host": "GTX-680", "target": "GTX-980", "metric": "duration"}


@pytest.fixture(scope="module")
def unmeasured_result():
    return PREDICT.run(PREDICT.request(FAST)["params"], silent)


def test_defaults_and_refusals(var):
    p = PREDICT.request({})["params"]
    assert (p["target"], p["model"], p["transform"], p["level"], p["situation"], p["source"]) == \
        ("GTX-970", "recommended", "auto", 0.9, "new-inputs", "unmeasured")
    for bad in ({"level": 1.5}, {"level": "x"}, {"model": "pickle"}, {"transform": "exp"}, {"situation": "any"},
                {"target": "GTX-680"}):
        with pytest.raises(InvalidParameter):
            PREDICT.request(bad)
    for forged in ("../../etc/passwd", "wp-0123456789abcdef", "st-0123456789abcdef"):
        with pytest.raises(LookupError):
            PREDICT.request({"source": forged})
    with pytest.raises(InvalidParameter):
        PREDICT.request({"source": ["wp-0123456789abcdef"]})


def test_nothing_to_predict_says_what_to_do(var):
    with pytest.raises(Refused) as err:
        PREDICT.request({"target": "GTX-980"})
    text = str(err.value)
    assert text.startswith("Nothing to predict") and "Upload a table of workloads to predict" in text
    assert "GTX-970" in text and "TitanX" in text  # the targets that do have unmeasured workloads


def test_the_unmeasured_workloads_with_provenance(var, unmeasured_result):
    res = unmeasured_result
    pred = res.prediction
    assert (pred.n_train, pred.n_new) == (251, 32)
    assert res.params["source"] == "unmeasured" and res.unit == "s"
    prov = res.provenance_columns
    assert res.model_label == "NNLS (logratio)" and prov["dataset"] == "rodinia"
    assert len(prov["dataset_fingerprint"]) == 16
    assert prov["code_version"] and prov["date"][:2] == "20"
    assert 85 <= pred.cv_coverage["workloads"] <= 95
    # every lud_perimeter workload is outside the training data: the page says it, row by row
    rows = views.table_rows(res)
    assert [r["predicted"] for r in rows] == sorted(r["predicted"] for r in rows)
    assert all(r["applicable"] == "✗ no" and not r["ok"] and "outside the training range" in r["why"] for r in rows)
    s = res.summary()
    assert s.fact("counts").value == "251 / 32 / 0" and s.fact("coverage").value.endswith("%")
    assert "90 % of workloads like the training ones" in s.lead and "/new-app" in s.lead
    assert s.details[0].label == "Model" and s.details[0].value.startswith("NNLS (logratio): chosen by you")


def test_the_key_follows_the_inputs(var):
    a = PREDICT.request(FAST)["key"]
    assert PREDICT.request(dict(FAST))["key"] == a
    assert PREDICT.request({**FAST, "level": 0.8})["key"] != a
    assert PREDICT.request({**FAST, "seed": 1})["key"] != a
    with pytest.raises(InvalidParameter, match="key"):
        PREDICT.from_store({"params": {**PREDICT.request(FAST)["params"], "level": 0.8}, "key": a})


def test_an_uploaded_table_is_predicted_and_its_target_never_read(var):
    frame = workloads_to_predict()
    meta, text = store_upload(data_url(frame), "lab runs.csv", SCEN)
    assert predict_inputs.INPUTS_ID.match(meta["id"]) and meta["id_col"] == "workload"
    assert "20 workload(s) to predict" in text and "duration@GTX-980" in text  # the extra column is reported
    req = PREDICT.request({**SCEN, **FAST, "source": meta["id"]})
    res = work.predict_result(req["params"]).prediction
    assert res.n_new == 20 and res.ignored_columns == ["duration@GTX-980"]
    assert work.predict_result(req["params"]).inputs_fingerprint == meta["id"][3:]
    measured = dict(zip(frame["workload"], frame["duration@GTX-980"]))
    inside = [r["lower"] <= measured[r["id"]] <= r["upper"] for r in res.rows()]
    assert np.mean(inside) >= 0.7  # workloads the model was trained on: their measured time is mostly inside

    # the same counters with the target column scrambled: a new table (a new key), the same numbers
    other = frame.assign(**{"duration@GTX-980": frame["duration@GTX-980"][::-1].to_numpy() * 7})
    meta2, _ = store_upload(data_url(other), "scrambled.csv", SCEN)
    req2 = PREDICT.request({**SCEN, **FAST, "source": meta2["id"]})
    assert meta2["id"] != meta["id"] and req2["key"] != req["key"]
    res2 = work.predict_result(req2["params"]).prediction
    assert res2.predicted == res.predicted
    assert res2.upper == res.upper


def test_an_upload_missing_columns_names_them_and_stores_nothing(var):
    frame = workloads_to_predict(5).drop(columns=["grid_x", "inst_executed"])
    with pytest.raises(DataError, match="lack 2 counter column.*(grid_x.*inst_executed|inst_executed.*grid_x)"):
        store_upload(data_url(frame), "short.csv", SCEN)
    assert [o["value"] for o in predict_inputs.options()] == ["unmeasured"]
    with pytest.raises(DataError):
        store_upload("data:text/csv;base64,@@@", "x.csv", SCEN)
    with pytest.raises(DataError, match="[Pp]ickle"):
        store_upload(data_url(frame), "model.pkl", SCEN)
    with pytest.raises(InvalidParameter):
        store_upload(data_url(frame), "x.csv", {**SCEN, "host": "../../x"})


def test_a_stored_table_that_lost_a_column_for_another_scenario_is_refused_before_a_job(var, tmp_path):
    from dashboard.state import datasets
    from tests.shared_data import shipped_as_upload

    meta = predict_inputs.save_inputs(workloads_to_predict(5), "gpu counters")
    up, mapping = shipped_as_upload()
    ds = datasets.save_dataset(up, "lab", mapping)
    with pytest.raises(Refused, match="lack .* counter column"):  # the upload has no roofline-only columns
        PREDICT.request({"dataset": ds["id"], "source": meta["id"], "model": "NNLS"})


def test_figure_draws_intervals_baseline_and_flags(var, unmeasured_result):
    fig = figures.predictions(unmeasured_result, "predicted duration on GTX-970", "s")
    go.Figure(fig)
    names = [t["name"] for t in fig["data"]]
    assert any("not valid" in n for n in names) and any(n.startswith("baseline") for n in names)
    assert fig["layout"]["yaxis"]["type"] == "log" and "(s, log scale)" in fig["layout"]["yaxis"]["title"]["text"]
    flagged = next(t for t in fig["data"] if "not valid" in t["name"])
    assert all(y is not None for y in flagged["y"])  # all 32 are outside the training data
    none = replace(unmeasured_result, prediction=replace(unmeasured_result.prediction, ids=[], predicted=[]))
    assert figures.predictions(none, "x", "s")["data"] == []


def test_export_has_the_table_and_its_provenance(var, unmeasured_result):
    data, name = views.export_bytes(unmeasured_result, "csv")
    df = pd.read_csv(io.BytesIO(data))
    assert name.endswith(".csv") and len(df) == 32
    from modeling.prediction_table import CORE

    assert tuple(df.columns[:len(CORE)]) == CORE  # the same leading columns as every method's table
    for col in ("id", "predicted", "lower", "upper", "baseline", "applicable", "why", "model", "dataset_fingerprint",
                "code_version", "date", "level"):
        assert col in df.columns, col
    data, name = views.export_bytes(unmeasured_result, "parquet")
    pq = pd.read_parquet(io.BytesIO(data))
    assert name.endswith(".parquet") and pq["predicted"].tolist() == pytest.approx(df["predicted"].tolist())


def test_saved_predictions_are_json_and_parquet_and_listed(var, unmeasured_result):
    key = PREDICT.request(FAST)["key"]
    res = unmeasured_result
    rec = saved.save_prediction(res, key, views.export_frame(res), views.summary_of(res), "lud <b>perimeter</b>")
    again = saved.save_prediction(res, key, views.export_frame(res), views.summary_of(res), "lud <b>perimeter</b>")
    assert again["existing"] and again["id"] == rec["id"]
    files = sorted(p.name for p in (project_path("predictions") / rec["id"]).iterdir())
    assert files == ["meta.json", "result.json", "table.parquet"]
    listed = saved.list_predictions()
    assert [m["id"] for m in listed] == [rec["id"]] and listed[0]["params"] == res.params
    assert listed[0]["summary"]["model"] == "NNLS (logratio)" and saved.find_by_key(key) == rec["id"]
    assert listed[0]["provenance"]["fingerprint"] == res.provenance.fingerprint
    assert len(saved.load_table(rec["id"])) == 32 and saved.load_result(rec["id"]).prediction.n_new == 32
    for bad in ("../x", "pr-0123456789abcdef", None):
        with pytest.raises(NotFound):
            saved.load_meta(bad)


def test_a_saved_prediction_comes_back_when_the_cache_let_it_go(var, unmeasured_result):
    from dashboard import jobs

    key = PREDICT.request(FAST)["key"]
    res = unmeasured_result
    saved.save_prediction(res, key, views.export_frame(res), views.summary_of(res), "kept")
    assert not jobs.has_result(key)  # a fresh cache: nothing computed in it
    work.restore_saved(key)
    assert codec.pack(jobs.get_result(key)) == codec.pack(res)
    work.restore_saved(PREDICT.request({**FAST, "seed": 3})["key"])  # nothing saved under it: nothing happens


def test_a_baseline_that_wins_and_an_unsupported_interval_are_said_in_words(var):
    """Applications not in the training data on the shipped pair: 4 applications cannot support a 90 %
    interval, so the page and the report say so instead of printing one; a fixture where the baseline truly
    wins shows the verdict with both errors."""
    from dashboard.predict import report
    from tests.modeling.crossgen.test_unseen import _no_signal_beyond_the_host
    from modeling.crossgen.predict import predict_scenario

    res = work.predict_result(PREDICT.request({**FAST, "target": "GTX-970", "situation": "new-applications"})["params"])
    s = res.summary()
    assert s.fact("coverage").value == "not supported" and s.fact("width").value == ""
    assert all(r["lower"] is None and r["upper"] is None for r in views.table_rows(res))
    assert s.lead.startswith("No 90 % interval is given")
    assert any("No 90 % interval is given" in n for n in res.prediction.notes)
    figures.predictions(res, "time", "s")  # draws without bounds
    assert views.export_frame(res)["lower"].isna().all()
    text = " ".join(b for s in report.build(res, "link", "time", "s").sections for b in s.paragraphs)
    assert "No 90 % interval is given" in text
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import predict as page

    shown = str(page._content(res)[0])
    assert "not supported" in shown and "No 90 % interval is given" in shown
    if res.prediction.verdict.baseline_wins:  # the named NNLS against the baseline, said on the page
        assert "The baseline did at least as well" in shown and "predict-versus-baseline" in shown

    won = predict_scenario(_no_signal_beyond_the_host(), model="recommended", models="OLS,NNLS,Lasso",
                           situation="new-applications")
    won = PredictRun({}, won, "planted", "host", "s", "planted workloads")
    s = won.summary()
    verdict = next(n for n in s.notes if n.key == "versus-baseline")
    assert verdict.level == "info" and verdict.text.startswith("The baseline is used")  # used: said as information
    assert f"{won.prediction.verdict.baseline_mean_ape:,.2f} %" in verdict.text
    interval = next(d.value for d in s.details if d.label == "Interval")
    assert s.fact("width").value.startswith("×") and "median width ×" in interval
