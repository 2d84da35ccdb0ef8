"""/phases' new-program prediction says the same on the shipped data as the golden files: the command line's
text and JSON (``python -m modeling phases predict``), the page's summary card and the report's content
(tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew). The JSON, the card's facts and the
report's numbers were written from the code before its summary was one typed object. Since: the notes are notes
(alerts on the page, paragraphs in the report) instead of a tail of the sentence; the card shows the provenance the
report shows; the host × median per-phase ratio the command line printed is a fact on the page and in the report
too; the report's first section has the title every report's has. The command line's text is the summary's own
(``*.before.txt``: what it printed before, every number of which it still prints, the phases' starts in 10⁹
instructions as the page and the report give them)."""

import json
import re

import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import GOLDEN, check

pytestmark = pytest.mark.slow  # a new program's prediction: program-grouped CV on the shipped cBench traces


@pytest.fixture(scope="module")
def trace_file(tmp_path_factory):
    from tests.dashboard.phases.test_new_program import host_run

    path = tmp_path_factory.mktemp("trace") / "susan_host.csv"
    host_run().to_csv(path, index=False)
    return path


def test_the_command_line(trace_file):
    argv = ["phases", "predict", "--trace", str(trace_file), "--host-freq", "1000", "--target-freq", "2000",
            "--target", "power"]
    text = capture.cli(argv)
    check("phases_new_program_cli.txt", text)
    before = (GOLDEN / "phases_new_program_cli.before.txt").read_text()
    assert capture.lost_numbers(before, text, scales=(1.0, 1e9)) == []
    d = json.loads(capture.cli([*argv, "--json"]).split("\n", 1)[1])
    d["seconds"] = "<s>"
    check("phases_new_program_cli.json", json.dumps(d, indent=1) + "\n")


def test_the_page_and_the_report(var, trace_file):
    import app  # noqa: F401 - registers the pages
    from dashboard.jobs.progress import silent
    from dashboard.pages import phases as page
    from dashboard.phases import host_traces
    from dashboard.phases.kinds import NEW_PROGRAM
    from dashboard.phases.report import build_new_program

    m = host_traces.save_trace(trace_file.read_bytes(), "susan_host.csv")
    run = NEW_PROGRAM.run(NEW_PROGRAM.request({"np_trace": m["id"], "np_target": "power"})["params"], silent)
    card, _fig, rows = page._np_content(run)
    check("phases_new_program_page.txt", capture.page(card))
    built = build_new_program(run, "http://perfcast/phases?x=1")
    check("phases_new_program_report.txt", capture.report(built))
    s = run.summary()
    assert built.facts == [(f.label, f.text) for f in s.facts] and len(rows) == len(run.prediction.phase)
    # the command line says what the page says, to the digit
    text = capture.cli(["phases", "predict", "--trace", str(trace_file), "--host-freq", "1000", "--target-freq",
                        "2000", "--target", "power"])
    assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts)
    assert s.lead in text and all(f"note: {n.text}" in text for n in s.notes)
