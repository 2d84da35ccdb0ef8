"""A long table of simulation results: one row per workload, configuration and metric.

The columns (names matched without regard to case): ``workload``, ``configuration`` (or ``config``),
``metric``, ``value``, and optionally ``unit`` and ``dump``. A farm's own post-processed results (ChampSim,
Sniper, McPAT, MGPUSim tables) come in this way without a parser of their own. The workload is taken as
``application/arguments--kernel--occurrence`` when written so (the key's text), else as the application's
name. Values that are not numbers are refused with the row named; ``nan`` is kept as missing. Two rows with
the same workload, configuration, dump and metric are refused.
"""

from __future__ import annotations

import math
import re
from array import array

from modeling.errors import DataError
from modeling.tables.reading import read_csv_bytes
from modeling.tables.simulators.records import SimFile, SimRecord, WorkloadKey

REQUIRED = ("workload", "configuration", "metric", "value")


def columns(header: list) -> dict | None:
    """The long table's columns found in ``header`` (role -> column), or None when it is not one."""
    lower = {str(c).strip().lower(): c for c in header}
    if "config" in lower and "configuration" not in lower:
        lower["configuration"] = lower["config"]
    if not all(r in lower for r in REQUIRED):
        return None
    return {r: lower[r] for r in (*REQUIRED, "unit", "dump") if r in lower}


def parse_workload(text: str) -> WorkloadKey:
    m = re.match(r"^([^/]*)/(.*?)--(.*)--(\d+)$", text)
    if m:
        kernel = "" if m.group(3) == "dump" else m.group(3)
        return WorkloadKey(m.group(1), m.group(2), kernel, int(m.group(4)))
    return WorkloadKey(text, "NO_ARGS", "", 0)


def read_long(raw: bytes, source: str) -> SimFile:
    table = read_csv_bytes(raw)
    frame = table.frame
    cols = columns(list(frame.columns))
    if cols is None:
        raise DataError(f"{source}: a long table needs the columns {', '.join(REQUIRED)}.")
    dropped = table.text_dropped.get(cols["value"])
    if dropped:
        raise DataError(f"{source}, line {dropped['rows'][0] + 2}: a value that is not a number "
                        f"({dropped['count']} such value(s)). Nothing was imported from this file.")
    out = SimFile(source, "long-table")
    records: dict = {}
    for i, row in enumerate(frame.itertuples(index=False), start=2):
        rec = dict(zip(frame.columns, row))
        raw_value = rec[cols["value"]]
        try:
            v = float(str(raw_value).strip()) if str(raw_value).strip().lower() not in ("nan", "") else math.nan
        except ValueError:
            raise DataError(f"{source}, line {i}: value {str(raw_value)[:40]!r} is not a number. Nothing was "
                            "imported from this file.") from None
        workload = str(rec[cols["workload"]]).strip()
        config = str(rec[cols["configuration"]]).strip()
        metric = str(rec[cols["metric"]]).strip()
        dump = 0
        if "dump" in cols:
            try:
                dump = int(float(rec[cols["dump"]]))
            except (TypeError, ValueError):
                raise DataError(f"{source}, line {i}: dump {rec[cols['dump']]!r} is not a whole number.") from None
        if not workload or not metric or not config:
            raise DataError(f"{source}, line {i}: an empty workload, configuration or metric. Nothing was "
                            "imported from this file.")
        vals = records.setdefault((workload, config, dump), {})
        j = out.index(metric)
        if j in vals:
            raise DataError(f"{source}, line {i}: {metric!r} of {workload!r} on {config!r} is given twice. Nothing "
                            "was imported from this file.")
        vals[j] = v
        if "unit" in cols and str(rec[cols["unit"]]).strip() not in ("", "nan"):
            out.units.setdefault(metric, str(rec[cols["unit"]]).strip())
    for (workload, config, dump), vals in records.items():
        data = array("d", [math.nan] * (max(vals) + 1))
        for j, v in vals.items():
            data[j] = v
        out.records.append(SimRecord(parse_workload(workload), config, dump, "", None, None, data, out, [],
                                     frozenset(j for j, v in vals.items() if math.isnan(v))))
    if not out.records:
        raise DataError(f"{source}: the long table has no data rows.")
    return out
