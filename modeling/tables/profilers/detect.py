"""Which profiler printed a file, and its launches: :func:`read_profile`.

The format is recognised from the table's header line (the lines before it are profiler messages and
program output), so a file needs no particular name. ``tool`` (``ncu``, ``nvprof``, ``rocprof``) restricts
the choice, as the command line's ``import ncu FILE`` does.
"""

from __future__ import annotations

import re

from modeling.errors import DataError
from modeling.tables.profilers import ncu, nvprof, rocprof
from modeling.tables.profilers.profile import Profile
from modeling.tables.profilers.values import profiler_text

#: format -> (tool, description shown to the user)
FORMATS = {
    "ncu-details": ("ncu", "Nsight Compute CSV, details page (one row per launch x metric)"),
    "ncu-raw": ("ncu", "Nsight Compute CSV, raw page (one row per launch, units under the header)"),
    "nvprof-metrics": ("nvprof", "nvprof CSV, --metrics / --events summary (one row per kernel x metric)"),
    "nvprof-trace": ("nvprof", "nvprof CSV, --print-gpu-trace (one row per launch)"),
    "rocprof": ("rocprof", "rocprof counter CSV (one row per dispatch)"),
    "rocprofv3": ("rocprof", "rocprofv3 counter collection CSV (one row per dispatch x counter)"),
    "rocprofv3-trace": ("rocprof", "rocprofv3 kernel trace CSV (one row per dispatch: durations, no counters)"),
    "rocprof-compute": ("rocprof", "rocprof-compute (omniperf) pmc_perf.csv (one row per dispatch)"),
}
TOOLS = ("ncu", "nvprof", "rocprof")


def detect(text: str) -> str | None:
    """The format of a profiler's text, or None when it is not one of :data:`FORMATS`. The header is looked
    for in the first 5,000 lines that are not the profiler's own ``==...==`` lines (ncu prints one per
    profiled launch before its table) or blank."""
    looked = 0
    for line in text.split("\n"):
        s = line.strip()
        if not s or s.startswith("=="):
            continue
        looked += 1
        if looked > 5000:
            break
        if s.startswith(nvprof.SUMMARY_HEADER):
            return "nvprof-metrics"
        if re.match(r'^"?Start"?,"?Duration"?,', s):
            return "nvprof-trace"
        if re.match(r'^"?ID"?,', s) and "Kernel Name" in s:  # a plain table may start with an ID column too
            return "ncu-details" if "Metric Name" in s and "Metric Value" in s else "ncu-raw"
        amd_first = re.match(r'^"?(Dispatch_I[Dd]|Index|Correlation_Id|Agent_Id|Kind)"?,', s)
        if amd_first and re.search(r"Kernel_?Name", s, re.I):
            if re.match(r'^"?Kind"?,', s):
                return "rocprofv3-trace"
            if "Counter_Name" in s:
                return "rocprofv3"
            # the merged passes' copies: wave_size_1 (MI100 / MI200 layout) or Wave_Size_1 (MI300's), one layout
            return "rocprof-compute" if re.search(r",wave_size_\d+,", s, re.IGNORECASE) else "rocprof"
    return None


_READERS = {"ncu-details": ncu.read_details, "ncu-raw": ncu.read_raw, "nvprof-metrics": nvprof.read_summary,
            "nvprof-trace": nvprof.read_trace, "rocprof": rocprof.read_counters,
            "rocprofv3": rocprof.read_counters, "rocprofv3-trace": rocprof.read_counters,
            "rocprof-compute": rocprof.read_counters}


def read_profile(raw: bytes, tool: str | None = None) -> Profile:
    """The launches of a profiler's CSV output (bytes as uploaded); DataError says what is wrong."""
    if tool is not None and tool not in TOOLS:
        raise DataError(f"Unknown profiler {tool!r}: use one of {', '.join(TOOLS)}.")
    text = profiler_text(raw)
    fmt = detect(text)
    if fmt is None:
        raise DataError("Not a profiler's CSV output: no Nsight Compute, nvprof or rocprof table header found.")
    if tool is not None and FORMATS[fmt][0] != tool:
        raise DataError(f"This is {FORMATS[fmt][1]}, not {tool} output.")
    return _READERS[fmt](text)
