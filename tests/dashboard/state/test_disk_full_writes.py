"""A full disk at each write of the stores (issue 40, point 7): save, delete, restore, emptying the trash and
the audit trail each answer with a message the user can act on (the disk is full, tell the administrator,
nothing lost); a delete that cannot finish leaves no empty trash entry behind and the item where it was."""

import errno
import importlib
import logging
import sqlite3

import pandas as pd
import pytest
from sqlalchemy.exc import OperationalError

from dashboard import audit_log
from dashboard.state import datasets, files, moves, scenarios, trash
from dashboard.state.files import StorageError
from dashboard.ui import delete_confirm
from tests.dashboard.state.test_trash import DELETE, LOAD, MAKE


def _enospc(*_a, **_k):
    raise OSError(errno.ENOSPC, "No space left on device")


def _entries():
    root = trash._root()
    return sorted(p.name for p in root.iterdir()) if root.is_dir() else []


def _text(component) -> str:
    return str(component.to_plotly_json()) if hasattr(component, "to_plotly_json") else str(component)


def test_disk_full_is_recognised_in_every_form():
    from dashboard.state.files import is_disk_full

    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(OSError(errno.EDQUOT, "Disk quota exceeded"))
    assert is_disk_full(files.storage_error(OSError(errno.ENOSPC, "x")))
    full = sqlite3.OperationalError("database or disk is full")
    assert is_disk_full(full) and is_disk_full(OperationalError("INSERT", {}, full))
    assert not is_disk_full(OSError(errno.EPIPE, "Broken pipe"))
    assert not is_disk_full(OperationalError("SELECT", {}, sqlite3.OperationalError("database is locked")))


@pytest.mark.parametrize("kind", list(MAKE))
@pytest.mark.parametrize("where", ["record", "move"])
def test_a_delete_on_a_full_disk_leaves_the_item_and_no_trash_entry(var, monkeypatch, kind, where):
    item_id = MAKE[kind]()
    before = trash._files(trash.KINDS[kind].live(item_id))
    with monkeypatch.context() as m:
        if where == "record":  # the entry's record cannot be written
            m.setattr(files.os, "fsync", _enospc)
        else:  # the rename into the entry fails
            m.setattr(moves, "_rename_noreplace", _enospc)
        with pytest.raises(StorageError, match=r"^Not deleted: the server's disk is full\. It is where it was; "
                                               r"tell the administrator"):
            DELETE[kind](item_id)
    assert _entries() == []  # no empty trash/<kind>-<id>.<when> folder
    assert LOAD[kind](item_id)["id"] == item_id
    assert trash._files(trash.KINDS[kind].live(item_id)) == before
    assert trash.list_trash() == []
    DELETE[kind](item_id)  # with space again, the same delete works
    assert [r["id"] for r in trash.list_trash()] == [item_id]


def test_a_restore_on_a_full_disk_says_so_and_keeps_the_item_in_the_trash(var, monkeypatch):
    import app  # noqa: F401 - registers the pages

    page = importlib.import_module("dashboard.pages.trash")
    item_id = MAKE["scenario"]()
    record = DELETE["scenario"](item_id)
    monkeypatch.setattr(moves, "_rename_noreplace", _enospc)
    with pytest.raises(StorageError, match=r"^Not restored: the server's disk is full\. It is still in the trash"):
        trash.restore(record["entry"])
    msg = _text(page.restore_message(record["entry"]))
    assert "Not restored: the server's disk is full" in msg and "tell the administrator" in msg
    assert [r["entry"] for r in trash.list_trash()] == [record["entry"]]
    with pytest.raises(files.NotFound):
        scenarios.load_scenario(item_id)


def test_emptying_the_trash_on_a_broken_disk_says_so(var, monkeypatch):
    import app  # noqa: F401 - registers the pages

    page = importlib.import_module("dashboard.pages.trash")
    record = DELETE["scenario"](MAKE["scenario"]())
    monkeypatch.setattr(trash.os, "rename", _enospc)
    status, _listed = page._empty(1)
    assert "The trash was not emptied: the server's disk is full" in _text(status)
    assert [r["entry"] for r in trash.list_trash()] == [record["entry"]]


def test_the_delete_button_shows_the_message_instead_of_nothing(var, monkeypatch):
    item_id = MAKE["dataset"]()
    monkeypatch.setattr(files.os, "fsync", _enospc)
    listed, status = delete_confirm.delete_answer("dataset", datasets.delete_dataset, lambda: "relisted", item_id)
    assert "Not deleted: the server's disk is full" in _text(status) and "tell the administrator" in _text(status)
    assert listed is delete_confirm.no_update
    assert _entries() == []


def test_the_data_page_save_shows_the_message_instead_of_nothing(var, monkeypatch):
    import app  # noqa: F401 - registers the pages

    page = importlib.import_module("dashboard.pages.data")
    frame = pd.DataFrame({"workload": [f"w{i}" for i in range(12)], "app": [f"a{i % 3}" for i in range(12)],
                          "x1": [float(i) for i in range(12)], "x2": [float(i * i % 7) for i in range(12)],
                          "t": [float(i + 1) for i in range(12)]})
    token = page.staging.stage_upload(frame, {"filename": "mine.csv"})
    monkeypatch.setattr(files.os, "fsync", _enospc)
    from dashboard.access import projects

    status, listed = page._save(1, token, "mine", "workload", "app", ["t"], "s", None, None, ["x1", "x2"], None,
                                None, "rows", shown_in=projects.current_id())
    assert "Nothing was saved: the server's disk is full" in _text(status) and listed is page.no_update
    assert datasets.list_datasets() == []


def test_an_audit_trail_on_a_full_disk_never_stops_the_action_and_is_logged(var, monkeypatch, caplog):
    def full_sink(*_a):
        raise OperationalError("INSERT INTO audit_events", {}, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(audit_log, "_SINKS", [full_sink])
    item_id = MAKE["scenario"]()
    with caplog.at_level(logging.INFO):
        record = DELETE["scenario"](item_id)
    assert [r["id"] for r in trash.list_trash()] == [record["id"]]
    assert any("audit: scenario deleted" in m for m in caplog.messages)
    assert any("audit event not stored in the database: scenario deleted" in m for m in caplog.messages)


def test_a_callback_that_meets_a_full_disk_shows_the_notice_not_a_defect(monkeypatch, caplog):
    from dashboard import callback_errors
    from dashboard.ui import service_notice

    shown = []
    monkeypatch.setattr(service_notice, "show_disk_full", lambda: shown.append(service_notice.DISK_FULL))
    with caplog.at_level(logging.ERROR, logger="perfcast.callbacks"):
        assert callback_errors.on_callback_error(files.storage_error(OSError(errno.ENOSPC, "full"))) is None
    assert shown and "disk is full" in shown[0] and "tell the administrator" in shown[0]
    assert not any(callback_errors.MARK in m for m in caplog.messages)  # not reported as a defect
