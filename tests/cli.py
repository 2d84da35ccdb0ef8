"""The command line run in the test's own process (``modeling.__main__.main(argv)``), answering like a
finished subprocess: its exit code and what it printed. Starting ``python -m modeling`` as a subprocess costs
an interpreter and every import (seconds each time); each command keeps one subprocess smoke test."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*argv: str) -> Ran:
    """``python -m modeling *argv`` in this process; an argparse refusal (SystemExit) is its exit code."""
    from modeling.__main__ import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    return Ran(code, out.getvalue(), err.getvalue())


def run_subprocess(*argv: str, timeout: float = 300) -> Ran:
    """``python -m modeling *argv`` as a user starts it (the smoke test of a command)."""
    r = subprocess.run([sys.executable, "-m", "modeling", *argv], cwd=ROOT, capture_output=True, text=True,
                       timeout=timeout)
    return Ran(r.returncode, r.stdout, r.stderr)
