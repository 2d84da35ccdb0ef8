"""What profilers print around and inside their tables: text, numbers and units.

* The text: a profiler's CSV arrives inside whatever the run printed (``==PROF==`` / ``==1234==`` lines,
  the program's own output). :func:`profiler_text` decodes the bytes with the same rules as every upload
  (``modeling.tables.reading``: size, UTF-8 / UTF-16 with a byte-order mark, line endings, no NUL bytes);
  :func:`table_rows` finds the header line and returns the rows of the table that follows it.
* Numbers: ``1,234,567.5`` (thousands separators), ``1.234.567,5`` / ``117,3`` (a decimal comma: ncu on a
  European locale), ``n/a``, ``15.5%``, ``1.1655GB/s``, ``Low (1)`` (nvprof's utilization levels). The
  decimal mark is decided once per file (:func:`decimal_mark`), since ``1,024`` alone cannot tell; dots that
  only group thousands (``1.234.567``) mean a European locale too, and an all-integer file whose only dotted
  numbers look like ``45.056`` is read with a decimal point and noted (it may be 45056).
* Units: every metric gets one unit (:func:`to_base`): times in seconds, sizes in bytes (also per block:
  ``Kbyte/block`` -> ``byte/block``), throughputs in bytes per second, frequencies in hertz; ``%``, ``inst``,
  ``cycle`` and other counts stay as printed.
"""

from __future__ import annotations

import csv
import io
import math
import re

from modeling.errors import DataError
from modeling.tables.reading import MAX_CELLS, MAX_COLUMNS, MAX_ROWS, check_cells, decoded_text

#: unit as printed (lower case) -> (base unit, factor to the base unit)
UNITS = {
    "nsecond": ("s", 1e-9), "ns": ("s", 1e-9), "usecond": ("s", 1e-6), "us": ("s", 1e-6),
    "msecond": ("s", 1e-3), "ms": ("s", 1e-3), "second": ("s", 1.0), "s": ("s", 1.0),
    "byte": ("byte", 1.0), "b": ("byte", 1.0), "kbyte": ("byte", 1e3), "kb": ("byte", 1e3),
    "mbyte": ("byte", 1e6), "mb": ("byte", 1e6), "gbyte": ("byte", 1e9), "gb": ("byte", 1e9),
    "tbyte": ("byte", 1e12), "tb": ("byte", 1e12),
    "byte/second": ("byte/s", 1.0), "b/s": ("byte/s", 1.0), "kbyte/second": ("byte/s", 1e3),
    "kb/s": ("byte/s", 1e3), "mbyte/second": ("byte/s", 1e6), "mb/s": ("byte/s", 1e6),
    "gbyte/second": ("byte/s", 1e9), "gb/s": ("byte/s", 1e9), "tbyte/second": ("byte/s", 1e12),
    "tb/s": ("byte/s", 1e12),
    "hz": ("Hz", 1.0), "khz": ("Hz", 1e3), "mhz": ("Hz", 1e6), "ghz": ("Hz", 1e9),
    "cycle/second": ("Hz", 1.0), "cycle/msecond": ("Hz", 1e3), "cycle/usecond": ("Hz", 1e6),
    "cycle/nsecond": ("Hz", 1e9),
}
_NA = {"", "n/a", "na", "nan", "-", "null", "none", "<overflow>"}  # nvprof: <OVERFLOW> for a counter that wrapped
_LEVEL = re.compile(r"^[A-Za-z ]+\((\d+)\)$")  # nvprof utilization levels: "Idle (0)" .. "Max (10)"
_SUFFIX = re.compile(r"^([+-]?[0-9.,]+(?:[eE][+-]?\d+)?)\s*([A-Za-z%/]+)$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_DEC_COMMA = re.compile(r"^[+-]?(\d{1,3}(\.\d{3})+,\d+|\d+,(\d{1,2}|\d{4,}))$")
#: dots that can only group thousands (``1.234.567``): a European locale, certain
_DOT_GROUPS = re.compile(r"^[+-]?\d{1,3}(\.\d{3}){2,}$")
#: one dot before three digits (``45.056``): a decimal point, or a European locale's thousands
_ONE_DOT_GROUP = re.compile(r"^[+-]?[1-9]\d{0,2}\.\d{3}$")
#: numbers only a decimal point prints: ``0.5``, ``117.35``, ``0.123``, ``1234.5``, ``1,234.5``, an exponent, or
#: ``3072`` ungrouped (a locale that groups thousands with dots groups every number from 1000 up)
_POINT = re.compile(r"^[+-]?(\d*\.(\d{1,2}|\d{4,})|0\.\d+|\d{4,}(\.\d+)?|\d{1,3}(,\d{3})+\.\d+"
                    r"|\d+(\.\d+)?[eE][+-]?\d+)$")


#: how each profiler's binary report becomes the CSV read here
_EXPORT = (" An Nsight Compute report exports as CSV with `ncu --import FILE.ncu-rep --csv > FILE.csv` (add"
           " `--page raw` for one row per launch); nvprof writes CSV when run with `--csv --log-file FILE.csv`;"
           " rocprof writes CSV itself.")


def profiler_text(raw: bytes) -> str:
    """The file's text, checked as every upload is (size, binary formats, encoding, NUL bytes)."""
    return decoded_text(raw, "a profiler's CSV output", nul_hint=_EXPORT)  # a report (.ncu-rep) is binary


def table_rows(text: str, header_starts: tuple, what: str, short_through: str | None = None
               ) -> tuple[str | None, list[list[str]]]:
    """``(note, rows)`` of the CSV table whose header line starts with one of ``header_starts``; lines before
    it (profiler messages, program output) are skipped, and so are ``==...==`` lines and blank lines after
    it. Rows of another length than the header end the table (the program printed after it) only when no
    row of the header's length follows; otherwise they are refused with their line number. ``note`` says how
    many lines after the table were not read, from which line (None when none).

    ``short_through``: a row that stops after this column (and before the header's last one) is padded with
    empty cells -- Nsight Compute 2025 ends a metric row after ``Metric Value`` (with a trailing comma) and
    prints the rule columns only on rule rows."""
    lines = text.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(header_starts)), None)
    if start is None:
        raise DataError(f"No {what} table found: no line starts with {header_starts[0]!r}.")
    check_cells(max(len(lines) - start - 1, 0), lines[start].count(",") + 1)
    kept = [(i + 1, ln) for i, ln in enumerate(lines[start:], start) if ln.strip() and not ln.startswith("==")]
    parsed, cells = [], 0
    try:
        for (n, _), r in zip(kept, csv.reader(io.StringIO("\n".join(ln for _, ln in kept)))):
            cells += len(r)
            if cells > MAX_CELLS:  # rows wider than the header: the shape checked above did not count them
                raise DataError(f"The {what} table's rows hold more than {MAX_CELLS:,} fields (line {n} has "
                                f"{len(r):,}); at most {MAX_CELLS:,} cells are accepted. Nothing was imported.")
            parsed.append((n, r))
    except csv.Error as exc:
        raise DataError(f"The {what} table is not readable CSV ({exc}).") from None
    header = [h.strip() for h in parsed[0][1]]
    least = header.index(short_through) + 1 if short_through in header else len(header)
    parsed = [(n, r + [""] * (len(header) - len(r)) if least <= len(r) < len(header) else r) for n, r in parsed]
    rows, note = [], None
    for j, (n, r) in enumerate(parsed[1:], 1):
        if len(r) != len(header):
            if all(len(r2) != len(header) for _, r2 in parsed[j:]):
                # the program's own output after the table, most likely: not read, and said
                note = (f"{len(parsed) - j} line(s) after the table, from line {n}, do not have its "
                        f"{len(header)} fields: not read")
                break
            raise DataError(f"Line {n} has {len(r)} fields but the {what} header (line {start + 1}) has "
                            f"{len(header)}. Nothing was imported.")
        rows.append(r)
    if not rows:
        raise DataError(f"The {what} table has a header but no rows.")
    return note, [header] + rows


