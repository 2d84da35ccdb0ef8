"""Upload parsing under hostile or odd files: line endings, empty tables, UTF-16, declared-shape bombs;
and nothing half-saved: a timing table that fails is not kept, staged uploads expire."""

import base64
import io
import os
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.access.projects import project_path
from dashboard.accelerators import sources
from dashboard.state import files, staging, timings, uploads
from modeling.tables import reading as tabular
from modeling.errors import DataError

CSV = "workload,a,b,t\nw1,1,2,3\nw2,4,5,6\nw3,7,8,9\n"


def test_old_mac_and_windows_line_endings_read_like_unix():
    unix = uploads.parse_upload(CSV.encode()).frame
    for ending in ("\r", "\r\n"):
        frame = uploads.parse_upload(CSV.replace("\n", ending).encode()).frame
        pd.testing.assert_frame_equal(frame, unix)


def test_a_large_cr_only_file_gets_the_right_message_or_reads():
    body = "".join(f"w{i},{i},{i % 7},{i + 1}\r" for i in range(600_000))  # ~12 MB, 2.4 M cells
    frame = uploads.parse_upload(("workload,a,b,t\r" + body).encode()).frame
    assert frame.shape == (600_000, 4)
    wide = "".join(f"w{i}," + ",".join(["1"] * 9) + "\r" for i in range(600_000))  # 6 M cells: over the budget
    with pytest.raises(DataError, match="cells"):
        uploads.parse_upload(("id," + ",".join(f"c{j}" for j in range(9)) + "\r" + wide).encode())


@pytest.mark.parametrize("text", [",,,\n,,,\n", ",,,", ";;;\r;;;\r", "\n\n\n"])
def test_a_file_of_only_delimiters_is_a_clear_error(text):
    with pytest.raises(DataError, match="empty|no header"):
        uploads.parse_upload(text.encode())


def test_utf16_with_a_byte_order_mark_is_read_and_without_one_is_named():
    frame = uploads.parse_upload(CSV.replace(",", "\t").encode("utf-16")).frame
    assert list(frame.columns) == ["workload", "a", "b", "t"] and frame["t"].tolist() == [3.0, 6.0, 9.0]
    with pytest.raises(DataError, match="UTF-16"):
        uploads.parse_upload(CSV.encode("utf-16-le"))


def _parquet(frame, **kw) -> bytes:
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf, **kw)
    return buf.getvalue()


def test_a_parquet_file_that_declares_too_many_cells_is_refused_before_loading():
    bomb = _parquet(pd.DataFrame(np.zeros((1_000_000, 100), dtype=np.float32), columns=[f"c{i}" for i in
                                                                                           range(100)]),
                    compression="zstd")
    assert len(bomb) < 2_000_000  # small on disk
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(DataError, match="100,000,000 cells"):
        uploads.parse_upload(bomb)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 200  # the table was never materialized (it would take 400 MB)
    wide = _parquet(pd.DataFrame(np.zeros((1100, 4999)), columns=[f"c{i}" for i in range(4999)]))
    with pytest.raises(DataError, match="cells"):
        uploads.parse_upload(wide)
    ok = _parquet(pd.DataFrame({"workload": ["a", "b", "c"], "x": [1.0, 2.0, 3.0]}))
    assert uploads.parse_upload(ok).frame.shape == (3, 2)


def test_the_cell_budget_is_the_documented_one():
    guide = (Path(__file__).resolve().parents[3] / "docs" / "guide" / "data.md").read_text()
    assert f"{tabular.MAX_CELLS:,}" in guide


TIMING = "kernel,granularity_bytes,repeat,host_s,accel_s\n" + "".join(
    f"k,{g},{r},{g * 1e-8 + 1e-6},{g * 1e-9 + 2e-5}\n" for g in (16, 256, 4096, 65536, 1048576) for r in (0, 1))


def test_a_timing_table_that_fails_validation_or_fitting_is_not_kept(var):
    for bad in (",,,\n,,,\n", "kernel,granularity_bytes\nk,1\n",
                "kernel,granularity_bytes,repeat,host_s,accel_s\nk,16,0,1,1\n"):
        with pytest.raises(DataError):
            sources.save_timing_upload(uploads.parse_upload(bad.encode()).frame, "bad.csv")
    assert not project_path("timings").exists() or not list(project_path("timings").iterdir())
    meta = sources.save_timing_upload(uploads.parse_upload(TIMING.encode()).frame, "good.csv")
    assert sorted(p.name for p in project_path("timings").iterdir()) == [f"{meta['id']}.json", f"{meta['id']}.parquet"]
    assert files.sha256_file(project_path("timings") / f"{meta['id']}.parquet") == meta["sha256"]
    assert len(timings.timing_table(meta["id"])) == 10


