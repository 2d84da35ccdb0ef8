"""Accel-Sim's ``util/job_launching/get_stats.py`` output: one block per statistic, read into one record per
application (and kernel) and configuration.

What the script prints (``print_stat`` in the same folder's ``common.py``): for each statistic, a rule of
100 dashes followed by commas, the statistic's pattern (the regular expression of ``stats/*.yml``, e.g.
``gpu_tot_sim_cycle\\s*=\\s*(.*)``), then a header and rows:

* by default ``APPS,CONFIG1,CONFIG2,...`` and one row per ``app/args--final_kernel`` (the run's last
  cumulative values);
* with ``-k`` one row per ``app/args--KERNEL`` (a kernel name's launches added up), with ``-K`` per
  ``app/args--KERNEL--N`` (each launch, N counting from 0);
* with ``-R`` the table turned: ``CFG,app/args--KERNEL,...`` and one row per configuration;
* ``-A`` adds an ``AVG`` column (dropped here); ``NA`` is a value the run did not print.

A kernel name may hold commas (C++ templates): a row has as many values as the header has configurations,
so the leading cells are joined back into the name. The statistic's name is the pattern's leading literal
text (``gpu_tot_sim_cycle``; ``L2_cache_stats_breakdown[GLOBAL_ACC_R][HIT]``); the build lines
(``GPGPU-Sim-build``, ``Accel-Sim-build``) are text and are skipped.
"""

from __future__ import annotations

import math
import re
from array import array

from modeling.errors import DataError
from modeling.tables.simulators.records import SimFile, SimRecord, WorkloadKey, demangle, normalise_kernel

RULE = re.compile(r"^-{20,},*\s*$")


def stat_name(pattern: str) -> str:
    """A statistic's name from its ``get_stats.py`` pattern: the text before the first regex operator,
    escapes undone (``\\[`` -> ``[``)."""
    p = pattern.strip().rstrip(",")
    out, i = [], 0
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p):
            if p[i + 1] in "sdwSDW":
                break
            out.append(p[i + 1])
            i += 2
            continue
        if c in "(*+?{|^$.":
            break
        out.append(c)
        i += 1
    name = "".join(out).strip().rstrip("=").strip()
    return re.sub(r"\s+", "_", name) or p


def _row_label(label: str) -> tuple[str, str, str, int | None]:
    """``app/args--kernel[--N]`` -> application, arguments, kernel, instance."""
    head, _, rest = label.partition("--")
    app, _, args = head.partition("/")
    m = re.match(r"^(.*)--(\d+)$", rest)
    if m:
        return app, args, m.group(1), int(m.group(2))
    return app, args, rest, None


def _split(cells: list, n_values: int) -> tuple[str, list]:
    """A row's label (cells joined back when a kernel name held commas) and its values."""
    if n_values <= 0 or len(cells) <= n_values:
        return cells[0], cells[1:]
    return ",".join(cells[: len(cells) - n_values]), cells[len(cells) - n_values:]


def _number(cell: str) -> float | None:
    c = cell.strip()
    if c in ("", "NA"):
        return None
    if c.lower() in ("nan", "-nan"):
        return math.nan
    try:
        return float(c)
    except ValueError:
        return None


def read_blocks(lines, source: str) -> SimFile:
    """The records of a ``get_stats.py`` output given as an iterator of byte lines."""
    out = SimFile(source, "accelsim-getstats")
    # (label, configuration) -> {stat index: value}; kept in first-seen order
    table: dict = {}
    state = "outside"
    name = ""
    configs: list = []
    rows_as_configs = False
    blocks = 0
    skipped_text = set()
    n = 0
    for raw in lines:
        n += 1
        s = (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw).rstrip("\r\n")
        if not s.strip():
            continue
        if RULE.match(s):
            state = "pattern"
            continue
        if state == "pattern":
            name = stat_name(s)
            state = "header"
            continue
        if state == "header":
            cells = s.split(",")
            if cells[0] not in ("APPS", "CFG"):
                raise DataError(f"{source}, line {n}: a get_stats.py block's header starts with APPS or CFG, "
                                f"not {cells[0][:40]!r}. Nothing was imported from this file.")
            rows_as_configs = cells[0] == "CFG"
            configs = [c for c in cells[1:] if c != "AVG"] if not rows_as_configs else cells[1:]
            blocks += 1
            state = "rows"
            continue
        if state != "rows":
            continue
        cells = s.split(",")
        if rows_as_configs:
            # the header's labels may hold commas too: they were split alike; rebuild them from '--' marks
            labels = _labels(configs)
            values = cells[1:]
            if labels and labels[-1] == "AVG":
                labels, values = labels[:-1], values[: len(labels) - 1]
            for label, cell in zip(labels, values):
                _put(out, table, label, cells[0], name, cell, skipped_text)
        else:
            label, values = _split(cells, len(configs))
            for config, cell in zip(configs, values):
                _put(out, table, label, config, name, cell, skipped_text)
    if blocks == 0:
        raise DataError(f"{source}: no get_stats.py block (a rule of dashes, the pattern, then APPS or CFG). "
                        "Nothing was imported from it.")
    counts: dict = {}
    demangled = demangle([_row_label(label)[2] for label, _ in table])
    for i, ((label, config), vals) in enumerate(table.items()):
        app, args, kernel, instance = _row_label(label)
        kernel_key = "" if kernel == "final_kernel" else normalise_kernel(kernel, demangled)
        occ_key = (app, args, kernel_key, config)
        occurrence = instance if instance is not None else counts.get(occ_key, 0)
        counts[occ_key] = counts.get(occ_key, 0) + 1
        data = array("d")
        for j, v in vals.items():
            if j >= len(data):
                data.extend([math.nan] * (j + 1 - len(data)))
            data[j] = v
        notes = ["the run's last cumulative values (get_stats.py without -k)"] if kernel == "final_kernel" else []
        if kernel and kernel != "final_kernel" and instance is None:
            notes.append("a kernel name's launches added up (get_stats.py -k)")
        out.records.append(SimRecord(WorkloadKey(app, args, kernel_key, occurrence), config, i, kernel, None, None,
                                     data, out, notes, frozenset(j for j, v in vals.items() if math.isnan(v))))
    if skipped_text:
        out.notes.append(f"Text statistics skipped: {', '.join(sorted(skipped_text))}.")
    if not out.records:
        raise DataError(f"{source}: the get_stats.py blocks hold no numeric value. Nothing was imported from it.")
    return out


def _labels(cells: list) -> list:
    """Header labels of a -R block: cells that do not start an ``app/args--`` label belong to the one before."""
    labels: list = []
    for c in cells:
        if labels and "--" not in c and c != "AVG":
            labels[-1] += "," + c
        else:
            labels.append(c)
    return labels


def _put(out: SimFile, table: dict, label: str, config: str, name: str, cell: str, skipped: set) -> None:
    v = _number(cell)
    if v is None:
        if cell.strip() not in ("", "NA"):
            skipped.add(name)
        return
    j = out.index(name)
    table.setdefault((label.strip(), config.strip()), {})[j] = v
