"""What every profiler reader returns: its launches, one row each, with one unit per metric.

:class:`Profile` holds the launches (``kernel``, ``launch`` in file order, ``invocations`` = how many launches
the row stands for, the launch configuration as text, one numeric column per metric), each metric's unit
and kind (how its launches combine into a workload: ``modeling.tables.launches``), the duration column
(the measure of the MAD test and the weight of rates) and notes on what the reader converted.

:func:`metric_kind` decides the kind from the metric's name and unit, the way ``modeling.build.counters``
does for the shipped nvprof counters: counts, times, bytes and cycles add up over launches; rates,
percentages, ratios and per-cycle or per-second values are averaged weighted by duration; launch geometry
(grid, block, registers, shared memory) is averaged. Nsight Compute's display names (``Achieved Active Warps
Per SM``, ``Warp Cycles Per Issued Instruction``, ``Static Shared Memory Per Block``) are judged by their
words: averages per warp, instruction, issue or cycle and resident warps per SM or scheduler are rates; shared
memory per block, threads, waves per SM and the device's limits are geometry; counts per scheduler (``Avg.
Executed Instructions Per Scheduler``) add up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

from modeling.build.counters import clean_name, describe
from modeling.errors import DataError

_GEOMETRY = re.compile(r"^(launch__|grid|block|registers|static_?smem|dynamic_?smem|lds|scr|arch_vgpr|accum_vgpr"
                       r"|vgpr|sgpr|wave_size|workgroup|grid_size|workgroup_size|lds_per_workgroup|scratch_per)",
                       re.IGNORECASE)
_RATE = re.compile(r"(pct|ratio|per_second|per_cycle|per_warp|per_request|\.avg|efficiency|utilization|ipc$"
                   r"|throughput|occupancy|_rate$|frequency)", re.IGNORECASE)
_RATE_UNITS = {"%", "byte/s", "Hz", "level", "ratio"}
# Nsight Compute's display names (the details page: words with spaces) and nvprof trace columns. Geometry: the
# launch's configuration and the device's limits, the same in every launch of a configuration ("Waves Per SM"
# follows the grid size, "Threads" is grid x block). Rates: averages per warp, per instruction, per issue, per
# cycle, and resident warps per SM or scheduler (a per-cycle average); counts per scheduler or SM ("Avg.
# Executed Instructions Per Scheduler", "Average SM Active Cycles") add up over launches like their totals.
_GEOMETRY_DISPLAY = re.compile(
    r"^((static|dynamic|driver) ?(smem|shared memory)\b|shared memory (configuration size|per block)|threads$"
    r"|waves per sm$|(max )?cluster size$|max active clusters$|# ?(sms|tpcs)$|stack size$|uses green context$)",
    re.IGNORECASE)
_RATE_DISPLAY = re.compile(
    r"(\bper (warp|thread instruction|(executed |issued )?instruction|issue( active)?|active issue slot|request"
    r"|cycle|second)\b|\bwarps? per (sm|scheduler)\b|\bipc\b|\bhit rate\b|\bratio$)", re.IGNORECASE)


#: an Nsight Compute metric name that ends in its roll-up over the units (SMs, schedulers) with no rate after
#: it: ``sm__cycles_active.avg`` is the average over SMs of a count of cycles, a count per launch that adds up
#: over launches like ``.sum`` (its rates carry a sub-metric: ``.avg.per_cycle_active``, ``.avg.pct_of_peak...``)
_NCU_ROLLUP = re.compile(r"[a-z0-9_]+__[a-z0-9_.]+\.(sum|avg|min|max)")


def metric_kind(name: str, unit: str) -> str:
    """``sum``, ``wmean`` or ``mean`` for a metric (see the module docstring); an ncu name that carries its
    section (``Launch Statistics: Block Size``) is judged by the metric's own name."""
    name = name.split(": ", 1)[-1]
    display = " " in name
    if _GEOMETRY.match(name) or _GEOMETRY_DISPLAY.match(name):
        return "mean"
    if unit in _RATE_UNITS or "/" in unit or (display and _RATE_DISPLAY.search(name)):
        return "wmean"
    if _NCU_ROLLUP.fullmatch(name):  # a count rolled up over units (sm__cycles_active.avg): adds over launches
        return "sum"
    if re.fullmatch(r"[a-z0-9_]+", name):  # nvprof / rocprof style: the shipped build's rules when they know it
        try:
            return describe(clean_name(name))[2]
        except KeyError:
            pass
    return "wmean" if _RATE.search(name) else "sum"


@dataclass
class Profile:
    format: str
    launches: pd.DataFrame
    units: dict = field(default_factory=dict)
    kinds: dict = field(default_factory=dict)
    duration: str | None = None
    config: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    #: False when the file holds one row per kernel already averaged over its launches (nvprof --metrics):
    #: its launches cannot be filtered for outliers any more.
    per_launch: bool = True
    #: the file's other non-metric columns, kept per launch as text (ncu's Process Name, Device, ...)
    text: list = field(default_factory=list)

    @property
    def metrics(self) -> list[str]:
        return list(self.units)

    @property
    def tag_columns(self) -> list[str]:
        """The columns an input tag can be read from: the launch configuration and the text columns."""
        return [*self.config, *self.text]

    def to_dict(self) -> dict:
        return {"format": self.format, "launches": int(self.launches["invocations"].sum()),
                "rows": int(len(self.launches)), "kernels": int(self.launches["kernel"].nunique()),
                "metrics": self.metrics, "units": self.units, "kinds": self.kinds, "duration": self.duration,
                "notes": self.notes, "per_launch": self.per_launch, "tag_columns": self.tag_columns}


def finish(fmt: str, rows: list[dict], units: dict, config: list, notes: list, duration: str | None,
           per_launch: bool = True, text: list | None = None) -> Profile:
    """A :class:`Profile` from per-launch dicts (``kernel``, ``invocations``, config, text columns, metrics)."""
    frame = pd.DataFrame(rows)
    frame.insert(0, "launch", range(len(frame)))
    metrics = [m for m in units if m in frame.columns]
    if not metrics:
        raise DataError("The file holds no numeric metric (every metric column is text). Nothing was imported.")
    for m in metrics:
        frame[m] = pd.to_numeric(frame[m], errors="coerce").astype(float)
    kinds = {m: metric_kind(m, units[m]) for m in metrics}
    if duration and duration in kinds:
        kinds[duration] = "sum"
    text = [c for c in (text or []) if c in frame.columns and c not in metrics and c not in config]
    for c in text:
        frame[c] = frame[c].astype(str).str.strip()
    frame = frame[["launch", "kernel", "invocations", *config, *text, *metrics]]
    return Profile(fmt, frame, {m: units[m] for m in metrics}, kinds, duration if duration in metrics else None,
                   config, notes, per_launch, text)
