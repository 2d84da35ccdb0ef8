"""The /predict job's result is a typed result (dashboard/predict/results.py) that goes through the job codec
(dashboard/jobs/codec.py) and a saved prediction's file and comes back as the same types, drawing the same page;
a prediction saved as a plain dict (before results were typed) still lists, reopens and downloads."""

import io
import json
from dataclasses import asdict

import numpy as np
import pandas as pd

from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from dashboard.predict import figures, report, views, work
from dashboard.predict.kinds import PREDICT
from dashboard.predict.results import PredictRun
from dashboard.state import predictions as saved
from modeling.crossgen.prediction_result import PredictionChoice, Prediction
from modeling.crossgen.versus_baseline import BaselineVerdict
from modeling.results import Provenance

FAST = {"model": "NNLS", "transform": "logratio"}


def _page(run):
    """What the page draws and exports of a run: equal for a run and its revived copy."""
    return [views.table_rows(run), run.summary(views.unit(run)).as_text(),
            figures.predictions(run, "t", views.unit(run)),
            views.export_frame(run).to_dict("list"), [s.paragraphs for s in report.build(run, "l", "t", "s").sections]]


def test_the_predict_job_result_round_trips_through_the_codec_as_its_types(var):
    run = PREDICT.run(PREDICT.request(FAST)["params"], silent)
    assert type(run) is PredictRun and isinstance(run.provenance, Provenance) and run.provenance.kind == "predict"
    assert run.provenance.dataset == "rodinia" and run.provenance.dataset_name == run.dataset_name
    back = codec.unpack(codec.pack(run))
    assert type(back) is PredictRun and codec.pack(back) == codec.pack(run)  # nothing lost, nothing added
    p = back.prediction
    assert type(p) is Prediction and type(p.choice) is PredictionChoice and type(p.verdict) is BaselineVerdict
    assert p.choice == run.prediction.choice and p.choice.label == "NNLS (logratio)" and p.n_new == 32
    assert repr(_page(back)) == repr(_page(run))


def _old_dict(run: PredictRun) -> dict:
    """The result as /predict stored it before results were typed: the prediction's JSON, the page's keys and
    a provenance dict of model, data, fingerprints, code version and date."""
    c, v = run.provenance_columns, run.prediction.verdict
    return {**run.prediction.cli_json(), "verdict": {**asdict(v), "text": v.text}, "params": run.params,
            "dataset_name": run.dataset_name, "host_label": run.host_label, "unit": run.unit,
            "source_name": run.source_name,
            "provenance": {"model": run.model_label, **c}}


def test_a_prediction_saved_as_a_plain_dict_still_lists_reopens_and_downloads(var):
    import app  # noqa: F401 - registers the pages
    from dashboard import jobs
    from dashboard.pages import predict as page

    run = PREDICT.run(PREDICT.request(FAST)["params"], silent)
    key = PREDICT.request(FAST)["key"]
    old = json.loads(json.dumps(_old_dict(run)))
    summary = {k: v for k, v in views.summary_of(run).items() if k != "text"}  # the old summary had no line
    rec = saved.save_prediction(old, key, views.export_frame(run), summary, "from before")
    assert type(saved.load_result(rec["id"])) is dict  # stored untyped
    listed = str(page.saved_items())
    assert "from before" in listed and "NNLS (logratio), 32 workloads (0 applicable)" in listed
    work.restore_saved(key)  # its link reopens it: the cache gets the typed result
    back = jobs.get_result(key)
    assert type(back) is PredictRun and back.provenance.code_version == run.provenance.code_version
    assert back.prediction.cli_json()["predictions"] == run.prediction.cli_json()["predictions"]
    data, name = views.export_bytes(back, "csv")
    want = pd.read_csv(io.BytesIO(views.export_bytes(run, "csv")[0]))
    got = pd.read_csv(io.BytesIO(data))
    assert list(got.columns) == list(want.columns) and name.endswith(".csv")
    assert np.allclose(got["predicted"], want["predicted"]) and (got["date"] == want["date"]).all()
    assert page._content(back)[-1] and back.summary().as_text() == run.summary().as_text()
