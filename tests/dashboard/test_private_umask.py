"""What a perfcast process writes is private because each start-up says so (settings.make_files_private), not
because some module imported dashboard/settings.py: importing the settings changes nothing in the process."""

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _umask_after(code: str, env=None) -> int:
    """The umask of a fresh interpreter (started at 022) after ``code``."""
    out = subprocess.run([sys.executable, "-c", f"import os; os.umask(0o022); {code}; print(os.umask(0))"],
                         cwd=ROOT, env=env, check=True, capture_output=True, text=True, timeout=300)
    return int(out.stdout.split()[-1])


def test_importing_the_settings_leaves_the_process_umask_alone():
    assert _umask_after("import dashboard.settings") == 0o022


def test_the_gunicorn_master_makes_its_files_private_before_writing():
    assert _umask_after("import runpy; runpy.run_path('gunicorn.conf.py')") == 0o077


def test_the_admin_command_writes_a_private_database(tmp_path):
    env = {**os.environ, "PERFCAST_VAR_DIR": str(tmp_path), "PERFCAST_DATABASE_URL": f"sqlite:///{tmp_path}/p.db"}
    subprocess.run([sys.executable, "-c", "import os, sys; os.umask(0o022); from dashboard import admin; "
                    "sys.exit(admin.main(['user', 'list']))"], cwd=ROOT, env=env, check=True, capture_output=True,
                   timeout=300)
    assert (tmp_path / "p.db").exists()
    assert stat.S_IMODE((tmp_path / "p.db").stat().st_mode) & 0o077 == 0
