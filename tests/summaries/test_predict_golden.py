"""/predict's summary is the same on the shipped data as the golden files say: the command line's text and JSON,
the page's summary card and the report's content (tests/summaries/golden/, written from the code before the
summary was one typed object; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew)."""

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from tests.summaries import capture

GOLDEN = Path(__file__).parent / "golden"
SHIPPED = ["predict", "--host", "GTX-680", "--target", "GTX-970"]
FAST = {"model": "NNLS", "transform": "logratio"}


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("PERFCAST_WRITE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text(), f"{name} differs from its golden file"


@pytest.mark.parametrize("name, extra", [
    ("nnls", ["--model", "NNLS", "--transform", "logratio"]),
    ("nnls_new_applications", ["--model", "NNLS", "--transform", "logratio", "--situation", "new-applications"]),
    ("recommended_two_models", ["--models", "OLS,NNLS"]),
])
def test_the_command_line(name, extra):
    check(f"predict_cli_{name}.txt", capture.cli(SHIPPED + extra))


def test_the_command_lines_json():
    d = json.loads(capture.cli(SHIPPED + ["--model", "NNLS", "--transform", "logratio", "--json"]).split("\n", 1)[1])
    d["seconds"] = "<s>"
    check("predict_cli_nnls.json", json.dumps(d, indent=1) + "\n")


def _runs(monkeypatch):
    from dashboard.jobs.progress import silent
    from dashboard.predict import work
    from dashboard.predict.kinds import PREDICT

    fast = PREDICT.run(PREDICT.request(FAST)["params"], silent)
    new_apps = PREDICT.run(PREDICT.request({**FAST, "situation": "new-applications"})["params"], silent)
    real = work.predict_scenario
    monkeypatch.setattr(work, "predict_scenario", lambda *a, **k: real(*a, **k, models="OLS,NNLS"))
    recommended = PREDICT.run(PREDICT.request({})["params"], silent)
    p = fast.prediction
    odd = replace(fast, prediction=replace(p, ignored_columns=["note", "t_gpu"], skipped=[f"w{i}" for i in range(23)],
                                           notes=["A planted note."], level_supported=0.8))
    return {"nnls": fast, "nnls_new_applications": new_apps, "recommended_two_models": recommended,
            "nnls_ignored_skipped_notes": odd}


def test_the_page_and_the_report(var, monkeypatch):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import predict as page
    from dashboard.predict import report, views

    for name, run in _runs(monkeypatch).items():
        check(f"predict_page_{name}.txt", capture.page(page._summary(run, views.unit(run))))
        check(f"predict_report_{name}.txt", capture.report(report.build(run, "http://perfcast/predict?x=1",
                                                                        "predicted time", views.unit(run))))
