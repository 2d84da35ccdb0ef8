"""Metadata of the nvprof counters in the shipped GPU dataset.

Each counter gets a category (instruction, memory, cache, occupancy,
utilization, launch geometry, time), a unit, and the rule used to combine the
launches of a sequence whose configuration differs (see ``modeling.build.rodinia``):

* ``sum``: extensive counts (instructions, requests, transactions, cycles, time)
* ``wmean``: intensive rates (throughputs, efficiencies, IPC, occupancy,
  utilization levels, per-request ratios), weighted by each launch's duration
* ``mean``: launch geometry (grid and block shape, registers, shared memory)
"""

from __future__ import annotations

import re

#: Targets measured on every GPU: name -> (unit, description)
TARGETS = {
    "duration": ("s", "Kernel execution time"),
    "elapsed_cycles_sm": ("cycles", "Elapsed clock cycles summed over the streaming multiprocessors"),
}


def clean_name(raw: str) -> str:
    """Turn an R-style nvprof column name into a snake_case identifier."""
    return re.sub(r"[^0-9a-zA-Z]+", "_", raw).strip("_").lower()


# (pattern on the cleaned name, category, unit, aggregation); first match wins.
_RULES = [
    (r"^(grid_[xy]|block_[xy])$", "launch geometry", "threads or blocks", "mean"),
    (r"^registers_per_thread$", "launch geometry", "registers", "mean"),
    (r"^static_smem$", "launch geometry", "bytes", "mean"),
    (r"^launches$", "launch geometry", "launches", "sum"),
    (r"^warps_launched$", "launch geometry", "warps", "sum"),
    (r"^duration$", "time", "s", "sum"),
    (r"^elapsed_cycles_sm$", "time", "cycles", "sum"),
    (r"^active_cycles$", "occupancy", "cycles", "sum"),
    (r"^active_warps$", "occupancy", "warp-cycles", "sum"),
    (r"^achieved_occupancy$", "occupancy", "fraction", "wmean"),
    (r"^eligible_warps_per_active_cycle$", "occupancy", "warps/cycle", "wmean"),
    (r"utilization$", "utilization", "level (0-10)", "wmean"),
    (r"^l2_.*throughput", "cache", "GB/s", "wmean"),
    (r"^l2_.*transactions$", "cache", "transactions", "sum"),
    (r"transactions_per_request$", "memory", "transactions/request", "wmean"),
    (r"efficiency$", "memory", "%", "wmean"),
    (r"throughput$", "memory", "GB/s", "wmean"),
    (r"transactions$", "memory", "transactions", "sum"),
    (r"^(gld|gst)_request$", "memory", "requests", "sum"),
    (r"^shared_(load|store)$", "memory", "requests", "sum"),
    (r"^flop_efficiency", "instruction", "%", "wmean"),
    (r"ipc$", "instruction", "instructions/cycle", "wmean"),
    (r"^instructions_per_warp$", "instruction", "instructions/warp", "wmean"),
    (r"^issue_slot", "instruction", "issue slots", "sum"),
    (r"^(floating_point_operation|fp_)", "instruction", "operations", "sum"),
    (r"instructions$|^inst_|_inst_32bit$", "instruction", "instructions", "sum"),
]

def describe(name: str) -> tuple[str, str, str]:
    """Return ``(category, unit, aggregation)`` for a cleaned counter name.

    Raises
    ------
    KeyError
        If the counter is not known; the build refuses to guess.
    """
    for pattern, category, unit, agg in _RULES:
        if re.search(pattern, name):
            return category, unit, agg
    raise KeyError(f"no category rule for counter {name!r}")
