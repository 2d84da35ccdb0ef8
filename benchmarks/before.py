"""An earlier commit's code in a temporary git worktree, its compiled kernels warmed first (the "before" side
of the benchmarks' before/after comparisons: ``benchmarks/ensemble.py``, ``benchmarks/scaling.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(cmd, cwd) -> str:
    """``cmd``'s standard output; on failure, an error that carries its standard error."""
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{' '.join(cmd[:3])} ... failed ({out.returncode}): {out.stderr[-1500:]}")
    return out.stdout


class Before:
    """The code of an earlier commit in a temporary worktree, running its own ``benchmarks/scaling.py``."""

    def __init__(self, rev: str):
        self.rev = rev
        self.where = Path(tempfile.mkdtemp(prefix="perfcast-before-")) / "tree"
        try:
            _run(["git", "worktree", "add", "--detach", str(self.where), rev], cwd=ROOT)
            _run([sys.executable, "-c", "from modeling.crossgen.forest_trees import warm_up; warm_up()"],
                 cwd=self.where)
        except BaseException:
            self.close()
            raise

    def size(self, name: str, folds: int) -> dict:
        """Its own ``benchmarks/scaling.py`` on one size: seconds in total and per model."""
        import json

        out = _run([sys.executable, "benchmarks/scaling.py", "--sizes", name, "--folds", str(folds), "--schedule",
                    "--json"], cwd=self.where)
        return json.loads(out)["seconds_by_size"][name]

    def close(self) -> None:
        subprocess.run(["git", "worktree", "remove", "--force", str(self.where)], cwd=ROOT, capture_output=True)
        shutil.rmtree(self.where.parent, ignore_errors=True)
