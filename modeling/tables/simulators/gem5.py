"""gem5's ``stats.txt``: one record per dump, read line by line.

What gem5 prints (``src/base/stats/text.cc``): each dump (the end of the run, ``m5 dumpstats``, a region of
interest, a SimPoint) between ``---------- Begin Simulation Statistics ----------`` and
``---------- End Simulation Statistics   ----------``; inside, one statistic a line: ``name value [pct
cum%] # description``, since v21 with the unit at the end of the description in parentheses
(``(Second)``, ``((Tick/Second))``); a vector's or distribution's elements as ``name::element`` (``::total``,
``::samples``, ``::mean``, ``::0-4``), the percentage columns after the value. Values may be ``nan``, ``inf``
or ``no_value``.

Read here: every statistic, vector element and total, as a number (``nan`` and ``no_value`` kept as
missing values), its unit (v21 and later). Names are mapped to one canonical name so that a study mixing
gem5 versions has one column per statistic, the printed name kept beside (``SimFile.original``):

* v20 and earlier print ``sim_seconds``, ``sim_insts``, ... and snake_case statistic names; v21 renamed
  them (``simSeconds``, ``simInsts``, ``hostMemory``) and most others to camelCase: the table
  :data:`RENAMED` holds the top-level renamings, and any other snake_case last component is turned into
  camelCase (``overall_miss_rate::total`` -> ``overallMissRate::total``), as v21 did for most statistics;
* v23 regrouped a CPU's committed-instruction counts under ``commitStats0``: a CPU's ``committedInsts`` and
  ``committedOps`` are named ``commitStats0.numInsts`` and ``commitStats0.numOps``.

A dump without its end marker (the file ends inside it) is left out with a note; nothing of it is kept.
"""

from __future__ import annotations

import math
import re
from array import array

from modeling.errors import DataError
from modeling.tables.simulators.records import SimFile, SimRecord, WorkloadKey

BEGIN = "---------- Begin Simulation Statistics ----------"
END = "---------- End Simulation Statistics"
#: v20 name -> v21 name (the top-level statistics gem5 v21 renamed)
RENAMED = {
    "sim_seconds": "simSeconds", "sim_ticks": "simTicks", "final_tick": "finalTick", "sim_freq": "simFreq",
    "host_seconds": "hostSeconds", "host_tick_rate": "hostTickRate", "host_mem_usage": "hostMemory",
    "sim_insts": "simInsts", "sim_ops": "simOps", "host_inst_rate": "hostInstRate", "host_op_rate": "hostOpRate",
}
#: a CPU's statistic (last component) -> its v23 name under the CPU
REGROUPED = {"committedInsts": "commitStats0.numInsts", "committedOps": "commitStats0.numOps"}
_LINE = re.compile(r"^(\S+)\s+(\S+)(?:\s+(-?[\d.]+%|nan%?)\s+(-?[\d.]+%|nan%?))?\s*(?:#\s?(.*))?$")
#: printed name -> canonical name, kept across files (a study's files print the same names)
_CANONICAL: dict = {}
_CANONICAL_CACHE = 200_000
_UNIT = re.compile(r"\(([^()]*|\([^()]*\))\)\s*$")


def _camel(word: str) -> str:
    head, *rest = word.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest) if rest and head else word


def canonical(name: str) -> str:
    """The canonical name of a statistic gem5 printed as ``name`` (see the module's text)."""
    if name in RENAMED:
        return RENAMED[name]
    base, sep, element = name.partition("::")
    parts = base.split(".")
    last = parts[-1]
    if last in REGROUPED and len(parts) > 1 and re.search(r"cpu|core", parts[-2], re.IGNORECASE):
        parts[-1] = REGROUPED[last]
    elif "_" in last and last.lower() == last:
        parts[-1] = _camel(last)
    return ".".join(parts) + sep + element


def _value(text: str) -> float | None:
    try:
        v = float(text)
    except ValueError:
        return math.nan if text.lower() == "no_value" else None
    return math.nan if v != v else v  # nan, -nan: one missing value


def read_stats(lines, source: str, application: str, arguments: str, configuration: str) -> SimFile:
    """The dumps of a gem5 ``stats.txt`` given as an iterator of byte lines."""
    out = SimFile(source, "gem5-stats")
    in_dump = False
    current: dict = {}
    dumps = 0
    texts = 0
    unit_names: dict = {}
    n = 0

    def store():
        nonlocal dumps
        data = array("d", [math.nan]) * (max(current) + 1 if current else 0)
        for j, v in current.items():
            data[j] = v
        out.records.append(SimRecord(WorkloadKey(application, arguments, "", dumps), configuration, dumps, "",
                                     None, None, data, out, [],
                                     frozenset(j for j, v in current.items() if math.isnan(v))))
        dumps += 1

    canon = _CANONICAL
    for raw in lines:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        pieces = text.split("\n")
        if text.endswith("\n"):
            pieces.pop()  # a piece ends at a line's end: nothing follows its last one
        for s in pieces:
            n += 1
            s = s.strip()
            if not s:
                continue
            if s[0] == "-":
                if s.startswith(BEGIN):
                    if in_dump:
                        raise DataError(f"{source}, line {n}: a dump begins before the previous one ended. Nothing "
                                        "was imported from this file.")
                    in_dump, current = True, {}
                    continue
                if s.startswith(END):
                    if not in_dump:
                        raise DataError(f"{source}, line {n}: an end marker without its begin marker. Nothing was "
                                        "imported from this file.")
                    in_dump = False
                    store()
                    continue
            if not in_dump:
                continue
            # the common shapes, "name value" and "name value # description", without the regular expression
            # (which reads them the same); any other line (percentages, no "#" after the value) through it
            parts = s.split(None, 2)
            if len(parts) == 2:
                printed, text_value = parts
                description = None
            elif len(parts) == 3 and (parts[2] == "#" or (parts[2][0] == "#" and parts[2][1].isspace())):
                printed, text_value, description = parts[0], parts[1], parts[2][2:]
            else:
                m = _LINE.match(s)
                if not m:
                    continue
                printed, text_value, description = m.group(1), m.group(2), m.group(5)
            v = _value(text_value)
            if v is None:
                texts += 1
                continue
            name = canon.get(printed)
            if name is None:
                name = canonical(printed)
                if len(canon) < _CANONICAL_CACHE:
                    canon[printed] = name
            j = out.index(name)
            if name != printed:
                out.original.setdefault(name, printed)
            current[j] = v
            if name not in unit_names and description:
                u = _UNIT.search(description)
                unit_names[name] = u.group(1).strip("()") if u else ""
    if in_dump:
        out.notes.append(f"Left out: dump {dumps} (the file ends inside it, without its end marker).")
    if not out.records:
        why = "its only dump has no end marker" if in_dump else "it holds no dump (no 'Begin Simulation " \
                                                                  "Statistics' marker)"
        raise DataError(f"{source}: a gem5 stats.txt whose {why}. Nothing was imported from it.")
    # units: only v21 and later print them (v20 descriptions end in parenthesised words that are not units)
    if "simSeconds" in out._index and "simSeconds" not in out.original:
        out.units = {k: u for k, u in unit_names.items() if u}
    if all(math.isnan(v) for r in out.records for v in r.data):
        raise DataError(f"{source}: every statistic of every dump is nan. Nothing was imported from it.")
    if texts:
        out.notes.append(f"{texts} statistic line(s) with a value that is not a number were skipped.")
    if out.original:
        out.notes.append(f"{len(out.original)} statistic name(s) mapped to their current gem5 names (the printed "
                         "name is kept in original_names).")
    return out
