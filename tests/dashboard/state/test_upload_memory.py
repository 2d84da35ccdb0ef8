"""An upload's memory is bounded by what it decodes to, not by its size on disk: a small Parquet file whose
dictionary-encoded text expands to hundreds of MB is refused before it is materialized (from its metadata,
or from its dictionary when the statistics are missing), an honest file that decodes to much more than its
size waits for the one-large-read lock, a CSV is split without a Python string per cell, and the shipped
tables read as before without waiting."""

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from dashboard.state import uploads
from modeling.errors import DataError
from modeling.tables.decoded_size import MAX_DECODED_BYTES

ROOT = Path(__file__).resolve().parents[3]


def _dictionary_bomb(path: Path, statistics: bool = True) -> int:
    """1,000,000 rows of a dictionary-encoded text column holding two distinct 500-byte values (500 MB as
    text), written from the dictionary and its indices (the text is never expanded here)."""
    column = pa.DictionaryArray.from_arrays(pa.array(np.arange(1_000_000) % 2, pa.int32()),
                                            pa.array(["a" * 500, "b" * 500]))
    pq.write_table(pa.table({"s": column}), path, compression="zstd", write_statistics=statistics)
    return path.stat().st_size


_PEAK = """
def peak_mb():  # the resident peak since reset() (ru_maxrss would carry the parent's peak over the exec)
    return next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM")) // 1024
def reset():
    open("/proc/self/clear_refs", "w").write("5")
    return next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmRSS")) // 1024
"""

_READ = _PEAK + """
import sys
from dashboard.state import uploads
from modeling.errors import DataError
raw = open(sys.argv[1], "rb").read()
before = reset()
try:
    uploads.parse_upload(raw, "bomb.parquet")
    print("accepted", peak_mb() - before)
except DataError as exc:
    print("refused", peak_mb() - before, exc)
"""


