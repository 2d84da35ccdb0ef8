"""How fast and in how much memory simulator output is read, printed as JSON (never a test).

Two cases, each read in a fresh Python process (one core: the reading is one process) so that its peak
resident size (``ru_maxrss``) is the reading's own:

Beside each reading, the same process times a baseline: reading and decoding every line of the same files
and doing nothing else, so that ``ratio_to_baseline`` (CPU seconds over CPU seconds) says what the parsing
costs whatever the machine's load. Both the wall time and the process's CPU time (one core) are printed, and
the load average: on a shared machine the CPU time is the figure that holds.

* ``log``: a GPGPU-Sim / Accel-Sim log of ``--log-mb`` megabytes (1,024 by default) synthesised from a real
  one (``tests/data/simulators/accel-sim-rodinia/backprop-rodinia-2.0-ft.txt``, Accel-Sim 4.2, BSD-2): its
  configuration dump, then its two kernel blocks repeated (each copy with its own launch uid) and the exit
  marker. Reported: MB/s, records, statistics, peak resident size and its growth over the process before
  the reading.
* ``gem5``: ``--gem5-files`` (10,000 by default) ``stats.txt`` files, one folder each as a SimPoint study
  lays them out, copies of gem5's reference ``tests/data/simulators/gem5-hello-simple-timing/stats.txt``
  (BSD; 497 statistics, one dump) read as one folder. Reported: seconds, files per second, peak memory.

    nice .venv/bin/python benchmarks/simulator_read.py [--log-mb 1024] [--gem5-files 10000] [--cases log,gem5]
        [--jobs N] [--before REV]

``--jobs`` (default: every core this process may use) is what the gem5 case's ``read_paths`` is given; the
workers' CPU time (``os.times`` of the reaped children) is added to the process's and their peak resident
size reported beside it. The log case is always one process. ``--before REV`` reads the same files, in the
same run, with the readers of an earlier commit (checked out in a temporary git worktree; an older
``read_paths`` without ``jobs`` reads in one process) and prints the ratios after / before, and whether both
returned the same records (a digest of every record's key, dump, kernel, launch, stream, notes and values).
The load average is printed before and after each reading: on a shared machine it says how far the wall
times can be trusted, and the CPU times and ratios are the figures that hold.

The synthesised files are written to a temporary folder and removed afterwards.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL_LOG = ROOT / "tests/data/simulators/accel-sim-rodinia/backprop-rodinia-2.0-ft.txt"
REAL_STATS = ROOT / "tests/data/simulators/gem5-hello-simple-timing/stats.txt"

CHILD = r"""
import hashlib, inspect, json, os, resource, sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from modeling.tables.simulators.detect import read_paths
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
# the baseline in the same process: every line of the same files read and decoded, nothing else
t, c = time.perf_counter(), time.process_time()
target = Path(sys.argv[2])
for f in ([target] if target.is_file() else sorted(target.rglob("stats.txt"))):
    with open(f, "rb") as fh:
        for line in fh:
            line.decode("utf-8", "replace")
baseline, baseline_cpu = time.perf_counter() - t, time.process_time() - c
jobs = int(sys.argv[3])
kwargs = {"jobs": jobs} if "jobs" in inspect.signature(read_paths).parameters else {}
load0 = os.getloadavg()
t, c, ch = time.perf_counter(), time.process_time(), os.times()
result = read_paths([sys.argv[2]], **kwargs)
elapsed, cpu = time.perf_counter() - t, time.process_time() - c
ch2 = os.times()
workers_cpu = (ch2.children_user - ch.children_user) + (ch2.children_system - ch.children_system)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
digest = hashlib.sha256()
for r in result.records:
    digest.update(json.dumps([r.key.text, r.configuration, r.dump, r.kernel, r.launch_uid, r.stream, r.notes,
                              {k: repr(v) for k, v in r.values.items()}]).encode())
for f in result.files:
    digest.update(json.dumps([f.notes, f.names, f.units, f.original]).encode())
