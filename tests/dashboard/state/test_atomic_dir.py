"""atomic_dir, the one temporary-folder-and-rename that a saved dataset and a saved prediction go through: the
whole item or nothing, no folder left behind, a full disk named, and a save raced by another one left to it."""

import errno
from pathlib import Path

import pytest

from dashboard.state import files
from dashboard.state.files import AlreadyStored, StorageError, atomic_dir

ROOT = Path(__file__).resolve().parents[3]


def test_the_block_fills_the_item_and_it_appears_whole(tmp_path):
    with atomic_dir(tmp_path / "item") as tmp:
        assert not (tmp_path / "item").exists() and tmp.parent == tmp_path and tmp.name.endswith(".tmp")
        (tmp / "a").write_text("1")
        (tmp / "b").write_text("2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["item"]
    assert (tmp_path / "item" / "b").read_text() == "2"


def test_an_error_in_the_block_leaves_nothing(tmp_path):
    with pytest.raises(KeyError):
        with atomic_dir(tmp_path / "item") as tmp:
            (tmp / "a").write_text("1")
            raise KeyError("x")
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_is_a_storage_error_and_leaves_nothing(tmp_path, monkeypatch):
    def full(_fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(files.os, "fsync", full)
        with pytest.raises(StorageError, match="disk is full"):
            with atomic_dir(tmp_path / "item") as tmp:
                (tmp / "a").write_text("1")
    assert list(tmp_path.iterdir()) == []


def test_an_item_saved_meanwhile_by_another_request_stands(tmp_path):
    with pytest.raises(AlreadyStored):
        with atomic_dir(tmp_path / "item") as tmp:
            (tmp / "mine").write_text("mine")
            (tmp_path / "item").mkdir()
            (tmp_path / "item" / "theirs").write_text("theirs")
    assert [p.name for p in tmp_path.iterdir()] == ["item"]
    assert [p.name for p in (tmp_path / "item").iterdir()] == ["theirs"]


def test_the_stores_save_through_atomic_dir_only():
    """No second copy of the temporary-folder-and-rename code in the stores."""
    for name in ("datasets.py", "predictions.py"):
        text = (ROOT / "dashboard" / "state" / name).read_text()
        assert "atomic_dir(" in text and "os.rename(" not in text and "rmtree(" not in text, name
