"""AMD counter CSVs: rocprof (v1), rocprofv2 / rocprofv3 counter collection, rocprof-compute ``pmc_perf.csv``.

One row per dispatch, a counter per column, in every variant:

* rocprof v1 (``Index,KernelName,gpu-id,...,DispatchNs,BeginNs,EndNs,CompleteNs,<counters>``) and the layout
  rocprof-compute (omniperf) keeps per counter file (``Dispatch_ID,Kernel_Name,...,Start_Timestamp,
  End_Timestamp``);
* rocprof-compute's merged ``pmc_perf.csv`` (``Dispatch_ID,Kernel_Name,GPU_ID,Grid_Size,Workgroup_Size,...``
  with ``wave_size_1``/``obj_1`` repeated per merged pass: kept once), and the same file in the tool's MI300
  layout (``Wave_Size_1``, ``Correlation_ID_1``, ``XCC_Index``: ids and indices, not metrics) -- one format;
  a run's folder of such files is read by ``modeling.tables.profilers.rocprof_compute``;
* rocprofv3 ``counter_collection.csv`` in the long layout (one row per dispatch x counter: ``Dispatch_Id``,
  ``Kernel_Name``, ``Counter_Name``, ``Counter_Value``), pivoted to one row per dispatch;
* rocprofv3 ``kernel_trace.csv`` (``Kind,Agent_Id,...,Kernel_Name,...,Start_Timestamp,End_Timestamp,...,
  Grid_Size_X/Y/Z``): no counters, only each dispatch's duration and configuration -- what a target's
  profile needs (its time per workload).

Register and memory allocations (``VGPR_Count``, ``SGPR_Count``, ``Arch_VGPR``, ``LDS_Block_Size``,
``Scratch_Size``) are metrics of the kernel, averaged over its launches (``profile.metric_kind``).

The duration of a dispatch is ``End - Start`` (``EndNs - BeginNs``) in seconds, the timestamps read as whole
nanoseconds or in scientific notation (``8.10970123456789E+14``); stamps rounded to fewer digits than the
duration needs (``8.1097E+14``, as in rocprof-compute's MI300 test files: to 1e10 ns) give no duration, with a
note saying why (a difference of such stamps is not the dispatch's time). Timestamps themselves,
queue / process / object ids and signatures are not metrics. Kernel names keep their C++ signature (commas
inside quotes); the ``(.kd)`` / ``[clone .kd]`` suffix is dropped.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from modeling.errors import DataError
from modeling.tables.profilers.profile import Profile, finish
from modeling.tables.profilers.values import RESERVED, check_pivot, decimal_mark, fill_metrics, table_rows

DURATION = "duration"
_NOT_METRICS = re.compile(
    r"^(index|dispatch_id|kernel_?name|gpu[-_]id|queue[-_]id|queue[-_]index|pid|tid|sig|obj(_\d+)?"
    r"|wave_size_\d+|dispatchns|beginns|endns|completens|start_timestamp|end_timestamp|correlation_id(_\d+)?"
    r"|agent_id|process_id|thread_id|kernel_id|counter_name|counter_value|node_id|stream_id|private_segment_size"
    r"|group_segment_size|lds_block_size_v|ordinal|dispatch_id_\d+|kind|xcc_index(_\d+)?)$", re.IGNORECASE)
_CONFIG = ("Grid_Size", "Workgroup_Size", "grd", "wgr", "LDS_Per_Workgroup", "lds", "Grid_Size_X", "Grid_Size_Y",
           "Grid_Size_Z", "Workgroup_Size_X", "Workgroup_Size_Y", "Workgroup_Size_Z")
_HEADERS = ("Dispatch_ID,", "Dispatch_Id,", "Index,", '"Dispatch_ID"', '"Dispatch_Id"', '"Index"',
            "Correlation_Id,", '"Correlation_Id"', "Agent_Id,", '"Agent_Id"', "Kind,", '"Kind"')


#: a column of rocprof-compute's merged pmc_perf.csv repeated per merged counter pass (``wave_size_1`` in the
#: MI100 / MI200 layout, ``Wave_Size_1`` in the MI300 one): the file is that tool's
MERGED_PASS = re.compile(r"wave_size_\d+", re.IGNORECASE)
#: counters the GPU adds up over its XCDs (accelerator complex dies) and rocprof-compute divides by the XCD
#: count (``modeling.tables.profilers.rocprof_compute``)
PER_XCD = ("GRBM_GUI_ACTIVE", "GRBM_COUNT", "GRBM_SPI_BUSY")
XCD_HINT = ("an MI300-class layout (XCC_Index column): GRBM_GUI_ACTIVE / GRBM_COUNT / GRBM_SPI_BUSY may be summed "
            "over the GPU's XCDs and are left as printed; read the run's folder, or give its sysinfo.csv with "
            "this file, to divide them by the XCD count as rocprof-compute does")


def _stamp(text: str) -> tuple[int, int] | None:
    """A timestamp in ns and the resolution it was written to: ``"810970123456789"`` -> (810970123456789, 1);
    ``"8.1097E+14"`` (scientific notation, as a spreadsheet or rocprof-compute's MI300 files write it) ->
    (810970000000000, 10**10); None when it is not a whole number of ns."""
    t = text.strip()
    if t.isdigit():
        return int(t), 1
    try:
        d = Decimal(t)
    except InvalidOperation:
        return None
    if not d.is_finite() or d < 0 or d != d.to_integral_value():
        return None
    return int(d), 10 ** max(0, int(d.as_tuple().exponent))  # 8.1097E+14: digits 81097, exponent 10


def _kernel(name: str) -> str:
    return re.sub(r"\s*(\(\.kd\)|\[clone \.kd\]|\.kd)\s*$", "", name.strip())


def _find(header, *names):
    low = {h.lower(): j for j, h in enumerate(header)}
    return next((low[n.lower()] for n in names if n.lower() in low), None)


def _pivot_long(header, body):
    """rocprofv3's long layout (one row per dispatch x counter) as one row per dispatch."""
    i_d = _find(header, "Dispatch_Id", "Dispatch_ID", "Correlation_Id", "Index")
    if i_d is None:
        raise DataError("The rocprofv3 counter table has no Dispatch_Id (or Correlation_Id) column: its rows "
                        "cannot be told apart by dispatch. Nothing was imported.")
    i_n, i_v = _find(header, "Counter_Name"), _find(header, "Counter_Value")
    fixed = [j for j in range(len(header)) if j not in (i_n, i_v)]
    base: dict[str, list] = {}
    values: dict[str, dict] = {}
    names: dict[str, None] = {}  # counter names in order of appearance
    taken = {header[j].lower() for j in fixed}
    for r in body:
        base.setdefault(r[i_d], [r[j] for j in fixed])
        name = r[i_n].strip()
        if name.lower() in taken:  # a counter named like a column of the row (Kernel_Name): kept apart
            name = f"{name} (counter)"
        names.setdefault(name)
        values.setdefault(r[i_d], {})[name] = r[i_v]
    check_pivot(len(base), len(names))
    new_header = [header[j] for j in fixed] + list(names)
    return new_header, [row + [values[d].get(n, "") for n in names] for d, row in base.items()]


def read_counters(text: str) -> Profile:
    """The dispatches of a rocprof / rocprofv3 / rocprof-compute counter CSV."""
    after, rows = table_rows(text, _HEADERS, "rocprof counter")
    header, body = [h.strip() for h in rows[0]], rows[1:]
    fmt = "rocprof-compute" if any(MERGED_PASS.fullmatch(h) for h in header) else "rocprof"
    if _find(header, "Counter_Name") is not None and _find(header, "Counter_Value") is not None:
        header, body = _pivot_long(header, body)
        fmt = "rocprofv3"
    elif header[0] == "Kind":
        fmt = "rocprofv3-trace"
    i_k = _find(header, "Kernel_Name", "KernelName")
    if i_k is None:
        raise DataError("The rocprof table has no 'Kernel_Name' (or 'KernelName') column.")
    i_start, i_end = _find(header, "Start_Timestamp", "BeginNs"), _find(header, "End_Timestamp", "EndNs")
    config = [header[j] for j in range(len(header)) if header[j] in _CONFIG]
    metrics = [j for j, h in enumerate(header) if not _NOT_METRICS.match(h) and h not in config]
    comma, dot = decimal_mark(r[j] for r in body for j in metrics)
    skip = {i_k, i_start, i_end, _find(header, "Counter_Name"), _find(header, "Counter_Value")}
    copies = re.compile(r"(wave_size|obj|dispatch_id|correlation_id|xcc_index)_\d+", re.IGNORECASE)  # passes' copies
    text = [h for j, h in enumerate(header) if j not in skip and j not in metrics and h not in config
            and h not in RESERVED and not copies.fullmatch(h)]
    launches = [{"kernel": _kernel(r[i_k]), "invocations": 1.0, **{header[j]: r[j].strip() for j in
                                                                     range(len(header)) if header[j] in config},
                 **{h: r[header.index(h)] for h in text}} for r in body]
    units, notes = {}, []
    if i_start is not None and i_end is not None:
        bad = coarse = step = 0
        example = ""
        for launch, r in zip(launches, body):
            start, end = _stamp(r[i_start]), _stamp(r[i_end])
            if start is None or end is None or not 0 <= end[0] - start[0] < 10**18:
                launch[DURATION] = float("nan")
                bad += 1
                continue
            ns, res = end[0] - start[0], max(start[1], end[1])
            if res > 1 and ns < 100 * res:  # rounded stamps: the difference is not the dispatch's time
                launch[DURATION] = float("nan")
                coarse += 1
                if res > step:
                    step, example = res, r[i_start].strip()
                continue
            launch[DURATION] = ns * 1e-9
        if bad:
            notes.append(f"{bad} dispatch(es) with unreadable timestamps or an end before the start: "
                         "duration left empty")
        if coarse:
            digits = len(Decimal(example).as_tuple().digits)
            notes.append(f"{coarse} dispatch(es) with timestamps written to {digits} significant digits ({example}: "
                         f"to the nearest {step:.0e} ns, {step * 1e-9:g} s), too coarse to time a dispatch: "
                         "duration left empty. Timestamps written as whole nanoseconds (or with every digit) give "
                         "the durations.")
        units[DURATION] = "s"
    else:
        notes.append("no start / end timestamps: durations unknown, repeated dispatches are averaged unfiltered")
    more_units, more_notes = fill_metrics(
        launches, ((header[j], [r[j] for r in body], [None] * len(body)) for j in metrics), comma, dot_example=dot)
    units.update(more_units)
    notes += more_notes
    notes += [after] if after else []
    if _find(header, "XCC_Index") is not None and any(m in units for m in PER_XCD):
        notes.append(XCD_HINT)
    return finish(fmt, launches, units, config, notes, DURATION if DURATION in units else None, text=text)
