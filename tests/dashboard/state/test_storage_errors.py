"""A full or read-only disk: the save says so in plain words, nothing half-written stays behind, and what
was saved before is intact; temporary files of saves that were killed are removed when a server starts."""

import errno
import os
import time

import pandas as pd
import pytest

from dashboard.access.projects import project_path
from dashboard.state import datasets, files, scenarios
from dashboard.state.files import StorageError, remove_leftovers


def _full_disk(monkeypatch, after=0):  # use within monkeypatch.context(): undo() would also undo ``var``
    """os.fsync raises ENOSPC (after ``after`` successful calls)."""
    real, calls = os.fsync, {"n": 0}

    def fsync(fd):
        calls["n"] += 1
        if calls["n"] > after:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd)

    monkeypatch.setattr(files.os, "fsync", fsync)


def _leftovers(root):
    return [p for p in root.rglob("*") if p.name.endswith(".tmp")]


def test_a_full_disk_is_named_and_nothing_is_left_half_written(var, monkeypatch):
    table = pd.DataFrame({"workload": ["a", "b", "c"], "x": [1.0, 2.0, 3.0], "t": [1.0, 2.0, 4.0]})
    mapping = {"id_col": "workload", "targets": ["t"], "features": ["x"]}
    before = datasets.save_dataset(table, "kept", mapping)
    with monkeypatch.context() as m:
        _full_disk(m)
        with pytest.raises(StorageError, match="the server's disk is full.*What was saved before is intact"):
            datasets.save_dataset(table, "new", mapping)
        with pytest.raises(StorageError, match="disk is full"):
            scenarios.save_scenario("scenario", {"dataset": "rodinia", "seed": 1}, {"best": "x"}, "s")
    assert [m["id"] for m in datasets.list_datasets()] == [before["id"]]
    assert datasets.verify_dataset(before["id"])
    assert _leftovers(var) == []


def test_a_read_only_store_is_named(var, monkeypatch):
    def read_only(*a, **k):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(files, "open", read_only, raising=False)
    with pytest.raises(StorageError, match="read-only"):
        files.atomic_write_bytes(var / "x.json", b"{}")
    assert _leftovers(var) == []


def test_the_scenario_page_shows_the_message(var, monkeypatch):
    import importlib

    import app  # noqa: F401 - registers the pages

    page = importlib.import_module("dashboard.pages.scenario")

    from dashboard.crossgen.results import ScenarioRun
    from tests.dashboard.crossgen.typed import ensemble, model

    run = ScenarioRun({"dataset": "rodinia", "seed": 0},
                      ensemble([1.0, 2.0, 3.0], ["a", "b", "c"], [model("OLS", [1, 2, 3], [1.0, 1.0, 1.0])]), "d")
    monkeypatch.setattr(page.jobs, "result_for", lambda ready: run)
    _full_disk(monkeypatch)
    status, listed = page._save(1, {"key": "x"}, "name")
    assert "disk is full" in str(status) and listed is page.no_update


def test_leftovers_of_killed_saves_are_removed_at_start(var):
    old_dir = project_path("datasets") / ".ds-0123456789abcdef.77.tmp"
    old_dir.mkdir(parents=True)
    (old_dir / "table.parquet").write_bytes(b"x")
    old_file = project_path("staging") / ".st-abc.parquet.77.beef.tmp"
    old_file.parent.mkdir(exist_ok=True)
    old_file.write_bytes(b"")
    fresh = project_path("staging") / ".st-new.parquet.78.cafe.tmp"
    fresh.write_bytes(b"")
    kept = project_path("staging") / "st-abc.parquet"
    kept.write_bytes(b"data")
    past = time.time() - 3600
    for p in (old_dir, old_file):
        os.utime(p, (past, past))
    assert remove_leftovers(var) == 2
    assert not old_dir.exists() and not old_file.exists() and fresh.exists() and kept.exists()
