"""Nsight Compute ``ncu --csv`` output, both layouts.

* *details* (the default page): one row per launch x metric, columns ``ID``, ``Kernel Name``, ``Block
  Size``, ``Grid Size``, ``Section Name``, ``Metric Name``, ``Metric Unit``, ``Metric Value`` (and process,
  device and rule columns, not read). Pivoted to one row per launch (``ID``). A metric listed under two
  sections with the same value is kept once; with two different values, as ``<section>: <metric>``; a
  metric named as a column of the page (``Block Size``, ``Grid Size`` under "Launch Statistics") also takes
  its section's name. Nsight Compute 2025 ends metric rows after ``Metric Value`` (the rule columns only on
  rule rows): such rows are padded; rule rows (no metric name) are not read.
* ``--page raw``: one row per launch, a metric per column, and a row of units under the header.

Both: ``==PROF==`` lines and the program's output around the table are skipped; values may carry thousands
separators (``1,024``) or a decimal comma (a European locale: ``117,3``, ``1.234,5``; decided once per
file); units are converted to one per metric (``modeling.tables.profilers.values``); ``n/a`` is an empty
value; kernel names are C++ signatures whose commas sit inside quoted fields.
"""

from __future__ import annotations

from modeling.errors import DataError
from modeling.tables.profilers.profile import Profile, finish
from modeling.tables.profilers.values import check_pivot, decimal_mark, fill_metrics, table_rows

DURATION = "gpu__time_duration.sum"
#: the details page's section names for the metrics it shows (GPU Speed Of Light section), as their metric names
_DETAIL_NAMES = {"Duration": DURATION, "Elapsed Cycles": "gpc__cycles_elapsed.max"}
_CONFIG = ("Block Size", "Grid Size")
#: columns kept per launch as text: an input tag can be read from them (``workloads``)
_TEXT = ("Process ID", "Process Name", "Host Name", "Kernel Time", "Context", "Stream", "Device", "CC")
_NOT_METRICS = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time", "Context",
                "Stream", "Device", "CC", "Block Size", "Grid Size", "Section Name", "Metric Name", "Metric Unit",
                "Metric Value", "Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type",
                "Estimated Speedup", "Function Name", "Demangled Name", "Mangled Name", "Device Name"}


def _col(header, name, what):
    if name not in header:
        raise DataError(f"The {what} has no {name!r} column (columns: {', '.join(header[:12])}).")
    return header.index(name)


def read_details(text: str) -> Profile:
    """The launches of an ``ncu --csv`` details file."""
    after, rows = table_rows(text, ('"ID","Process ID"', '"ID",', "ID,"), "Nsight Compute details", "Metric Value")
    header, body = rows[0], rows[1:]
    i_id, i_kernel = _col(header, "ID", "ncu table"), _col(header, "Kernel Name", "ncu table")
    i_name, i_value = _col(header, "Metric Name", "ncu table"), _col(header, "Metric Value", "ncu table")
    i_unit = header.index("Metric Unit") if "Metric Unit" in header else None
    i_section = header.index("Section Name") if "Section Name" in header else None
    config = [c for c in _CONFIG if c in header]
    text = [c for c in _TEXT if c in header]
    comma, dot = decimal_mark(r[i_value] for r in body)
    launches: dict[str, dict] = {}
    cells: dict[str, dict] = {}
    seen: dict[tuple, str] = {}
    for r in body:
        lid = r[i_id].strip()
        if lid not in launches:
            launches[lid] = {"kernel": r[i_kernel], "invocations": 1.0,
                             **{c: r[header.index(c)].strip() for c in [*config, *text]}}
        name = r[i_name].strip()
        if not name:
            continue
        name = _DETAIL_NAMES.get(name, name)
        if name in config:  # "Launch Statistics: Block Size" (a count) beside the "Block Size" column "(384, 1, 1)"
            name = f"{r[i_section].strip() if i_section is not None else 'metric'}: {name}"
        value, unit = r[i_value], (r[i_unit].strip() if i_unit is not None else None)
        key = (lid, name)
        if key in seen:
            if seen[key] == value:
                continue
            name = f"{r[i_section].strip()}: {name}" if i_section is not None else name
            key = (lid, name)
            if key in seen:
                continue
        seen[key] = value
        cells.setdefault(name, {})[lid] = (value, unit)
    ids = list(launches)
    check_pivot(len(ids), len(cells))

    def column(name, by_launch):  # (name, values, units) with a cell per launch, empty where it was not printed
        got = [by_launch.get(i, ("", None)) for i in ids]
        return name, [v for v, _ in got], [u for _, u in got]

    units, notes = fill_metrics([launches[i] for i in ids], (column(n, by) for n, by in cells.items()), comma,
                                dot_example=dot)
    notes += [after] if after else []
    return finish("ncu-details", list(launches.values()), units, config, notes, DURATION, text=text)


def read_raw(text: str) -> Profile:
    """The launches of an ``ncu --csv --page raw`` file (units in the row under the header)."""
    after, rows = table_rows(text, ('"ID","Process ID"', '"ID",', "ID,"), "Nsight Compute raw page")
    header, unit_row, body = rows[0], rows[1], rows[2:]
    if not body:
        raise DataError("The Nsight Compute raw page has a header and a units row but no launches.")
    i_kernel = _col(header, "Kernel Name", "ncu raw page")
    config = [c for c in _CONFIG if c in header]
    metrics = [j for j, h in enumerate(header) if h not in _NOT_METRICS]
    comma, dot = decimal_mark(r[j] for r in body for j in metrics)
    text = [c for c in _TEXT if c in header]
    launches = [{"kernel": r[i_kernel], "invocations": 1.0,
                 **{c: r[header.index(c)].strip() for c in [*config, *text]}} for r in body]
    def keep_as_text(name, cells):  # an input tag can come from a text column
        text.append(name)
        for launch, c in zip(launches, cells):
            launch[name] = c

    units, notes = fill_metrics(launches, ((_DETAIL_NAMES.get(header[j], header[j]), [r[j] for r in body],
                                            [unit_row[j]] * len(body)) for j in metrics), comma, keep_as_text,
                                dot_example=dot)
    notes += [after] if after else []
    return finish("ncu-raw", launches, units, config, notes, DURATION, text=text)
