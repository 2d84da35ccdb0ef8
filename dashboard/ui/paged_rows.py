"""A table's rows a page at a time, sorted and filtered on the server (no Dash).

A result of thousands of rows (a /predict link of 6,000 predictions) does not go to the browser whole: the
grid (:func:`dashboard.ui.paged_grid.paged_grid`, AG Grid's infinite row model) asks for the rows it shows,
``{"startRow", "endRow", "sortModel", "filterModel"}``, and the server answers with those rows of the whole
table sorted and filtered as asked, and how many rows match. Every part of the request comes from the browser
and is checked here (:func:`checked`): a forged one is refused with a sentence, never half used.

Sorting and filtering follow AG Grid's own (client-side) rules for the filters the grids offer: text
(contains, equals, starts with, ..., case-insensitive) and number (equals, less than, in range, blank, ...),
one or more conditions joined by AND/OR; a sort puts empty cells first in ascending order."""

from __future__ import annotations

import math
from dataclasses import dataclass

from dashboard.ui.url_state import InvalidParameter

#: the most rows one request may ask for (AG Grid asks for a block of ``BLOCK`` rows at a time)
BLOCK = 100
MAX_ROWS = 1000
TEXT_TYPES = frozenset({"contains", "notContains", "equals", "notEqual", "startsWith", "endsWith", "blank",
                        "notBlank"})
NUMBER_TYPES = frozenset({"equals", "notEqual", "lessThan", "lessThanOrEqual", "greaterThan",
                          "greaterThanOrEqual", "inRange", "blank", "notBlank"})
MAX_CONDITIONS = 10
MAX_TEXT = 1000


@dataclass(frozen=True)
class Request:
    """A checked request: rows ``start`` to ``end`` (end not included) of the table sorted by ``sort``
    (``(field, descending)`` pairs, the first the main key) and filtered by ``filters`` (field -> spec)."""
    start: int
    end: int
    sort: tuple = ()
    filters: tuple = ()


def _int(v, what) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
        raise InvalidParameter("rows", f"{what} is not a whole number")
    return int(v)


def _number(v, what) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise InvalidParameter("rows", f"the filter's {what} is not a number")
    return float(v)


def _condition(spec, kind: str) -> dict:
    if not isinstance(spec, dict):
        raise InvalidParameter("rows", "a filter condition is not an object")
    typ = spec.get("type")
    types = TEXT_TYPES if kind == "text" else NUMBER_TYPES
    if not isinstance(typ, str) or typ not in types:
        raise InvalidParameter("rows", f"unknown {kind} filter {str(typ)[:40]!r}")
    out = {"type": typ}
    if typ in ("blank", "notBlank"):
        return out
    if kind == "text":
        v = spec.get("filter")
        if not isinstance(v, str) or len(v) > MAX_TEXT:
            raise InvalidParameter("rows", "a text filter's value is not text (or is too long)")
        out["filter"] = v.lower()
    else:
        out["filter"] = _number(spec.get("filter"), "value")
        if typ == "inRange":
            out["filterTo"] = _number(spec.get("filterTo"), "upper value")
    return out


def _filter(field: str, spec, kinds: dict) -> tuple:
    kind = kinds[field]
    if not isinstance(spec, dict) or spec.get("filterType", kind) != kind:
        raise InvalidParameter("rows", f"the filter of {field!r} is not a {kind} filter")
    if "conditions" in spec:
        conds = spec["conditions"]
        op = spec.get("operator")
        if not isinstance(conds, list) or not 1 <= len(conds) <= MAX_CONDITIONS or op not in ("AND", "OR"):
            raise InvalidParameter("rows", f"the filter of {field!r} has no valid conditions")
        return field, kind, op, tuple(tuple(sorted(_condition(c, kind).items())) for c in conds)
    return field, kind, "AND", (tuple(sorted(_condition(spec, kind).items())),)


