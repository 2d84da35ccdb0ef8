"""/predict's summary is the same on the shipped data as the golden files say: the command line's text and JSON,
the page's summary card and the report's content (tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes
them anew). The page's card, the report and the JSON were written from the code before the summary was one typed
object; the report since says the notes and details the page says (the page's sentence for workloads outside the
training data; the trade-off, the ignored columns and the skipped workloads; the page's order). The command line's
text is the summary's own (``*.before.txt``: what it printed before, every number of which it still prints), and
says what the page says."""

import json
import os
import re
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
    pytest.param("recommended_two_models", ["--models", "OLS,NNLS"], marks=pytest.mark.slow),  # 10 s of CPU
])
def test_the_command_line(name, extra):
    text = capture.cli(SHIPPED + extra)
    check(f"predict_cli_{name}.txt", text)
    before = (GOLDEN / f"predict_cli_{name}.before.txt").read_text()
    numbers = re.compile(r"\d[\d,.]*")
    lost = {n.rstrip(".,") for n in numbers.findall(before)} - {n.rstrip(".,") for n in numbers.findall(text)}
    assert not lost, f"numbers the command line printed before and no longer does: {sorted(lost)}"


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

    runs = _runs(monkeypatch)
    for name, run in runs.items():
        check(f"predict_page_{name}.txt", capture.page(page._summary(run, views.unit(run))))
        built = report.build(run, "http://perfcast/predict?x=1", "predicted time", views.unit(run))
        check(f"predict_report_{name}.txt", capture.report(built))
        s = run.summary(views.unit(run))  # the report's facts are the summary's, those the page shows too
        assert built.facts == [(f.label, f.text) for f in s.facts]
        card = capture.page(page._summary(run, views.unit(run)))
        assert all(f"{f.label!r}" in card and f"{f.value!r}" in card for f in s.facts if f.value)
    # the command line says what the page says, to the digit
    text = capture.cli(SHIPPED + ["--model", "NNLS", "--transform", "logratio"])
    s = runs["nnls"].summary()
    assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts)
    shown = [n.sentence for n in s.notes] + [f"{d.label}: {d.value}" for d in s.details] + [s.lead]
    assert [line for line in shown if line not in text] == []
