"""Plan rounds through the command line, the code of an earlier commit against this one, in one run (JSON).

The table: ``testkit/cpu_shaped.frame(n)`` (default 6,134 runs of 22 applications, 15 counters, the host time
mapped; the shape of the public CPU table), a random 1 % simulated at the start. Each round, both sides run

    python -m modeling plan --csv TABLE --target target_time --host-col host_time --id run --group app
        --slowdown 1e4 --budget B --json

in a fresh interpreter (``REV`` in a temporary git worktree, then this tree; the side that goes first alternates
by round), the batch of this tree is revealed (its targets filled in) and the next round starts. Printed per
round: simulated workloads, wall seconds and CPU seconds (the command and its worker processes) of each side,
the ratio after / before, whether both chose the same strategy and batch, and the load average before and after
(the machine may be shared).

    .venv/bin/python benchmarks/plan_round.py --before 29e817c --json
    .venv/bin/python benchmarks/plan_round.py --before 29e817c --rows 1500 --budget 150 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _timed(cmd, cwd) -> dict:
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if out.returncode:
        raise RuntimeError(out.stderr[-1500:])
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return {"wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "load_average_before_after": (round(load0, 2), round(os.getloadavg()[0], 2)),
            "result": json.loads(out.stdout)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the earlier commit")
    ap.add_argument("--rows", type=int, default=6134)
    ap.add_argument("--budget", default="300", help="each round's --budget")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    from testkit.cpu_shaped import frame

    from modeling.parallel import cores

    df = frame(a.rows)
    truth = df["target_time"].to_numpy().copy()
    rng = np.random.default_rng(0)
    known = np.zeros(len(df), bool)
    known[rng.choice(len(df), max(3, len(df) // 100), replace=False)] = True
    tmp = Path(tempfile.mkdtemp(prefix="perfcast-plan-round-"))
    where = tmp / "before"
    subprocess.run(["git", "worktree", "add", "--detach", str(where), a.before], cwd=ROOT, check=True,
                   capture_output=True)
    for tree in (where, ROOT):  # the compiled kernels of a fresh worktree are cached before anything is timed
        subprocess.run([sys.executable, "-c", "from modeling.crossgen.forest_trees import warm_up; warm_up()"],
                       cwd=tree, check=True, capture_output=True)
    rounds = []
    try:
        for r in range(a.rounds):
            table = tmp / "table.csv"
            f = df.copy()
            f["target_time"] = np.where(known, truth, np.nan)
            f.to_csv(table, index=False)
            cmd = [sys.executable, "-m", "modeling", "plan", "--csv", str(table), "--target", "target_time",
                   "--host-col", "host_time", "--id", "run", "--group", "app", "--slowdown", "1e4", "--budget",
                   a.budget, "--json"]
            sides = [("before", where), ("after", ROOT)]
            if r % 2:
                sides.reverse()
            got = {name: _timed(cmd, cwd) for name, cwd in sides}
            b, n = got["before"]["result"], got["after"]["result"]
            wall = got["after"]["wall_seconds"] / got["before"]["wall_seconds"]
            cpu = got["after"]["cpu_seconds"] / got["before"]["cpu_seconds"]
            row = {"round": r, "simulated": int(known.sum()),
                   **{name: {k: v for k, v in got[name].items() if k != "result"} for name in ("before", "after")},
                   "wall_ratio_after_over_before": round(wall, 3), "cpu_ratio_after_over_before": round(cpu, 3),
                   "same_strategy_and_batch": b["strategy"] == n["strategy"]
                   and [x["id"] for x in b["batch"]] == [x["id"] for x in n["batch"]]}
            rounds.append(row)
            print(f"[plan_round] {json.dumps(row)}", file=sys.stderr, flush=True)
            known[np.isin(df["run"].astype(str).to_numpy(), [x["id"] for x in n["batch"]])] = True
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(where)], cwd=ROOT, capture_output=True)
    out = {"table": f"testkit/cpu_shaped.frame({a.rows}), 1 % simulated at the start", "budget": a.budget,
           "before": a.before, "cores": cores(), "rounds": rounds}
    print(json.dumps(out, indent=2) if a.json else out)


if __name__ == "__main__":
    main()
