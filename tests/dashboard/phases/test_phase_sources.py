"""Uploaded phase data: a trace becomes cleaned samples, a phase table is checked, bad files get their
reason; the /phases job runs on each; parameters are validated on the server."""

import pytest

from dashboard.phases import sources, work
from dashboard.phases.kinds import PHASES
from dashboard.ui.url_state import InvalidParameter
from modeling.errors import DataError
from tests.shared_data import constructed_trace

def test_a_trace_upload_is_stored_by_content_and_runs():
    raw = constructed_trace()
    m = sources.save_upload(raw, "lab.tsv")
    assert m["kind"] == "samples" and m["frequencies"] == [800.0, 1600.0] and m["programs"] == 4
    assert sources.save_upload(raw, "again.tsv")["id"] == m["id"]
    req = PHASES.request({"source": m["id"], "eps": "100", "T": "1", "folds": "2"})
    assert (req["params"]["host_freq"], req["params"]["target_freq"]) == (800, 1600)
    res = work.phases_result(req["params"])
    assert res.evaluation.n_programs == 4 and {*res.evaluation.model_names} >= {"lacross", "ratio-baseline"}
    with pytest.raises(InvalidParameter, match="host_freq"):
        PHASES.request({"source": m["id"], "host_freq": "1000"})


def test_a_phase_table_upload_is_checked_and_runs():
    from modeling.phases.data import shipped_pair

    ph = shipped_pair(1000, 2000)
    m = sources.save_upload(ph.to_csv(index=False).encode(), "pairs.csv")
    assert m["kind"] == "phases" and m["programs"] == 30
    req = PHASES.request({"source": m["id"], "eps": "100", "T": "1"})
    assert req["params"]["host_freq"] == 0
    res = work.phases_result(req["params"])
    assert res.evaluation.n_phases == int((~ph["edge"]).sum())  # the runs' edges are not phases
    with pytest.raises(DataError, match="lacks column"):
        sources.save_upload(ph.drop(columns=["target_cycles"]).to_csv(index=False).encode(), "bad.csv")
    with pytest.raises(DataError, match="positive"):
        sources.save_upload(ph.assign(target_power_w=-1.0).to_csv(index=False).encode(), "neg.csv")
    with pytest.raises(DataError, match="two programs"):
        sources.save_upload(ph.assign(program="one").to_csv(index=False).encode(), "one.csv")


def test_forged_sources_and_settings_are_refused():
    for bad in ("../../etc/passwd", "pd-0000000000000000", 7):
        with pytest.raises((InvalidParameter, LookupError)):
            PHASES.request({"source": bad})
    with pytest.raises(InvalidParameter, match="eps"):
        PHASES.request({"eps": "200"})
    with pytest.raises(InvalidParameter, match="T"):
        PHASES.request({"T": "abc"})
    with pytest.raises(InvalidParameter, match="granularity"):
        PHASES.request({"granularity": "1e3"})
