"""Uploaded count tables: each bad input gets its own message and stores nothing; a good one is stored by
content and runs; the /counts parameters are validated on the server (forged ids, unknown models)."""

import pandas as pd
import pytest

from dashboard.counts import sources, work
from dashboard.counts.kinds import COUNTS, PROGRAMS
from dashboard.jobs.progress import silent
from dashboard.ui.url_state import InvalidParameter
from modeling.errors import DataError


def _csv(rows) -> bytes:
    return pd.DataFrame(rows).to_csv(index=False).encode()


def _good():
    return [{"program": "stencil", "N": n, "T": t, "block": b, "count": n * n * t * (i + 1)}
            for n in range(16, 129, 16) for t in range(1, 7) for i, b in enumerate(["sweep:3", "sweep:4"])]


def test_a_count_table_upload_is_stored_by_content_and_runs():
    m = sources.save_upload(_csv(_good()), "lab counts.csv")
    assert m["programs"] == ["stencil"] and m["id"].startswith("cd-") and m["notes"] == []
    assert sources.save_upload(_csv(_good()), "again.csv")["id"] == m["id"]
    assert any(o["value"] == m["id"] for o in sources.options())
    req = COUNTS.request({"source": m["id"], "models": "poly,glm,best", "split": "high-low"})
    assert req["params"]["program"] == "stencil" and req["params"]["models"] == ["glm", "poly", "best"]
    run = COUNTS.run(req["params"], silent)
    poly = run.evaluation.score("poly")
    assert poly.mape == pytest.approx(0, abs=1e-9) and poly.exact_blocks == 2
    assert run.provenance.dataset == m["id"] and run.provenance.dataset_name == "lab counts.csv"
    every = PROGRAMS.run(PROGRAMS.request({"source": m["id"], "models": "glm"})["params"], silent)
    assert [(r.program, r.model) for r in every.rows] == [("stencil", "glm"), ("stencil", "baseline")]
    assert every.skipped == [] and every.rows[1].vs_baseline == 1.0


@pytest.mark.parametrize("change, message", [
    (lambda r: r[3].update(count=-1), "zero or more"),
    (lambda r: r[3].update(count=2.5), "whole numbers"),
    (lambda r: r[3].update(count=None), "missing"),
    (lambda r: [x.update(N=32, T=4) for x in r], "single input size"),
    (lambda r: r[3].update(N=-16), "positive"),
    (lambda r: [x.pop("block") for x in r], "missing: block"),
])
def test_bad_count_tables_each_get_their_own_message_and_store_nothing(change, message):
    rows = _good()
    change(rows)
    if message == "single input size":
        rows = rows[:2]
    before = len(sources.options())
    with pytest.raises(DataError, match=message):
        sources.save_upload(_csv(rows), "bad.csv")
    assert len(sources.options()) == before


def test_a_table_whose_high_low_split_is_empty_is_stored_with_a_note_and_the_job_says_why():
    rows = [{"program": "p", "A": a, "B": b, "block": "f:2", "count": a * b}
            for a, b in [(1, 1), (1, 10), (10, 1), (2, 2), (3, 1), (1, 3)]]
    m = sources.save_upload(_csv(rows), "corner.csv")
    assert "no test points" in m["notes"][0]
    with pytest.raises(DataError, match="no test points"):
        work.counts_result(COUNTS.request({"source": m["id"], "models": "glm"})["params"])


def test_forged_parameters_are_refused():
    with pytest.raises(LookupError):
        COUNTS.request({"source": "cd-0123456789abcdef"})
    with pytest.raises(LookupError):
        COUNTS.request({"source": "../../etc/passwd"})
    with pytest.raises(InvalidParameter, match="models"):
        COUNTS.request({"models": "glm,rm -rf"})
    with pytest.raises(InvalidParameter, match="program"):
        COUNTS.request({"program": "gemm; drop"})
    with pytest.raises(InvalidParameter, match="epochs"):
        COUNTS.request({"epochs": "10000000"})
    a = COUNTS.request({"models": "glm,poly"})
    b = COUNTS.request({"models": "poly,glm"})
    assert a["key"] == b["key"]  # one choice, one result
    assert COUNTS.request({"source": "gpu"})["params"]["program"] == "lud_perimeter"


def test_predict_at_new_inputs_validates_on_the_server_and_exports_with_provenance():
    import io

    from dashboard.counts.kinds import PREDICT
    from dashboard.counts.views import export_bytes, prediction_rows

    m = sources.save_upload(_csv(_good()), "lab counts.csv")
    for bad, why in [({"at": "N=64,Q=2"}, "Unknown input parameter"), ({"at": "N=-1,T=2"}, "positive"),
                     ({"at": "N=64"}, "no value of T"), ({"at": ["N=64"]}, "expected text"),
                     ({"pmodel": "nope"}, "not one of")]:
        with pytest.raises(InvalidParameter, match=why):
            PREDICT.request({"source": m["id"], **bad})
    req = PREDICT.request({"source": m["id"], "at": "N=1000, T=50;  N=256 x T=7,8"})
    assert req["params"]["at"] == "N=1000, T=50; N=256 x T=7,8" and req["params"]["pmodel"] == "best"
    res = PREDICT.run(req["params"], silent)
    assert res.prediction.n_inputs == 3 and res.prediction.n_exact == 2
    assert res.prediction.predicted[0].tolist() == [1000 * 1000 * 50, 2 * 1000 * 1000 * 50]
    rows = prediction_rows(res)
    assert rows[0]["how"] == "exact polynomial" and rows[-1]["block"] == "total: all blocks"
    data, name = export_bytes(res, "parquet")
    df = pd.read_parquet(io.BytesIO(data))
    assert name == "counts_stencil_best.parquet" and len(df) == 6
    assert df["table"].iloc[0] == m["id"] and df["code_version"].notna().all() and df["date"].notna().all()
    assert df[["N", "T"]].iloc[0].tolist() == [1000, 50]


def test_blocks_sort_by_number_and_few_test_inputs_are_said():
    from dataclasses import replace

    from dashboard.counts.views import block_rows, natural
    from modeling.counts.summary import FEW_TEST_INPUTS
    from modeling.counts.results import BlockChoice, CountEvaluation, ModelScore, TestPoints

    assert sorted(["f:10", "f:2", "g:1", "f:1"], key=natural) == ["f:1", "f:2", "f:10", "g:1"]
    blocks = [BlockChoice(b, "glm", False, 0.0, 0.0) for b in ("k:10", "k:2", "k:9")]
    ev = CountEvaluation("p", ["N"], "high-low", 20, 4, [ModelScore("glm", 1.0, 2.0, None, None, None, 0.1)],
                         blocks, [], TestPoints([], [], {}), [], [])
    assert [r["block"] for r in block_rows(ev)] == ["k:2", "k:9", "k:10"]
    few = ev.summary()
    assert [n.key for n in few.notes] == ["few"] and "Only 4 test inputs" in few.lead
    assert not replace(ev, n_test=FEW_TEST_INPUTS).summary().notes