@pytest.mark.parametrize("statistics", [True, False], ids=["with-statistics", "without-statistics"])
def test_a_dictionary_bomb_is_refused_before_it_is_materialized(tmp_path, statistics):
    """The finding: a 60 kB file that decodes to 500 MB (under the old 512 MB bound, under the old 8 MB lock
    size) took a worker from 351 MB to 1,425 MB. Refused now, and the reading process (a fresh one, measured
    from its peak) grows by a small fraction of what the text would take."""
    path = tmp_path / "bomb.parquet"
    assert _dictionary_bomb(path, statistics) < 200_000
    out = subprocess.run([sys.executable, "-c", _READ, str(path)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 0, out.stderr
    word, grown, *message = out.stdout.split(maxsplit=2)
    assert word == "refused", out.stdout
    assert int(grown) < 60, f"the process grew by {grown} MB while refusing"
    assert "The file decodes to about 4" in message[0] and "column 's'" in message[0]
    assert f"at most {MAX_DECODED_BYTES // 2**20} MB are accepted" in message[0]
    # with statistics, the metadata alone refuses it; without, the dictionary's values expanded on every row
    assert ("stored once in a dictionary" if statistics else "dictionary's values expanded") in message[0]


def _honest(rows: int = 400_000) -> bytes:
    """An honest table that decodes to about 54 MB (a 120-byte text value of 50 distinct ones and a number
    per row) in a file of a few hundred kB."""
    names = pa.array([f"{i:03d}" + "w" * 117 for i in range(50)])
    column = pa.DictionaryArray.from_arrays(pa.array(np.arange(rows) % 50, pa.int32()), names).cast(pa.string())
    buf = io.BytesIO()
    pq.write_table(pa.table({"workload": column, "x": np.arange(rows, dtype=float)}), buf, compression="zstd")
    return buf.getvalue()


def test_an_honest_parquet_that_decodes_large_takes_the_one_large_read_lock(monkeypatch):
    """Small on disk (the old rule looked at the size: under 8 MB, no lock) but large decoded: it waits for
    another large read, and reads once it has its turn."""
    raw = _honest()
    assert len(raw) < 2_000_000
    monkeypatch.setattr(uploads, "LARGE_PARSE_WAIT_SECONDS", 0.05)
    with uploads._LARGE_PARSE:
        with pytest.raises(DataError, match="Another large file is being read"):
            uploads.parse_upload(raw, "t.parquet")
    frame = uploads.parse_upload(raw, "t.parquet").frame
    assert frame.shape == (400_000, 2) and frame["workload"].iloc[51] == "001" + "w" * 117


def test_the_bound_is_what_the_table_decodes_to_counted_per_column():
    """Just over the bound (the text counted with an 8-byte offset a value) is refused, naming the column;
    the same rows with shorter text are read."""
    rows = 800_000
    over = (MAX_DECODED_BYTES // rows) - 8 - 8 + 4  # bytes of text a row: the number, the offset, then over
    def table(length):
        names = pa.array([f"{i:02d}" + "v" * (length - 2) for i in range(20)])
        text = pa.DictionaryArray.from_arrays(pa.array(np.arange(rows) % 20, pa.int32()), names)
        buf = io.BytesIO()
        pq.write_table(pa.table({"app": text, "t": np.ones(rows)}), buf)
        return buf.getvalue()
    with pytest.raises(DataError, match="column 'app'"):
        uploads.parse_upload(table(over), "t.parquet")
    assert uploads.parse_upload(table(over - 8), "t.parquet").frame.shape == (rows, 2)


_CSV = _PEAK + """
import sys
from dashboard.state import uploads
raw = open(sys.argv[1], "rb").read()
before = reset()
frame = uploads.parse_upload(raw, "t.csv").frame
print(peak_mb() - before, frame.shape[0], frame.shape[1])
"""


def test_a_csv_of_many_short_numbers_is_read_within_a_few_times_its_size(tmp_path):
    """400,000 rows x 5 numbers (18 MB): split into Python strings a cell at a time the reading took about
    225-329 MB (13-18x the file, measured); the text is now packed into columns as it is split (about 6x)."""
    rng = np.random.default_rng(0)
    path = tmp_path / "t.csv"
    pd.DataFrame({f"c{i}": rng.random(400_000).round(6) for i in range(5)}).to_csv(path, index=False)
    size_mb = path.stat().st_size / 2**20
    out = subprocess.run([sys.executable, "-c", _CSV, str(path)], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 0, out.stderr
    grown, rows, cols = map(int, out.stdout.split())
    assert (rows, cols) == (400_000, 5)
    assert grown < 8 * size_mb, f"reading a {size_mb:.0f} MB CSV grew the process by {grown} MB"


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "data").iterdir() if p.suffix in (".csv", ".parquet")))
def test_shipped_tables_read_as_before_and_never_wait(monkeypatch, name):
    """The shipped tables (the size of a normal upload) are read while another large read holds the lock,
    with pandas' own reading of the same values."""
    raw = (ROOT / "data" / name).read_bytes()
    monkeypatch.setattr(uploads, "LARGE_PARSE_WAIT_SECONDS", 0.05)
    with uploads._LARGE_PARSE:
        frame = uploads.parse_upload(raw, name).frame
    want = pd.read_parquet(io.BytesIO(raw)) if name.endswith(".parquet") else pd.read_csv(io.BytesIO(raw))
    assert list(frame.columns) == list(want.columns) and len(frame) == len(want)
    for c in want.columns:
        if pd.api.types.is_numeric_dtype(want[c]):
            np.testing.assert_allclose(frame[c].to_numpy(float), want[c].to_numpy(float), rtol=1e-12)
        else:
            assert frame[c].astype(str).tolist() == want[c].astype(str).tolist()



def test_the_data_page_holds_the_lock_over_reading_staging_and_preview(monkeypatch):
    """The /data page takes the lock around the whole upload (reading, staging, preview: one large upload's
    copies at a time) and reads inside it without waiting for itself; another thread's large upload waits."""
    import threading

    raw = _honest()
    monkeypatch.setattr(uploads, "LARGE_PARSE_WAIT_SECONDS", 0.05)
    with uploads.one_large_read(uploads.read_cost(raw)):
        assert uploads.parse_upload(raw, "t.parquet").frame.shape == (400_000, 2)  # its own turn
        other = []

        def elsewhere():
            try:
                uploads.parse_upload(raw, "t.parquet")
                other.append("read")
            except DataError as exc:
                other.append(str(exc))
        t = threading.Thread(target=elsewhere)
        t.start()
        t.join()
        assert other and other[0].startswith("Another large file is being read")
    assert not uploads._LARGE_PARSE._lock.locked()
