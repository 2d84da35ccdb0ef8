"""Everything under the var directory is the server's alone: the directory 0700, the secret key, the access
database, uploads and results 0600 (they were 0644: password hashes, sessions and the audit trail readable by
every local account)."""

import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.signed_in import http

ROOT = Path(__file__).resolve().parents[3]


def _open_to_others(var: Path) -> list[str]:
    found = []
    for path in [var, *var.rglob("*")]:
        if path.is_symlink():
            continue
        if stat.S_IMODE(path.stat().st_mode) & 0o077:
            found.append(f"{path.relative_to(var)} {oct(stat.S_IMODE(path.stat().st_mode))}")
    return found


def test_a_new_server_keeps_its_key_and_database_private(tmp_path):
    var = tmp_path / "var"
    env = {k: v for k, v in os.environ.items() if k not in ("PERFCAST_SECRET_KEY", "PERFCAST_REDIS_URL")}
    env.update(PERFCAST_VAR_DIR=str(var), PERFCAST_DATABASE_URL=f"sqlite:///{var}/perfcast.db")
    code = "import app; from dashboard.access import database; database.migrate()"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, check=True, capture_output=True, timeout=300)
    assert (var / "secret_key").exists() and (var / "perfcast.db").exists()
    assert _open_to_others(var) == []


def test_an_older_var_directory_is_tightened(tmp_path):
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    var.chmod(0o755)
    (var / "secret_key").write_text("k" * 64)
    (var / "secret_key").chmod(0o644)
    env = {k: v for k, v in os.environ.items() if k not in ("PERFCAST_SECRET_KEY", "PERFCAST_REDIS_URL")}
    env.update(PERFCAST_VAR_DIR=str(var))
    subprocess.run([sys.executable, "-c", "import app"], cwd=ROOT, env=env, check=True, capture_output=True,
                   timeout=300)
    assert _open_to_others(var) == []


def test_what_a_running_server_writes_is_private(live_server):
    base, var, _log = live_server
    assert http().get(base + "/_dash-layout", timeout=60).status_code == 200
    assert any(var.rglob("*"))
    assert _open_to_others(var) == []
