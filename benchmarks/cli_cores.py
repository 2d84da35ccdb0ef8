"""The command line's ensemble on every core (the default ``--jobs``) against one process (``--jobs 1``, the
default before), in one run, interleaved; and whether the two print the same leaderboard (printed as JSON).

The table: ``testkit/halwpe_shaped.make(n, p)`` (default 5,824 x 577: correlated counters, 60 exact derived
ones, a positive target) written as a CSV; the command, each time in a fresh interpreter:

    python -m modeling ensemble --csv TABLE --target cpf --models M --json [--jobs 1]

``--pairs`` pairs of runs alternate which side goes first, so that slow drift of a shared machine hits both
sides alike. Printed: each run's wall seconds, the ratio default / ``--jobs 1`` per pair and its median, the
load average before and after each run (the machine may be shared), and whether the two JSON outputs are equal
once the timings (``fit_seconds``, ``seconds``) are left out.

    .venv/bin/python benchmarks/cli_cores.py --json
    .venv/bin/python benchmarks/cli_cores.py --rows 1456 --pairs 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit.timings import without_timings  # noqa: E402 - after the repository is on the path


def write_table(rows: int, cols: int, path: Path) -> None:
    import pandas as pd

    from testkit.halwpe_shaped import make

    X, y, _ = make(n=rows, p=cols)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(cols)])
    frame["cpf"] = y
    frame.to_csv(path, index=False)


def one_run(table: Path, models: str, jobs: list[str]) -> dict:
    cmd = [sys.executable, "-m", "modeling", "ensemble", "--csv", str(table), "--target", "cpf", "--models", models,
           "--json", *jobs]
    load0 = os.getloadavg()[0]
    cpu0 = _children_cpu()
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    wall = time.perf_counter() - t
    return {"wall_seconds": round(wall, 2), "cpu_seconds": round(_children_cpu() - cpu0, 2),
            "load_average_before_after": (round(load0, 2), round(os.getloadavg()[0], 2)),
            "result": json.loads(out)}


def _children_cpu() -> float:
    """CPU seconds (user + system) of every finished child and its own waited-for children: the command and
    its worker processes. A shared machine's load stretches wall time, hardly CPU time: more CPU seconds on
    the default's side mean work done twice, not a busy neighbour."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=5824)
    ap.add_argument("--cols", type=int, default=577)
    ap.add_argument("--models", default="halwpe", help="the command's --models (default: its own default)")
    ap.add_argument("--pairs", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    from modeling.parallel import cores

    runs = []
    with tempfile.TemporaryDirectory(prefix="perfcast-cli-cores-") as tmp:
        table = Path(tmp) / "table.csv"
        write_table(a.rows, a.cols, table)
        for i in range(a.pairs):
            sides = [("jobs 1", ["--jobs", "1"]), ("default", [])]
            if i % 2:
                sides.reverse()
            pair = {}
            for name, jobs in sides:
                pair[name] = one_run(table, a.models, jobs)
                print(f"[cli_cores] pair {i + 1}: {name}: {pair[name]['wall_seconds']} s", file=sys.stderr, flush=True)
            runs.append(pair)
    ratios = [p["default"]["wall_seconds"] / p["jobs 1"]["wall_seconds"] for p in runs]
    cpu_ratios = [p["default"]["cpu_seconds"] / p["jobs 1"]["cpu_seconds"] for p in runs]
    same = all(without_timings(p["default"]["result"]) == without_timings(p["jobs 1"]["result"]) for p in runs)
    out = {"table": f"testkit/halwpe_shaped.make({a.rows}, {a.cols}) as CSV", "models": a.models,
           "cores": cores(), "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                                      capture_output=True, text=True).stdout.strip(),
           "runs": [{k: {kk: vv for kk, vv in v.items() if kk != "result"} for k, v in p.items()} for p in runs],
           "ratio_default_over_jobs_1": [round(r, 3) for r in ratios],
           "median_ratio": round(sorted(ratios)[len(ratios) // 2], 3),
           "cpu_ratio_default_over_jobs_1": [round(r, 3) for r in cpu_ratios],
           "same_json_without_timings": same}
    print(json.dumps(out, indent=2) if a.json else out)


if __name__ == "__main__":
    main()
