"""Each /counts job's result is a typed result (dashboard/counts/results.py) that goes through the job codec
(dashboard/jobs/codec.py) and a saved prediction's file and comes back as the same types, drawing the same page."""

import numpy as np
import pandas as pd
import pytest

from dashboard.counts import sources
from dashboard.counts.kinds import COUNTS, PREDICT, PROGRAMS
from dashboard.counts.results import CountsPredictionRun, CountsProgramRow, CountsProgramsRun, CountsRun
from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from modeling.counts.predict import CountPrediction
from modeling.counts.results import CountEvaluation, CurvePoint, ModelScore, TestPoints
from modeling.results import Provenance


def _table_id():
    rows = [{"program": "stencil", "N": n, "T": t, "block": b, "count": n * n * t * (i + 1) + (n % 3 if i else 0)}
            for n in range(16, 129, 16) for t in range(1, 7) for i, b in enumerate(["sweep:3", "sweep:4"])]
    return sources.save_upload(pd.DataFrame(rows).to_csv(index=False).encode(), "lab.csv")["id"]


def _run(kind):
    src = _table_id()
    raw = {"counts": {"models": "glm,poly,best"}, "countsall": {"models": "glm,poly"},
           "countspredict": {"at": "N=1000,T=50; N=256 x T=7,8", "pmodel": "best"}}[kind.name]
    return kind.run(kind.request({"source": src, **raw})["params"], silent)


def _page(run):
    """What the page draws from a run (views and figures): equal for a run and its revived copy."""
    from dashboard.counts import figures, views

    if isinstance(run, CountsRun):
        ev = run.evaluation
        return [views.leaderboard_rows(ev), views.block_rows(ev), run.summary().as_text(), figures.curve(ev),
                figures.heatmap(ev, "best"), figures.ratios(ev, "glm")]
    if isinstance(run, CountsProgramsRun):
        return [[r.grid_row for r in run.rows], figures.programs_bar(run)]
    return [views.prediction_rows(run), run.summary().as_text(),
            figures.predicted_counts(run, "all blocks"), figures.predicted_counts(run, "sweep:4"),
            views.export_bytes(run, "csv")]


@pytest.mark.parametrize("kind, typ", [(COUNTS, CountsRun), (PROGRAMS, CountsProgramsRun),
                                       (PREDICT, CountsPredictionRun)], ids=["counts", "countsall", "countspredict"])
def test_every_counts_job_result_round_trips_through_the_codec_as_its_types(kind, typ):
    run = _run(kind)
    assert type(run) is typ and isinstance(run.provenance, Provenance)
    assert run.provenance.kind == kind.name and run.provenance.dataset_name == "lab.csv"
    back = codec.unpack(codec.pack(run))
    assert type(back) is typ and codec.pack(back) == codec.pack(run)  # nothing lost, nothing added
    assert back.provenance == run.provenance and back.params == run.params
    if typ is CountsRun:
        ev = back.evaluation
        assert type(ev) is CountEvaluation and type(ev.test) is TestPoints and ev.test.models[-1] == "baseline"
        assert all(type(m) is ModelScore for m in ev.models) and all(type(c) is CurvePoint for c in ev.curve)
        assert ev.best == run.evaluation.best and ev.score("poly").exact_blocks == 1
    elif typ is CountsProgramsRun:
        assert all(type(r) is CountsProgramRow and type(r.score) is ModelScore for r in back.rows)
    else:
        p = back.prediction
        assert type(p) is CountPrediction and isinstance(p.predicted, np.ndarray) and p.predicted.shape == (3, 2)
        assert np.array_equal(p.lower, run.prediction.lower, equal_nan=True) and p.n_exact == 1
        assert p.by_model == {} and run.prediction.by_model  # the working arrays are not stored
    assert repr(_page(back)) == repr(_page(run))


def test_a_saved_counts_prediction_reads_back_typed_with_its_provenance(var):
    from dashboard.counts.views import saved_summary
    from dashboard.state import predictions

    run = _run(PREDICT)
    meta = predictions.save_prediction(run, "countspredict-" + "1" * 32, run.to_frame(), saved_summary(run),
                                       "mine", method="counts")
    assert meta["params"] == run.params and meta["provenance"]["fingerprint"] == run.provenance.fingerprint
    back = predictions.load_result(meta["id"])
    assert type(back) is CountsPredictionRun and codec.pack(back) == codec.pack(run)
    assert "lab.csv" in saved_summary(back)["text"]


def test_one_wide_range_does_not_stretch_the_all_blocks_chart():
    """A prediction whose tiny block carries the range [0, 1.8e14] (as saved before ranges were bounded): the
    count axis spans the counts (~4e7) and the ranges near them, not 1e14; the title says a range is cut."""
    import math

    from dashboard.counts import figures

    pr = CountPrediction(
        program="p", params=["N"], model="glm", blocks=["loop", "odd"], kind="blocks",
        inputs=np.array([[1e4]]), predicted=np.array([[4e7, 1.0]]), lower=np.array([[3.9e7, 0.0]]),
        upper=np.array([[4.1e7, 1.8e14]]), how=["glm", "glm"], error=[1.0, 50.0], level=[0.9, 0.9],
        irregular=[None, None], beyond=np.array([1.0]), n_measured=3, measured_max={"N": 1000.0},
        n_hl_train=2, n_hl_test=9, hl_distance=1.5, scheme="leave-one-input-out", level_supported=True,
        notes=[], seconds=0.0)
    run = CountsPredictionRun(params={}, prediction=pr, measured_X=np.array([[10.0], [100.0], [1000.0]]),
                              measured_Y=np.array([[400.0, 1.0], [4e4, 2.0], [4e6, 0.0]]))
    fig = figures.predicted_counts(run, "all blocks")
    lo, hi = fig["layout"]["yaxis"]["range"]
    assert hi < math.log10(4e7 * figures.RANGE_SPAN) + 0.2 and lo > 1
    assert "beyond the chart" in fig["layout"]["title"]["text"] and "1.8e+14" in fig["layout"]["title"]["text"]
    ok = figures.predicted_counts(run, "loop")
    assert "beyond the chart" not in ok["layout"]["title"]["text"]