print(json.dumps({"seconds": elapsed, "cpu_seconds": cpu + workers_cpu, "parent_cpu_seconds": cpu,
                  "workers_cpu_seconds": workers_cpu, "jobs": jobs if kwargs else 1,
                  "baseline_seconds": baseline, "baseline_cpu_seconds": baseline_cpu,
                  "ratio_to_baseline": (cpu + workers_cpu) / baseline_cpu,
                  "load_average_before_after": [load0[0], os.getloadavg()[0]], "files": len(result.files),
                  "refused": len(result.refused), "records": len(result.records),
                  "statistics": max((len(f.names) for f in result.files), default=0),
                  "peak_rss_mb": peak / 1024, "peak_growth_mb": (peak - before) / 1024,
                  "workers_peak_rss_mb": workers_peak / 1024, "digest": digest.hexdigest()}))
"""


def synth_log(path: Path, megabytes: int) -> int:
    text = REAL_LOG.read_text()
    first = text.index("launching kernel name:")
    end = text.index("GPGPU-Sim: *** exit detected ***")
    header, blocks = text[:first], text[first:end]
    target = megabytes * 2**20
    uid = 0
    with open(path, "w") as f:
        f.write(header)
        size = len(header)
        while size < target:
            def renumber(m):
                nonlocal uid
                uid += 1
                return f"{m.group(1)}{uid}"
            part = re.sub(r"(kernel_launch_uid = |uid: )\d+", lambda m: renumber(m) if m.group(1) == "uid: "
                          else f"{m.group(1)}{uid}", blocks)
            f.write(part)
            size += len(part)
        f.write("GPGPU-Sim: *** exit detected ***\n")
    return path.stat().st_size


def synth_gem5(folder: Path, n: int) -> int:
    text = REAL_STATS.read_bytes()
    for i in range(n):
        d = folder / f"simpoint{i:05d}" / "m5out"
        d.mkdir(parents=True)
        (d / "stats.txt").write_bytes(text)
    return n * len(text)


def child(path: Path, tree: Path, jobs: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(tree), str(path), str(jobs)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def sides(path: Path, trees: list, jobs: int, size: int, per: str) -> dict:
    """Each tree's reading of ``path`` (the order alternates with the case so neither side always goes
    first), with its rates, and the ratios after / before."""
    got = {}
    for name, tree in trees:
        r = child(path, tree, jobs)
        r.update(bytes=size)
        if per == "mb":
            r.update(mb_per_s=size / 2**20 / r["seconds"], mb_per_cpu_s=size / 2**20 / r["cpu_seconds"])
        else:
            r.update(files_per_s=r["files"] / r["seconds"], files_per_cpu_s=r["files"] / r["cpu_seconds"])
        got[name] = r
    if "before" in got:
        b, a = got["before"], got["after"]
        got["after_over_before"] = {"wall": a["seconds"] / b["seconds"], "cpu": a["cpu_seconds"] / b["cpu_seconds"],
                                    "same_records": a["digest"] == b["digest"]}
    return got


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from modeling.parallel import cores

    p = argparse.ArgumentParser()
    p.add_argument("--log-mb", type=int, default=1024)
    p.add_argument("--gem5-files", type=int, default=10_000)
    p.add_argument("--cases", default="log,gem5")
    p.add_argument("--jobs", type=int, default=cores(), help="processes for the gem5 case's files")
    p.add_argument("--before", help="an earlier commit whose readers read the same files in the same run")
    a = p.parse_args()
    out = {"cores": cores(), "jobs": a.jobs, "before": a.before}
    tmp = Path(tempfile.mkdtemp(prefix="simread-"))
    trees = [("after", ROOT)]
    if a.before:
        where = tmp / "before"
        subprocess.run(["git", "worktree", "add", "--detach", str(where), a.before], cwd=ROOT, check=True,
                       capture_output=True)
        trees.insert(0, ("before", where))
    try:
        if "log" in a.cases:
            log = tmp / "synth.log"
            size = synth_log(log, a.log_mb)
            out["log"] = sides(log, trees, 1, size, "mb")
            log.unlink()
        if "gem5" in a.cases:
            folder = tmp / "study"
            size = synth_gem5(folder, a.gem5_files)
            out["gem5"] = sides(folder, trees[::-1], a.jobs, size, "files")
    finally:
        if a.before:
            subprocess.run(["git", "worktree", "remove", "--force", str(tmp / "before")], cwd=ROOT,
                           capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
