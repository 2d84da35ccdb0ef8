"""/phases' new-program prediction says the same on the shipped data as the golden files: the command line's
text and JSON (``python -m modeling phases predict``), the page's summary card and the report's content
(tests/summaries/golden/, written from the code before; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew)."""

import json

import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import check

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
    check("phases_new_program_cli.txt", capture.cli(argv))
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
    summary, _fig, rows = page._np_content(run)
    check("phases_new_program_page.txt", capture.page(summary))
    check("phases_new_program_report.txt", capture.report(build_new_program(run, "http://perfcast/phases?x=1")))
