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
import json, os, resource, sys, time
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
t, c = time.perf_counter(), time.process_time()
result = read_paths([sys.argv[2]])
elapsed, cpu = time.perf_counter() - t, time.process_time() - c
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "cpu_seconds": cpu, "baseline_seconds": baseline,
                  "baseline_cpu_seconds": baseline_cpu, "ratio_to_baseline": cpu / baseline_cpu,
                  "load_average": os.getloadavg()[0], "files": len(result.files), "refused": len(result.refused),
                  "records": len(result.records), "statistics": max((len(f.names) for f in result.files), default=0),
                  "peak_rss_mb": peak / 1024, "peak_growth_mb": (peak - before) / 1024}))
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


def child(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), str(path)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--log-mb", type=int, default=1024)
    p.add_argument("--gem5-files", type=int, default=10_000)
    p.add_argument("--cases", default="log,gem5")
    a = p.parse_args()
    out = {}
    tmp = Path(tempfile.mkdtemp(prefix="simread-"))
    try:
        if "log" in a.cases:
            log = tmp / "synth.log"
            size = synth_log(log, a.log_mb)
            r = child(log)
            r.update(bytes=size, mb_per_s=size / 2**20 / r["seconds"], mb_per_cpu_s=size / 2**20 / r["cpu_seconds"])
            out["log"] = r
            log.unlink()
        if "gem5" in a.cases:
            folder = tmp / "study"
            size = synth_gem5(folder, a.gem5_files)
            r = child(folder)
            r.update(bytes=size, files_per_s=r["files"] / r["seconds"], files_per_cpu_s=r["files"] / r["cpu_seconds"])
            out["gem5"] = r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
