"""What else the machine was doing while a benchmark ran: load averages and the other processes using CPU.

Benchmarks here report ratios measured in one run, but a second job on a shared 2-core host can still
halve one side's speed (an ensemble run once took 188.7 s in one process where another took 35.9 s). Each
benchmark records :func:`snapshot` before and after its timings, so a figure taken on a busy machine says
so."""

from __future__ import annotations

import os
import time


def snapshot(sample_seconds: float = 0.5, threshold_pct: float = 5.0) -> dict:
    """Load averages (1, 5, 15 min), cores, and processes outside this one's tree above ``threshold_pct``
    CPU over ``sample_seconds``."""
    import psutil

    me = psutil.Process()
    mine = {me.pid, *(c.pid for c in me.children(recursive=True))}
    procs = [p for p in psutil.process_iter(["pid", "name"]) if p.pid not in mine]
    for p in procs:
        try:
            p.cpu_percent(None)
        except psutil.Error:
            pass
    time.sleep(sample_seconds)
    busy = []
    for p in procs:
        try:
            pct = p.cpu_percent(None)
        except psutil.Error:
            continue
        if pct >= threshold_pct:
            busy.append({"pid": p.pid, "name": p.info["name"], "cpu_pct": round(pct, 1)})
    return {"load_average": [round(x, 2) for x in os.getloadavg()], "cpu_count": os.cpu_count(),
            "other_busy_processes": sorted(busy, key=lambda b: -b["cpu_pct"])[:8]}
