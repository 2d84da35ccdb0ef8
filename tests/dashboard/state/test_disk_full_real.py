"""A really full filesystem (issue 40, point 7): the var directory on a 5 MB tmpfs, filled to the last byte.
Delete, restore and save answer "the server's disk is full" and leave nothing half-written; SQLite's own
"database or disk is full" from the access database is recognised as a full disk. Needs ``mount -t tmpfs``
(root in a sandbox that permits it); skipped with the reason otherwise."""

import errno
import os
import subprocess

import pytest
from sqlalchemy import select

from dashboard.state import datasets, scenarios, trash
from dashboard.state.files import StorageError
from tests.dashboard.state.test_trash import MAP, _table


@pytest.fixture()
def small_var(tmp_path, monkeypatch):
    """A 5 MB tmpfs as the var directory, unmounted afterwards."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=5m,mode=0700", "tmpfs", str(mnt)],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root and a sandbox that allows it): {done.stderr.strip()}")
    monkeypatch.setattr("dashboard.settings.VAR_DIR", mnt)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True, timeout=30)


def _fill(root):
    """Write a filler file until the filesystem refuses (ENOSPC); returns its path."""
    filler = root / "filler"
    with open(filler, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 65536)
                fh.flush()
                os.fsync(fh.fileno())
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
    return filler


def _entries():
    root = trash._root()
    return sorted(p.name for p in root.iterdir()) if root.is_dir() else []


def test_delete_restore_and_save_on_a_really_full_disk(small_var):
    kept = datasets.save_dataset(_table(), "kept", MAP, raw=_table(24))["id"]
    sc = scenarios.save_scenario("scenario", {"dataset": "rodinia", "folds": 5}, {"best": "NNLS"}, "mine")["id"]
    record = scenarios.delete_scenario(sc)
    filler = _fill(small_var)
    with pytest.raises(StorageError, match="^Not deleted: the server's disk is full"):
        datasets.delete_dataset(kept)
    assert _entries() == [record["entry"]]  # no empty dataset entry left behind
    assert datasets.verify_dataset(kept)
    with pytest.raises(StorageError, match="^Nothing was saved: the server's disk is full"):
        datasets.save_dataset(_table(), "new", MAP)
    assert [m["id"] for m in datasets.list_datasets()] == [kept]
    assert not [p for p in small_var.rglob("*") if p.name.endswith(".tmp")]
    filler.unlink()  # space again: the same actions work
    datasets.delete_dataset(kept)
    trash.restore(record["entry"])
    assert scenarios.load_scenario(sc)["id"] == sc


def test_the_access_database_on_a_really_full_disk_is_recognised(small_var):
    from dashboard.access import database, sessions
    from dashboard.access.models import Session, User
    from dashboard.state.files import is_disk_full

    url = f"sqlite:///{small_var / 'perfcast.db'}"
    database.migrate(url)
    with database.session(url) as db:
        db.add(User(name="full", display_name="full", password_hash="x"))
    with database.session(url) as db:
        user_id = db.scalar(select(User.id).where(User.name == "full"))
    _fill(small_var)
    with pytest.raises(Exception) as caught:
        for _ in range(2000):  # until the WAL needs a page the disk does not have
            with database.session(url) as db:
                sessions.create(db, user_id, 1.0, "x" * 64)
    assert is_disk_full(caught.value), repr(caught.value)
    database.engine(url).dispose()
    with database.session(url) as db:  # what was committed before is intact
        assert db.scalar(select(User.name).where(User.id == user_id)) == "full"
        assert db.scalar(select(Session.user_id).limit(1)) in (None, user_id)


def test_sign_in_and_sign_out_on_a_really_full_disk(small_var, monkeypatch):
    """The app's access database on the full tmpfs (its WAL truncated, so the next write must grow a file): a
    sign-in answers 503 with the message, a sign-out clears the cookie and the session is refused."""
    import html
    import importlib

    from flask.testing import FlaskClient
    from sqlalchemy import text

    from dashboard.access import accounts, database

    url = f"sqlite:///{small_var / 'perfcast.db'}"
    monkeypatch.setattr("dashboard.settings.DATABASE_URL", url)
    database.migrate(url)
    accounts.add_user("fay", "correct horse battery")
    app = importlib.import_module("app").app

    def client():
        c = FlaskClient(app.server, use_cookies=True)
        c.environ_base["REMOTE_ADDR"] = "10.0.2.1"
        return c

    def sign_in(c):
        return c.post("/login", data={"name": "fay", "password": "correct horse battery", "next": "/"})

    signed = client()
    assert sign_in(signed).status_code == 303
    stolen = signed.get_cookie("perfcast_session").value
    assert signed.get("/_dash-layout").status_code == 200
    with database.engine(url).connect() as conn:
        conn.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    _fill(small_var)

    r = sign_in(client())
    page = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 503 and "You are not signed in: the server's disk is full" in page, (r.status_code,
                                                                                                 page[-400:])
    r = signed.post("/logout")
    page = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 200 and "You are signed out in this browser" in page and "disk is full" in page
    assert signed.get_cookie("perfcast_session") is None
    other = client()
    other.set_cookie("perfcast_session", stolen)
    assert other.get("/_dash-layout").status_code == 401
    database.engine(url).dispose()
