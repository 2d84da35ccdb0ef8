"""/phases "Predict a new program": an uploaded host run is checked (missing columns named) and stored by
content; the job's work gives the library's numbers; the export carries the provenance."""

import io

import pandas as pd
import pytest

from dashboard.phases import host_traces, work
from dashboard.jobs.progress import silent
from dashboard.phases.kinds import NEW_PROGRAM
from dashboard.ui.url_state import InvalidParameter
from modeling.errors import DataError
from modeling.phases import data
from modeling.phases.predict import predict_trace

PROG = "automotive_susan_e"


def host_run():
    s = data.shipped_samples()
    return s[(s["program"] == PROG) & (s["freq_mhz"] == 1000) & (s["run"] == 1)].reset_index(drop=True)


def test_upload_is_checked_and_stored_by_content():
    raw = host_run().to_csv(index=False).encode()
    m = host_traces.save_trace(raw, "susan_host.csv")
    assert m["id"].startswith("ht-") and m["kind"] == "samples" and m["programs"] == [PROG]
    assert m["frequencies"] == [1000.0]
    assert host_traces.save_trace(raw, "again.csv")["id"] == m["id"]
    with pytest.raises(DataError, match="duration_s, INST_RETIRED"):
        host_traces.save_trace(host_run().drop(columns=["duration_s", "INST_RETIRED"]).to_csv(index=False).encode(),
                                "bad.csv")
    with pytest.raises(LookupError):
        host_traces.trace_meta("ht-0123456789abcdef")
    # a phase table with target columns: they are dropped before storing
    ph = data.shipped_pair(1000, 2000)
    t = host_traces.save_trace(ph[ph["program"] == PROG].to_csv(index=False).encode(), "table.csv")
    assert t["kind"] == "phases" and "never read" in " ".join(t["notes"])
    assert not any(c.startswith("target_") for c in host_traces.trace_frame(t["id"]).columns)


def test_the_job_gives_the_librarys_numbers_and_exports_with_provenance():
    m = host_traces.save_trace(host_run().to_csv(index=False).encode(), "susan_host.csv")
    with pytest.raises(InvalidParameter, match="upload"):
        NEW_PROGRAM.request({})
    req = NEW_PROGRAM.request({"np_trace": m["id"], "np_target": "power"})
    assert req["params"]["np_host_freq"] == 1000 and req["params"]["np_target_freq"] == 2000
    res = NEW_PROGRAM.run(req["params"], silent)
    lib = predict_trace(host_run(), 1000, 2000, "power")
    pred = res.prediction
    assert pred.total == lib.total and pred.phases == lib.phases and pred.model == lib.model
    assert res.params["np_trace"] == m["id"] and res.provenance.code_version and res.provenance.kind == "phasesnew"
    body, name = work.predict_new_export(res, "parquet")
    f = pd.read_parquet(io.BytesIO(body))
    assert name.endswith(".parquet") and len(f) == len(pred.phase) + 1
    assert f["predicted"].iloc[-1] == pytest.approx(pred.total["predicted"])
    assert (f["trace"] == m["id"]).all() and f["code_version"].nunique() == 1
    body, name = work.predict_new_export(res, "csv")
    assert name.endswith(".csv") and f"{PROG}/total" in body.decode()


def test_the_card_trains_on_an_uploaded_trace_with_its_frequencies_and_events():
    """A PARSEC-like trace as the data source: its frequencies are offered (not the shipped ones), the model is
    trained on its programs, and an event the new program's host run lacks is dropped with a note."""
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import phases as page
    from dashboard.phases import sources
    from modeling.build import armpm
    from tests.shared_data import parsec_like

    programs = tuple(f"parsec.p{i}" for i in range(6))
    src = sources.save_upload(parsec_like(programs), "parsec.data")
    assert src["frequencies"] == [1000.0, 1800.0] and src["programs"] == 6
    s, _ = armpm.samples(armpm.read_trace(parsec_like(("parsec.new",), seed=7)))
    host = s[(s["freq_mhz"] == 1000) & (s["run"] == 1)].drop(columns=["L1D_CACHE_ACCESS", "cores"])
    m = host_traces.save_trace(host.to_csv(index=False).encode(), "new_host.csv")
    req = NEW_PROGRAM.request({"np_source": src["id"], "np_trace": m["id"]})
    assert (req["params"]["np_host_freq"], req["params"]["np_target_freq"]) == (1000, 1800)
    with pytest.raises(InvalidParameter, match="np_target_freq"):
        NEW_PROGRAM.request({"np_source": src["id"], "np_trace": m["id"], "np_target_freq": "2000"})
    res = NEW_PROGRAM.run(req["params"], silent)
    pred = res.prediction
    assert pred.n_programs == 6 and "parsec.data" in pred.training
    assert res.training_fingerprint == src["id"] and res.provenance_columns["training_fingerprint"] == src["id"]
    assert res.provenance.dataset == src["id"] and "parsec.data" in res.provenance.dataset_name
    assert any("L1D_CACHE_ACCESS" in n and "dropped from the model" in n for n in pred.notes)
    summary = res.summary()
    text = summary.lead
    assert "6 programs of parsec.data" in text and pred.selection in text
    facts = {f.label: f.value for f in summary.facts}
    assert "host × median whole-program ratio" in facts
    # 6 training programs cannot support a 90 % whole-program interval: the card says so instead of a range
    assert facts["90 % interval"].startswith("not supported") and "no interval on the total" in text
    assert "no 90 % interval" in work.saved_summary(res)["text"]
    summary, fig, rows = page._np_content(res)  # the card draws it: no range on the total, every phase's row
    assert len(rows) == len(pred.phase) and "no interval on the total" in fig["layout"]["title"]["text"]
