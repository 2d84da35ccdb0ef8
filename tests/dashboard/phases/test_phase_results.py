"""Each /phases job's result is a typed result (dashboard/phases/results.py) that goes through the job codec
(dashboard/jobs/codec.py) and comes back as the same types, drawing the same page; a new program's prediction
saved before the results were typed (a plain dict) still lists, downloads and reads."""

import io

import pandas as pd
import pytest

from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from dashboard.phases import figures, host_traces, sources, views, work
from dashboard.phases.kinds import NEW_PROGRAM, PHASES, SWEEP
from dashboard.phases.results import NewProgramRun, PhasesRun, PhaseTrace, SweepRow, SweepRun
from modeling.phases.prediction import PhasePrediction
from modeling.phases.results import PhaseEvaluation, PhaseModelScore
from modeling.results import TAG, Provenance
from tests.dashboard.phases.test_new_program import host_run
from tests.shared_data import constructed_trace

pytestmark = pytest.mark.slow  # each computes a job (75 s of CPU for the four on a loaded machine)


def _run(kind):
    if kind is NEW_PROGRAM:
        m = host_traces.save_trace(host_run().to_csv(index=False).encode(), "susan_host.csv")
        raw = {"np_trace": m["id"], "np_target": "power"}
    else:
        src = sources.save_upload(constructed_trace(), "lab.tsv")["id"]
        raw = {"source": src, "eps": "100", "T": "1", "folds": "2"}
    return kind.run(kind.request(raw)["params"], silent)


def _page(run):
    """What the page and the report draw from a run: equal for a run and its revived copy."""
    from dashboard.pages import phases as page
    from dashboard.phases.new_program_text import np_rows

    if isinstance(run, PhasesRun):
        program = run.programs[0]
        return [page._content(run, program)[1:], figures.trace(run, program), views.summary(run).as_text()]
    if isinstance(run, SweepRun):
        return [figures.sweep(run), [r.grid_row for r in run.rows]]
    return [run.summary().as_text(), np_rows(run), figures.new_program(run), work.saved_summary(run),
            work.predict_new_export(run, "csv")]


@pytest.mark.parametrize("kind, typ", [(PHASES, PhasesRun), (SWEEP, SweepRun), (NEW_PROGRAM, NewProgramRun)],
                         ids=["phases", "phasesweep", "phasesnew"])
def test_every_phases_job_result_round_trips_through_the_codec_as_its_types(var, kind, typ):
    import app  # noqa: F401 - registers the pages

    run = _run(kind)
    assert type(run) is typ and isinstance(run.provenance, Provenance) and run.provenance.kind == kind.name
    back = codec.unpack(codec.pack(run))
    assert type(back) is typ and codec.pack(back) == codec.pack(run)  # nothing lost, nothing added
    assert back.provenance == run.provenance and back.params == run.params
    if typ is PhasesRun:
        ev = back.evaluation
        assert type(ev) is PhaseEvaluation and type(back.phases) is PhaseTrace
        assert all(type(m) is PhaseModelScore for m in ev.models) and ev.best == run.evaluation.best
        assert back.provenance.dataset_name == "lab.tsv (uploaded)"
    elif typ is SweepRun:
        assert back.rows and all(type(r) is SweepRow for r in back.rows)
    else:
        p = back.prediction
        assert type(p) is PhasePrediction and p.phases == run.prediction.phases and p.total == run.prediction.total
    assert repr(_page(back)) == repr(_page(run))


def _untagged(run: NewProgramRun) -> dict:
    """The plain dict the ``phasesnew`` job stored before its result was typed: the prediction's flat JSON (its
    ``summary()``, the shape its ``to_dict()`` had) with the parameters, the trace's name and a provenance dict."""
    old = run.prediction.cli_json()
    assert TAG not in old
    return {**old, "params": dict(run.params), "trace_name": run.trace_name, "provenance": run.provenance_columns}


def test_a_phase_prediction_saved_as_a_plain_dict_still_lists_downloads_and_reads(var):
    from dashboard.state import predictions

    run = _run(NEW_PROGRAM)
    old = _untagged(run)
    table = run.to_frame()
    meta = predictions.save_prediction(old, "phasesnew-" + "2" * 32, table, {"text": "an old one"}, "old",
                                       method="phases")
    assert [m["id"] for m in predictions.list_predictions()] == [meta["id"]]
    assert meta["params"] == run.params and meta["provenance"]["code_version"] == run.provenance.code_version
    pd.testing.assert_frame_equal(predictions.load_table(meta["id"]), table)
    stored = predictions.load_result(meta["id"])
    assert type(stored) is dict  # stored before the results were typed: read through the from-dict path
    back = NewProgramRun.read(stored)
    assert type(back.prediction) is PhasePrediction and back.prediction.phases == run.prediction.phases
    assert back.trace_name == run.trace_name and back.provenance.code_version == run.provenance.code_version
    pd.testing.assert_frame_equal(back.to_frame(), table)
    body, _ = work.predict_new_export(back, "parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(body)), table)
    assert work.saved_summary(back)["text"] == work.saved_summary(run)["text"]
