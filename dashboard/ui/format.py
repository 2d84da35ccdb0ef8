"""One way to write numbers across the app: plain numbers, p-values, times, bytes, counts.

Python functions for text the server writes, and the same rules as AG Grid value formatters
(JavaScript, d3-format) for grid columns, so a number reads the same in a sentence and in a table.
"""

from __future__ import annotations

import math

from modeling.accelerators.advisor import fmt_bytes
from modeling.results import number  # noqa: F401 - one rule for numbers in sentences, here for the pages

_SI = [(1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


def pvalue(p) -> str:
    """p-values in one style: three decimals from 0.001 up, else two significant digits with an exponent."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    p = float(p)
    return f"{p:.3f}" if p >= 1e-3 else f"{p:.1e}".replace("e-0", "e-")


#: Units an SI prefix is put in front of. Any other unit (one a user typed, e.g. "ms", "GHz", "nsecond")
#: may carry a prefix already or not take one: its values are written as plain numbers ("1,500 ms", never
#: "1.5 kms"); and no unit at all gets no prefix either (a bare "µ" would read as a unit).
PREFIXED_UNITS = frozenset({"s", "cycles", "J", "W", "Wh", "Hz", "B", "V", "A", "FLOP", "flop"})


def unit_text(unit: str | None) -> str:
    """A unit as a label says it: the unit, or "no unit given" (never an invented one)."""
    return unit or "no unit given"


def with_unit(label: str, unit: str | None) -> str:
    """A column or axis heading with its unit in brackets, or the label alone when there is no unit."""
    return f"{label} ({unit})" if unit else label


def si(v, unit: str, digits: int = 3) -> str:
    """A measurement with an SI prefix: 8.21 µs, 1.23 Mcycles, 512 ms; a unit outside
    :data:`PREFIXED_UNITS` (or none) keeps the plain number: 1,500 ms, 0.153."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    v = float(v)
    if unit not in PREFIXED_UNITS:
        return f"{number(v, digits)} {unit or ''}".strip()
    if v == 0:
        return f"0 {unit}".strip()
    for scale, prefix in _SI:
        if abs(v) >= scale * 0.9995:
            return f"{v / scale:.{digits}g} {prefix}{unit}".strip()
    return f"{v:.{digits}g} {unit}".strip()


def integer(v) -> str:
    return f"{int(v):,}"


def nbytes(v) -> str:
    """Bytes in binary units, as the LogCA advisor writes them: 9.83 KiB."""
    return fmt_bytes(v)


# ------------------------------------------------------------------ the same rules for AG Grid columns
JS_NULL = "params.value == null ? '–' : "
JS_PVALUE = JS_NULL + "(params.value >= 1e-3 ? d3.format('.3f')(params.value) : d3.format('.1e')(params.value))"


def _js_text(text: str) -> str:
    """``text`` as a single-quoted string of a grid formatter (a unit is checked on upload; this holds anyway)."""
    return "'" + "".join(ch if ch.isalnum() or ch in " .%/*^·°_()-" else f"\\u{ord(ch):04x}"
                         for ch in text if ord(ch) < 0x10000) + "'"


def js_number(digits: int = 3) -> str:
    """The :func:`number` rule as an AG Grid formatter expression of ``params.value`` (not null)."""
    v = "(params.value < 0 ? -params.value : params.value)"
    return (f"({v} != 0 && ({v} < 1e-4 || {v} >= 1e15) ? d3.format('.{max(digits - 1, 1)}e')(params.value) : "
            f"({v} < {10 ** digits} ? d3.format(',.{digits}~g')(params.value) : d3.format(',.0f')(params.value)))")


def js_si(unit: str) -> str:
    """The :func:`si` rule as an AG Grid formatter (ternaries only: the grid's evaluator runs no regex)."""
    if unit not in PREFIXED_UNITS:
        return JS_NULL + js_number(3) + (f" + ' ' + {_js_text(unit)}" if unit else "")
    v = "(params.value < 0 ? -params.value : params.value)"
    chain = "d3.format('.3~g')(params.value) + ' '"
    for scale, prefix in reversed(_SI):
        if scale == 1.0:
            cond = f"{v} >= 0.9995"
        else:
            cond = f"{v} >= {scale * 0.9995:g}"
        chain = f"({cond} ? d3.format('.3~g')(params.value / {scale:g}) + ' {prefix}' : {chain})"
    return JS_NULL + f"(params.value == 0 ? '0 ' : {chain}) + '{unit}'"


def pvalue_col(field: str, header: str) -> dict:
    return {"field": field, "headerName": header, "type": "numericColumn", "filter": "agNumberColumnFilter",
            "valueFormatter": {"function": JS_PVALUE}}


def si_col(field: str, header: str, unit: str) -> dict:
    """A column of numbers in ``unit`` shown with an SI prefix ("99.5 ms"); the cells hold the numbers and the
    header names the unit ("host (s)"), so the grid's CSV export has numbers under a header with their unit."""
    header = f"{header} ({unit})" if unit else header
    return {"field": field, "headerName": header, "type": "numericColumn", "filter": "agNumberColumnFilter",
            "valueFormatter": {"function": js_si(unit)}}


def message(exc: BaseException) -> str:
    """An exception's text as a sentence for the page: a ``KeyError``'s quotes (``str`` adds them) dropped."""
    return str(exc).strip("'\"")
