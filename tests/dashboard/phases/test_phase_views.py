"""What /phases says of its data and of a result (dashboard/phases/views.py, report.py): the upload's name and
frequencies, the headline numbers as the result has them, the runs left out, and the new program's report."""

from dashboard.jobs.progress import silent
from dashboard.phases import host_traces, sources, views, work
from dashboard.phases.kinds import NEW_PROGRAM, PHASES
from tests.dashboard.phases.test_new_program import PROG, host_run
from tests.shared_data import constructed_trace


def test_an_uploaded_traces_evaluation_is_described_with_its_own_numbers(var):
    m = sources.save_upload(constructed_trace(), "lab.tsv")
    assert views.stored_text(m).startswith("Stored a trace: 4 programs at 800, 1600 MHz.")
    assert views.data_phrase(m["id"]) == "4 programs of lab.tsv (uploaded)"
    assert views.data_phrase(sources.SHIPPED).endswith("of cBench measured on an ODROID-XU3")
    res = work.phases_result(PHASES.request({"source": m["id"], "eps": "100", "T": "1", "folds": "2"})["params"])
    s = views.summary(res)
    lacross = next(r for r in res.evaluation.models if r.model == "lacross")
    assert s.fact("lacross").text == f"{lacross.per_phase_mape:.2f} %"
    assert s.fact("n-programs").text == f"4 / {res.evaluation.n_phases}"
    assert s.details[0].value.startswith("lab.tsv (uploaded): 800 → 1600 MHz, cycles")
    assert [r["model"] for r in views.model_rows(res)] == [views.NAMES[m] for m in res.evaluation.model_names]
    assert views.programs_of(res) == sorted(views.programs_of(res)) and len(views.programs_of(res)) == 4


def test_the_runs_left_out_are_named_the_first_eight_then_counted():
    runs = [{"program": f"p{i}", "run": 1, "freq_mhz": 1000.0, "deviation": 0.2} for i in range(10)]
    text = views.excluded_text(runs)
    assert text.startswith("Runs excluded by quality control (10,") and "p7 run 1 at 1000 MHz (+20.0 %" in text
    assert "p8" not in text and text.endswith("; and 2 more.")
    assert views.excluded_text([]) == "Runs excluded by quality control: none."


def test_the_new_programs_report_holds_its_trace_and_provenance(var):
    from dashboard.phases.report import build_new_program

    m = host_traces.save_trace(host_run().to_csv(index=False).encode(), "susan_host.csv")
    res = NEW_PROGRAM.run(NEW_PROGRAM.request({"np_trace": m["id"], "np_target": "power"})["params"], silent)
    report = build_new_program(res, "http://here/phases?np_trace=x")
    assert report.title == f"Target trace of {PROG}, never run on the target"
    assert len(report.sections[1].tables[0].rows) == len(res.prediction.phase)  # one row per phase
    page = report.html().decode()
    assert m["id"] in page and "http://here/phases?np_trace=x" in page
