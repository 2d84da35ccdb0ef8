"""One way to write numbers across the app: plain numbers, p-values, times, bytes, counts.

Python functions for text the server writes, and the same rules as AG Grid value formatters
(JavaScript, d3-format) for grid columns, so a number reads the same in a sentence and in a table.
"""

from __future__ import annotations

import math

from modeling.accelerators.advisor import fmt_bytes

_SI = [(1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")]


def number(v, digits: int = 4) -> str:
    """Significant digits, thousands separated, no exponent for ordinary sizes: 1,234.5; 0.01234; 3.6e-77."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    v = float(v)
    if v != 0 and (abs(v) < 1e-4 or abs(v) >= 1e15):
        return f"{v:.{max(digits - 1, 1)}e}".replace("e-0", "e-").replace("e+0", "e+")
    text = f"{v:,.{digits}g}" if abs(v) < 10 ** digits else f"{v:,.0f}"
    return text


def pvalue(p) -> str:
    """p-values in one style: three decimals from 0.001 up, else two significant digits with an exponent."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "–"
    p = float(p)
    return f"{p:.3f}" if p >= 1e-3 else f"{p:.1e}".replace("e-0", "e-")


def si(v, unit: str, digits: int = 3) -> str:
    """A measurement with an SI prefix: 8.21 µs, 1.23 M cycles, 512 ms."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "–"
    v = float(v)
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


def js_si(unit: str) -> str:
    """The :func:`si` rule as an AG Grid formatter (ternaries only: the grid's evaluator runs no regex)."""
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
    return {"field": field, "headerName": header, "type": "numericColumn", "filter": "agNumberColumnFilter",
            "valueFormatter": {"function": js_si(unit)}}


def message(exc: BaseException) -> str:
    """An exception's text as a sentence for the page: a ``KeyError``'s quotes (``str`` adds them) dropped."""
    return str(exc).strip("'\"")
