"""python -m dashboard.admin: users (password from stdin), projects, members, disable, revoke, setup link."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dashboard import admin
from dashboard.access import accounts, database, passwords, sessions
from dashboard.access.models import User

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture()
def url(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'perfcast.db'}"
    monkeypatch.setattr("dashboard.settings.DATABASE_URL", url)
    return url


def run(*argv, stdin=""):
    out = io.StringIO()
    return admin.main(list(argv), stdin=io.StringIO(stdin), out=out), out.getvalue()


def test_the_first_user_owns_the_default_project_and_others_are_added(url):
    code, out = run("user", "add", "ada", stdin="correct horse battery\n")
    assert code == 0 and "owner of project default" in out
    assert accounts.memberships("ada") == {"default": "owner"}
    with database.session() as db:
        assert passwords.verify(accounts.find_user(db, "ada").password_hash, "correct horse battery")
    assert run("user", "add", "bob", stdin="another long password\n")[0] == 0
    assert accounts.memberships("bob") == {}
    assert run("project", "add", "gpu-next")[0] == 0
    assert run("member", "add", "gpu-next", "bob", "viewer")[0] == 0
    assert accounts.memberships("bob") == {"gpu-next": "viewer"}
    assert run("user", "add", "ada", stdin="correct horse battery\n")[0] == 2  # exists
    assert run("user", "add", "cy", stdin="short\n")[0] == 2  # too short
    assert run("member", "add", "nope", "bob", "viewer")[0] == 2
    code, out = run("user", "list")
    assert "ada\tactive\tdefault:owner" in out and "bob\tactive\tgpu-next:viewer" in out


def test_disable_and_revoke_end_sessions(url):
    run("user", "add", "ada", stdin="correct horse battery\n")
    with database.session() as db:
        user_id = db.query(User).filter_by(name="ada").one().id
        sid = sessions.create(db, user_id, 12)
    assert sessions.lookup(sid) is not None
    code, out = run("session", "revoke", "ada")
    assert code == 0 and "1 session(s)" in out and sessions.lookup(sid) is None
    with database.session() as db:
        sid = sessions.create(db, user_id, 12)
    assert run("user", "disable", "ada")[0] == 0 and sessions.lookup(sid) is None
    assert run("user", "enable", "ada")[0] == 0 and sessions.lookup(sid) is not None


def test_setup_link_only_while_there_is_no_user(url):
    code, out = run("setup-link", "--site", "http://perfcast.example:8050")
    assert code == 0 and out.startswith("http://perfcast.example:8050/setup?token=")
    run("user", "add", "ada", stdin="correct horse battery\n")
    assert run("setup-link")[0] == 1


def test_the_command_line_reads_the_password_from_stdin(tmp_path):
    env = {**os.environ, "PERFCAST_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-m", "dashboard.admin", "user", "add", "ada"], input="correct horse battery\n",
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "user ada added" in r.stdout and "correct horse" not in r.stdout + r.stderr