def decimal_mark(values) -> tuple[bool, str | None]:
    """``(decimal comma, example)`` for a file's numbers, decided once per file.

    A decimal comma (``117,3``, ``1.234,5``) or dots that can only group thousands (``1.234.567``, an
    all-integer file printed in a European locale) make it a decimal-comma file; ``1,024`` alone reads as a
    thousands separator, as ncu prints it in an English locale. ``example`` is a number such as ``45.056`` when
    nothing else in the file tells whether its dot is a decimal point (read as one) or a European locale's
    thousands separator (1000 times larger); otherwise None."""
    texts = []
    for v in values:
        if isinstance(v, str):
            t = v.strip()
            m = _SUFFIX.match(t)
            texts.append((t, m.group(1) if m else t))
    if any(_DEC_COMMA.match(n) or _DOT_GROUPS.match(n) for _, n in texts):  # n: the number without its unit
        return True, None
    if any(_POINT.match(n) for _, n in texts):
        return False, None
    return False, next((t for t, n in texts if _ONE_DOT_GROUP.match(n)), None)


def number(text: str, comma_decimal: bool = False) -> tuple[float, str | None]:
    """``(value, unit printed after the number or None)``; NaN for ``n/a`` and empty cells.

    Raises DataError for text that is not a number (the caller names the metric)."""
    s = text.strip()
    if s.lower() in _NA:
        return math.nan, None
    m = _LEVEL.match(s)
    if m:
        return float(m.group(1)), "level"
    unit = None
    m = _SUFFIX.match(s)
    if m:
        s, unit = m.group(1), m.group(2)
    if comma_decimal:
        s = s.replace(".", "").replace(",", ".")
    else:
        s = s.replace(",", "")
    try:
        return float(s), unit
    except ValueError:
        raise DataError(f"{text[:40]!r} is not a number") from None


_TIMES = {u for u, (base, _) in UNITS.items() if base == "s"}


