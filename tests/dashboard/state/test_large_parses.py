"""A server process reads one large upload at a time (large by the memory its reading is expected to take,
``modeling.tables.decoded_size.read_cost``): two large files at once are read one after the other; a small one is
never held up; a large one that waits too long is told to try again."""

import threading
import time

import pytest

from dashboard.state import uploads
from modeling.errors import DataError


def _csv(n_bytes: int) -> bytes:
    line = b"1.5,2.5,3.5\n"
    return b"a,b,c\n" + line * (n_bytes // len(line) + 1)


@pytest.fixture()
def slow_reader(monkeypatch):
    """read_csv_bytes that records how many reads overlap."""
    state = {"now": 0, "most": 0}
    lock = threading.Lock()
    real = uploads.read_csv_bytes

    def read(raw):
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.3)
        try:
            return real(raw)
        finally:
            with lock:
                state["now"] -= 1

    monkeypatch.setattr(uploads, "read_csv_bytes", read)
    monkeypatch.setattr(uploads, "LARGE_PARSE_BYTES", 10_000)
    return state


def _in_threads(files):
    out = []
    threads = [threading.Thread(target=lambda f=f: out.append(uploads.parse_upload(f, "t.csv"))) for f in files]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_large_files_are_read_one_at_a_time(slow_reader):
    tables = _in_threads([_csv(5000)] * 3)
    assert len(tables) == 3 and all(len(t.frame) > 100 for t in tables)
    assert slow_reader["most"] == 1


def test_small_files_are_not_held_up(slow_reader):
    _in_threads([_csv(100)] * 3)
    assert slow_reader["most"] == 3


def test_a_large_file_that_waits_too_long_is_asked_to_try_again(monkeypatch):
    monkeypatch.setattr(uploads, "LARGE_PARSE_BYTES", 10_000)
    monkeypatch.setattr(uploads, "LARGE_PARSE_WAIT_SECONDS", 0.05)
    with uploads._LARGE_PARSE:
        with pytest.raises(DataError, match="Another large file is being read"):
            uploads.parse_upload(_csv(5000), "t.csv")


def test_a_large_profiler_file_waits_its_turn_too(monkeypatch):
    """The profiler card reads uploads with the same one-at-a-time rule as the table upload."""
    from pathlib import Path

    from dashboard.data_import import staged

    raw = (Path(__file__).resolve().parents[2] / "fixtures" / "profilers" / "ncu_details.csv").read_bytes()
    monkeypatch.setattr(uploads, "LARGE_PARSE_BYTES", 10_000)
    monkeypatch.setattr(uploads, "LARGE_PARSE_WAIT_SECONDS", 0.05)
    with uploads._LARGE_PARSE:
        with pytest.raises(DataError, match="Another large file is being read"):
            staged.stage_profile(raw, "ncu.csv")
    assert staged.stage_profile(raw, "ncu.csv")[1]["format"] == "ncu-details"  # its turn: read