def checked(request, kinds: dict) -> Request:
    """The browser's request as a :class:`Request`; ``kinds``: each column's field -> "text" or "number" (the
    only fields one may sort or filter by). Raises :class:`InvalidParameter` for anything else."""
    if not isinstance(request, dict):
        raise InvalidParameter("rows", "the request for rows is not an object")
    start = _int(request.get("startRow", 0), "the first row")
    end = _int(request.get("endRow", start + BLOCK), "the last row")
    if start < 0 or end <= start or end - start > MAX_ROWS:
        raise InvalidParameter("rows", f"rows {start} to {end}: at most {MAX_ROWS} rows from row 0 on")
    sort_model = request.get("sortModel")
    sort_model = [] if sort_model is None else sort_model
    if not isinstance(sort_model, list) or len(sort_model) > len(kinds):
        raise InvalidParameter("rows", "the sort is not a list of columns")
    sort = []
    for s in sort_model:
        if not isinstance(s, dict) or not isinstance(s.get("colId"), str) or s["colId"] not in kinds \
                or s.get("sort") not in ("asc", "desc"):
            raise InvalidParameter("rows", "a sort names no column of the table, or no direction")
        sort.append((s["colId"], s["sort"] == "desc"))
    filter_model = request.get("filterModel")
    filter_model = {} if filter_model is None else filter_model
    if not isinstance(filter_model, dict):
        raise InvalidParameter("rows", "the filter is not an object")
    filters = []
    for field, spec in filter_model.items():
        if field not in kinds:
            raise InvalidParameter("rows", "a filter names no column of the table")
        filters.append(_filter(field, spec, kinds))
    return Request(start, end, tuple(sort), tuple(sorted(filters)))


def _blank(v) -> bool:
    return v is None or v == "" or (isinstance(v, float) and math.isnan(v))


def _text_ok(v, c: dict) -> bool:
    typ = c["type"]
    if typ == "blank":
        return _blank(v)
    if typ == "notBlank":
        return not _blank(v)
    s, f = ("" if _blank(v) else str(v)).lower(), c["filter"]
    return {"contains": f in s, "notContains": f not in s, "equals": s == f, "notEqual": s != f,
            "startsWith": s.startswith(f), "endsWith": s.endswith(f)}[typ]


def _number_ok(v, c: dict) -> bool:
    typ = c["type"]
    if typ == "blank":
        return _blank(v)
    if typ == "notBlank":
        return not _blank(v)
    if _blank(v):
        return False
    f = c["filter"]
    if typ == "inRange":  # AG Grid's default: both ends excluded
        lo, hi = sorted((f, c["filterTo"]))
        return lo < v < hi
    return {"equals": v == f, "notEqual": v != f, "lessThan": v < f, "lessThanOrEqual": v <= f,
            "greaterThan": v > f, "greaterThanOrEqual": v >= f}[typ]


def _keep(row: dict, filters) -> bool:
    for field, kind, op, conds in filters:
        ok = _text_ok if kind == "text" else _number_ok
        hits = (ok(row.get(field), dict(c)) for c in conds)
        if not (all(hits) if op == "AND" else any(hits)):
            return False
    return True


def view(rows: list[dict], req: Request) -> list[dict]:
    """Every row of ``rows`` that passes the filters, in the requested order (the table's own order where the
    sort leaves a tie, as AG Grid's stable sort does)."""
    out = [r for r in rows if _keep(r, req.filters)] if req.filters else list(rows)
    for field, desc in reversed(req.sort):
        blank = [r for r in out if _blank(r.get(field))]
        full = sorted((r for r in out if not _blank(r.get(field))), key=lambda r: r[field], reverse=desc)
        out = full + blank if desc else blank + full
    return out


def page(rows: list[dict], req: Request) -> tuple[list[dict], int]:
    """The rows ``req`` asks for and how many rows match its filters."""
    v = view(rows, req)
    return v[req.start:req.end], len(v)
