"""nvprof ``--csv`` output: ``--metrics`` / ``--events`` summaries and ``--print-gpu-trace``.

* Metrics and events: one row per kernel x metric (``"Device","Kernel","Invocations","Metric Name",
  "Metric Description","Min","Max","Avg"``; events: ``"Event Name"`` and a ``"Total"`` column). nvprof has
  already averaged each kernel's launches: the row's ``Avg`` is kept with ``invocations`` = the launch count
  (the launches are taken as repeats of one work, as ``modeling.tables.launches`` does for launches of the
  same configuration), and they cannot be filtered for outliers any more (the profile says so). A file
  holding both an event and a metric section is read whole. Values may carry their unit (``15.5%``,
  ``1.1655GB/s``, ``12.0KB``) or be a utilization level (``Low (2)`` -> 2); the description column is
  not read.
* GPU trace: one row per launch or copy (``"Start","Duration","Grid X",...,"Name"``) with a row of units
  under the header (``ms,us,,,...``); copies and memsets (no grid) are left out and counted.

``==1234==`` lines, the program's output, thousands separators, decimal commas and ``n/a`` are handled as in
``modeling.tables.profilers.values``.
"""

from __future__ import annotations

import math

from modeling.errors import DataError
from modeling.tables.profilers.profile import Profile, finish
from modeling.tables.profilers.values import check_pivot, decimal_mark, fill_metrics, table_rows

SUMMARY_HEADER = '"Device","Kernel","Invocations"'
TRACE_DURATION = "Duration"
_TRACE_CONFIG = ("Grid X", "Grid Y", "Grid Z", "Block X", "Block Y", "Block Z")
_TRACE_TEXT = {"Start", "Device", "Context", "Stream", "Name", "Correlation_ID", "SrcMemType", "DstMemType",
               "Src Dev", "Src Ctx", "Dst Dev", "Dst Ctx", "Size", "Throughput"}


def _sections(text: str) -> list[str]:
    lines = text.split("\n")
    starts = [i for i, ln in enumerate(lines) if ln.startswith(SUMMARY_HEADER)]
    if not starts:
        raise DataError(f"No nvprof metric or event table found: no line starts with {SUMMARY_HEADER}.")
    return ["\n".join(lines[s:e]) for s, e in zip(starts, starts[1:] + [len(lines)])]


def read_summary(text: str) -> Profile:
    """The kernels of an ``nvprof --csv --metrics ... [--events ...]`` file."""
    kernels: dict[tuple, dict] = {}
    cells: dict[str, dict] = {}
    devices, afters = set(), []
    for section in _sections(text):
        after, rows = table_rows(section, (SUMMARY_HEADER,), "nvprof metric/event")
        afters += [after] if after else []
        header, body = rows[0], rows[1:]
        name_col = "Metric Name" if "Metric Name" in header else "Event Name"
        if name_col not in header or "Avg" not in header:
            raise DataError(f"The nvprof table has no {name_col!r} or 'Avg' column.")
        i_dev, i_k, i_n = header.index("Device"), header.index("Kernel"), header.index("Invocations")
        i_name, i_avg = header.index(name_col), header.index("Avg")
        for r in body:
            devices.add(r[i_dev])
            key = (r[i_dev], r[i_k])
            try:
                n = float(r[i_n].replace(",", ""))
            except ValueError:
                n = math.nan
            if not (math.isfinite(n) and n >= 1 and n.is_integer()):
                raise DataError(f"Kernel {r[i_k][:60]!r}: invocations {r[i_n][:40]!r} is not a count of launches "
                                "(a whole number, at least 1). Nothing was imported.")
            k = kernels.setdefault(key, {"kernel": r[i_k], "invocations": n, "Device": r[i_dev].strip()})
            if k["invocations"] != n:  # events and metrics replayed a different number of times
                k["invocations"] = max(k["invocations"], n)
            cells.setdefault(r[i_name].strip(), {})[key] = r[i_avg]
    keys = list(kernels)
    check_pivot(len(keys), len(cells))
    comma, dot = decimal_mark(v for c in cells.values() for v in c.values())
    columns = ((name, [by.get(k, "") for k in keys], [None] * len(keys)) for name, by in cells.items())
    units, notes = fill_metrics([kernels[k] for k in keys], columns, comma, dot_example=dot)
    notes += afters
    if len(devices) > 1:
        notes.append(f"{len(devices)} devices in one file: {', '.join(sorted(devices))}")
    notes.insert(0, "nvprof printed each kernel's average over its launches: repeated launches cannot be "
                    "filtered for outliers")
    return finish("nvprof-metrics", list(kernels.values()), units, [], notes, None, per_launch=False,
                  text=["Device"])


def read_trace(text: str) -> Profile:
    """The kernel launches of an ``nvprof --csv --print-gpu-trace`` file."""
    after, rows = table_rows(text, ('"Start","Duration"', "Start,Duration"), "nvprof GPU trace")
    header, unit_row, body = rows[0], rows[1], rows[2:]
    if "Name" not in header:
        raise DataError("The nvprof GPU trace has no 'Name' column.")
    i_name = header.index("Name")
    config = [c for c in _TRACE_CONFIG if c in header]
    i_grid = header.index("Grid X") if "Grid X" in header else None
    kernels = [r for r in body if i_grid is None or r[i_grid].strip()]
    copies = len(body) - len(kernels)
    if not kernels:
        raise DataError("The nvprof GPU trace holds no kernel launches (only copies and memsets).")
    metrics = [j for j, h in enumerate(header) if h not in _TRACE_TEXT and h not in _TRACE_CONFIG]
    comma, dot = decimal_mark(r[j] for r in kernels for j in metrics)
    text = [c for c in ("Device", "Context", "Stream") if c in header]
    launches = [{"kernel": r[i_name], "invocations": 1.0,
                 **{c: r[header.index(c)].strip() for c in [*config, *text]}} for r in kernels]
    units, notes = fill_metrics(launches, ((header[j], [r[j] for r in kernels], [unit_row[j]] * len(kernels))
                                           for j in metrics), comma, dot_example=dot)
    if copies:
        notes.append(f"{copies} memory copies / memsets left out (not kernel launches)")
    notes += [after] if after else []
    return finish("nvprof-trace", launches, units, config, notes, TRACE_DURATION, text=text)