def to_base(value: float, unit: str | None) -> tuple[float, str]:
    """The value in its metric's base unit (see :data:`UNITS`); unknown units are kept as printed.

    A quantity per something that is not a time (ncu scales ``Static Shared Memory Per Block`` per launch:
    ``byte/block`` in one, ``Kbyte/block`` in another) converts by its numerator: ``Kbyte/block`` -> 1000
    ``byte/block``; per-second units are the entries of :data:`UNITS` (``Gbyte/second`` -> ``byte/s``)."""
    if not unit:
        return value, ""
    unit = unit.strip()
    base = UNITS.get(unit.lower())
    if base is None and "/" in unit:
        num, per = (part.strip() for part in unit.split("/", 1))
        got = UNITS.get(num.lower())
        if got is not None and per and per.lower() not in _TIMES:
            return value * got[1], f"{got[0]}/{per}"
    if base is None:
        return value, unit
    return value * base[1], base[0]


def metric_values(name: str, cells: list, printed_units: list, comma_decimal: bool) -> tuple[list, str, list]:
    """One metric's cells as numbers in one base unit: ``(values, unit, notes)``.

    ``printed_units`` holds the unit column's text per cell (or None); a unit printed after the number
    (nvprof: ``15.5%``, ``1.2GB/s``) is used where the column gives none. A metric printed in units that
    do not convert to one base (``byte`` in one launch, ``%`` in another) is refused, naming both.
    """
    values, units, n_na = [], set(), 0
    for cell, printed in zip(cells, printed_units):
        try:
            v, suffix = number(cell, comma_decimal)
        except DataError as exc:
            raise DataError(f"Metric {name!r}: {exc}. Nothing was imported.") from None
        if v != v:
            n_na += 1
            values.append(v)
            continue
        v, unit = to_base(v, printed or suffix)
        values.append(v)
        units.add(unit)
    if len(units) > 1:
        raise DataError(f"Metric {name!r} is printed in units that do not convert to one "
                        f"({', '.join(sorted(units))}). Nothing was imported.")
    notes = [f"{name}: {n_na} n/a value(s) kept empty"] if n_na else []
    return values, (units.pop() if units else ""), notes


def numeric_or_skip(name: str, cells: list, printed_units: list, comma_decimal: bool):
    """:func:`metric_values`, or None for a column of text only (a name, a cache configuration): such a
    column is not a metric. A column of numbers with some text in it is refused as before."""
    try:
        return metric_values(name, cells, printed_units, comma_decimal)
    except DataError:
        for c in cells:
            try:
                v, _ = number(c, comma_decimal)
            except DataError:
                continue
            if v == v:
                raise
        return None


COMMA_NOTE = "numbers read with a decimal comma (a European locale)"


def dot_note(example: str) -> str:
    """The note on a file whose dots may be a European locale's thousands separators (:func:`decimal_mark`)."""
    return (f"numbers such as {example[:40]!r} were read with a decimal point; if the file was printed in a "
            "European locale (dots separating thousands), such values are 1000 times larger: export it again "
            "with an English locale (LC_NUMERIC=C) to be sure")


def fill_metrics(records: list[dict], columns, comma_decimal: bool, on_text=None,
                 dot_example: str | None = None) -> tuple[dict, list]:
    """Write each metric column into ``records`` (``records[i][name]``, in its base unit); ``(units,
    notes)``.

    ``columns``: ``(name, cells, printed units)`` per column, a cell per record. A column of text only is
    not a metric: it is noted and handed to ``on_text(name, cells)`` (or left out). The decimal-comma note
    comes first when the file used one, and so does the note on an ambiguous dot (``dot_example``: the
    example :func:`decimal_mark` gave)."""
    units, notes = {}, []
    for name, cells, printed in columns:
        if name in RESERVED:
            notes.append(f"metric {name!r} renamed '{name} (metric)' (the name of a column of the table)")
            name = f"{name} (metric)"
        got = numeric_or_skip(name, cells, printed, comma_decimal)
        if got is None:
            notes.append(f"{name}: text, not a metric (not imported)")
            if on_text is not None:
                on_text(name, cells)
            continue
        vals, unit, more = got
        for rec, v in zip(records, vals):
            rec[name] = v
        units[name] = unit
        notes += more
    if comma_decimal:
        notes.insert(0, COMMA_NOTE)
    elif dot_example:
        notes.insert(0, dot_note(dot_example))
    return units, notes


#: names the launch and workload tables use for their own columns: a metric of one of these names is
#: renamed ("kernel (metric)") rather than overwriting them
RESERVED = {"launch", "kernel", "invocations", "workload", "application", "launches", "repeats_total",
            "repeats_outliers", "_weight", "_measure"}


def check_pivot(launches: int, metrics: int) -> None:
    """Refuse a long-layout file (a row per launch x metric) whose table, once pivoted to a row per launch, is
    over the upload budgets -- checked before it is built: a few KB of distinct launch ids and metric names
    make launches x metrics cells."""
    try:
        check_cells(launches, metrics)
    except DataError:
        raise DataError(f"The file holds {launches:,} launches x {metrics:,} metrics = {launches * metrics:,} cells "
                        f"once pivoted to a row per launch; at most {MAX_ROWS:,} launches, {MAX_COLUMNS:,} metrics "
                        f"and {MAX_CELLS:,} cells are accepted. Nothing was imported.") from None
