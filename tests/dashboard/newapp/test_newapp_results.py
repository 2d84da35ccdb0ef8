"""The /new-app job's two results are two types (dashboard/newapp/results.py), not one dict told apart by its
keys; each goes through the job codec (dashboard/jobs/codec.py) and comes back as the same types, drawing the same
page."""

import pytest

from dashboard.jobs import codec
from dashboard.jobs.progress import silent
from dashboard.newapp import sections
from dashboard.newapp.kinds import NEWAPP
from dashboard.newapp.report import build
from dashboard.newapp.results import HeldOutRun, UnbuiltGpuRun
from modeling.newapp.hypothetical import HypotheticalEstimate, TrackRecord
from modeling.newapp.results import ApplicationEstimate, HeldOutEvaluation, MethodResult, Scores
from modeling.results import Provenance

HOPPER = {"mode": "typed", "gpu_name": "H100-ish", "gpu_arch": "Hopper", "gpu_sms": "132", "gpu_cores": "16896",
          "gpu_clock": "1980", "gpu_bw": "3350"}


def _page(run):
    """What the page draws of a run (both views, whichever is empty, and the report's numbers)."""
    out = [repr(sections.measured_content(run, None, None)), repr(sections.hypo_content(run))]
    if isinstance(run, UnbuiltGpuRun):
        r = build(run, "link")
        out += [r.title, r.facts, [s.paragraphs for s in r.sections], r.provenance]
    return out


@pytest.mark.parametrize("raw, typ", [({"models": "none"}, HeldOutRun), (HOPPER, UnbuiltGpuRun),
                                      ({"mode": "table", "gpu": "Tesla-P100"}, UnbuiltGpuRun)],
                         ids=["measured", "typed", "table"])
def test_every_newapp_result_round_trips_through_the_codec_as_its_types(var, raw, typ):
    run = NEWAPP.run(NEWAPP.request(raw)["params"], silent)
    assert type(run) is typ and isinstance(run.provenance, Provenance) and run.provenance.kind == "newapp"
    assert run.provenance.dataset == "rodinia" and run.provenance.dataset_name == run.dataset_name
    back = codec.unpack(codec.pack(run))
    assert type(back) is typ and codec.pack(back) == codec.pack(run)  # nothing lost, nothing added
    assert back.provenance == run.provenance and back.params == run.params
    if typ is HeldOutRun:
        assert type(back.application) is ApplicationEstimate and type(back.every) is HeldOutEvaluation
        assert back.every.rows is None and all(type(m) is MethodResult for m in back.application.methods)
        roof = back.every.method("roofline")
        assert all(type(s) is Scores for s in roof.per_group.values())
        assert isinstance(back.application.method("roofline").classes, tuple)
        assert back.application.best.method == run.application.best.method
        assert sections.hypo_content(back)[6] == sections.shown_block(True)  # the measured view shows
    else:
        assert type(back.estimate) is HypotheticalEstimate and type(back.estimate.track) is TrackRecord
        assert back.estimate.track.architectures == run.estimate.track.architectures
        assert sections.hypo_content(back)[7] == sections.shown_block(True)  # the never-measured view shows
        assert str(run.provenance.fingerprint) in build(back, "link").provenance
    assert _page(back) == _page(run)