def test_staged_uploads_expire_as_the_message_says(var):
    token = staging.stage_upload(pd.DataFrame({"a": [1]}), {"filename": "x.csv"})
    frame, info = staging.staged_upload(token)
    assert info == {"filename": "x.csv"} and len(frame) == 1
    old = time.time() - staging.STAGE_TTL_SECONDS - 60
    for p in project_path("staging").iterdir():
        os.utime(p, (old, old))
    with pytest.raises(files.NotFound, match="expire"):
        staging.staged_upload(token)
    fresh = staging.stage_upload(pd.DataFrame({"a": [2]}), {})  # staging sweeps the expired ones away
    assert sorted(p.name for p in project_path("staging").iterdir()) == [f"{fresh}.json", f"{fresh}.parquet"]


def test_a_project_keeps_only_its_newest_staged_uploads(var, monkeypatch):
    """An editor previewing file after file cannot fill the disk for the 6 h the previews wait: beyond
    STAGED_MAX the oldest goes, and its Save says to upload the file again."""
    monkeypatch.setattr(staging, "STAGED_MAX", 3)
    tokens = []
    for i in range(5):
        tokens.append(staging.stage_upload(pd.DataFrame({"a": [i]}), {}))
        old = time.time() - 100 + i  # staged one after the other
        for p in project_path("staging").glob(f"{tokens[-1]}.*"):
            os.utime(p, (old, old))
    assert sorted(p.stem for p in project_path("staging").glob("*.json")) == sorted(tokens[2:])
    assert len(list(project_path("staging").iterdir())) == 6
    for t in tokens[:2]:
        with pytest.raises(files.NotFound, match="newest"):
            staging.staged_upload(t)
    assert staging.staged_upload(tokens[-1])[0]["a"].tolist() == [4]


def test_forged_mapping_values_are_refused_not_crashed():
    frame = uploads.parse_upload(CSV.encode()).frame
    for mapping, role in [({"id_col": "workload", "targets": ["t"], "features": 5}, "features"),
                          ({"id_col": {"a": 1}, "targets": ["t"]}, "id_col"),
                          ({"id_col": ["workload"], "targets": ["t"]}, "id_col"),
                          ({"id_col": "workload", "targets": "t"}, "targets"),
                          ({"id_col": "workload", "targets": [["t"]]}, "targets")]:
        with pytest.raises(DataError, match=f"Invalid choice for {role}"):
            uploads.build_dataset(frame, mapping)
    assert files.clean_name(["a", "b"], "fallback") == "fallback" and files.clean_name(5) == "untitled"


def test_a_data_url_with_a_forged_type_is_refused():
    for contents in (5, ["data:,x"], {"a": 1}, "no comma"):
        with pytest.raises(DataError, match="did not arrive as a file"):
            uploads.decode_upload(contents)
    assert uploads.parse_upload(base64.b64decode(base64.b64encode(CSV.encode())), ["x.csv"]).frame.shape == (3, 4)


def _with_gaps():
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(20)], "a": rng.uniform(1, 2, 20),
                       "b": rng.uniform(1, 2, 20), "c": rng.uniform(1, 2, 20), "sparse": rng.uniform(1, 2, 20),
                       "t": rng.uniform(1, 2, 20)})
    df.loc[[3, 7, 11], "sparse"] = np.nan
    df.loc[5, "b"] = np.nan
    return df


def test_missing_values_are_reported_and_handled_by_the_chosen_rule():
    df = _with_gaps()
    report = uploads.missing_preview(uploads.parse_upload(df.to_csv(index=False).encode()), "workload")
    assert report["rows"] == 4 and report["row_ids"] == ["w3", "w5", "w7", "w11"]
    assert report["columns"] == {"sparse": 3, "b": 1}
    text = uploads.missing_text(report, 20)
    assert text.startswith("4 of 20 workloads miss a value in 2 column(s): sparse (3 rows), b (1 rows)")
    base = {"id_col": "workload", "targets": ["t"]}
    with pytest.raises(DataError, match="miss a feature value: choose"):  # no rule chosen: nothing dropped unasked
        uploads.build_dataset(df, base)
    rows, _, m, notes = uploads.build_dataset(df, {**base, "missing": "rows"})
    assert len(rows) == 16 and notes["missing"]["row_ids"] == ["w3", "w5", "w7", "w11"]
    cols, _, m, notes = uploads.build_dataset(df, {**base, "missing": "columns"})
    assert len(cols) == 20 and m["features"] == ["a", "c"] and set(notes["missing"]["columns"]) == {"sparse", "b"}
    with pytest.raises(DataError, match="usable feature"):  # one feature left is too few: said, not hidden
        uploads.build_dataset(df.drop(columns=["a"]), {**base, "missing": "columns"})
    med, _, m, notes = uploads.build_dataset(df, {**base, "missing": "median"})
    assert len(med) == 20 and med["sparse"].isna().sum() == 0
    assert med.loc[3, "sparse"] == pytest.approx(np.nanmedian(df["sparse"]))
    with pytest.raises(DataError, match="missing values"):
        uploads.build_dataset(df, {**base, "missing": "guess"})
