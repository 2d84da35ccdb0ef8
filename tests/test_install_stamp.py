"""./run.sh and ./test.sh share one install stamp (scripts/ensure_env.sh): after ./test.sh installed
requirements.txt and requirements-test.txt, ./run.sh (requirements.txt) installs nothing; a requirement file
is installed again when, and only when, its content changed. The virtualenv's python is a stand-in that
records how it was called, so nothing is installed."""

import shutil
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _checkout(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "ensure_env.sh", tmp_path / "scripts" / "ensure_env.sh")
    (tmp_path / "requirements.txt").write_text("numpy==2.4.6\n")
    (tmp_path / "requirements-test.txt").write_text("-r requirements.txt\npytest==9.2.0\n")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text('#!/bin/sh\necho "$*" >> "$(dirname "$0")/../../calls.log"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return tmp_path


def _ensure(checkout: Path, *files: str) -> list[str]:
    """The requirement files ``ensure_env.sh files`` installed."""
    log = checkout / "calls.log"
    log.unlink(missing_ok=True)
    subprocess.run(["bash", "scripts/ensure_env.sh", *files], cwd=checkout, check=True, capture_output=True)
    calls = log.read_text().splitlines() if log.exists() else []
    return [c.split("-r ", 1)[1] for c in calls if c.startswith("-m pip install --quiet -r ")]


def test_run_sh_installs_nothing_after_test_sh(tmp_path):
    checkout = _checkout(tmp_path)
    assert _ensure(checkout, "requirements.txt", "requirements-test.txt") == ["requirements.txt",
                                                                              "requirements-test.txt"]
    assert _ensure(checkout, "requirements.txt") == []  # ./run.sh after ./test.sh
    assert _ensure(checkout, "requirements.txt", "requirements-test.txt") == []


def test_a_changed_requirement_file_is_installed_again_alone(tmp_path):
    checkout = _checkout(tmp_path)
    assert _ensure(checkout, "requirements.txt") == ["requirements.txt"]  # ./run.sh first
    assert _ensure(checkout, "requirements.txt", "requirements-test.txt") == ["requirements-test.txt"]
    (checkout / "requirements.txt").write_text("numpy==2.4.7\n")
    assert _ensure(checkout, "requirements.txt") == ["requirements.txt"]
    assert _ensure(checkout, "requirements.txt", "requirements-test.txt") == []
