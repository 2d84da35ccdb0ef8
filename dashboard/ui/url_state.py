"""Query string <-> typed, validated page parameters.

Each page declares its parameters as a list of ``Param`` objects; ``parse``
turns a query dict (from ``layout(**query)`` or from callback values, which a
client can forge just as easily) into typed values, and raises
``InvalidParameter`` naming the first bad one. ``to_query`` writes them back.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode
from dashboard.ui.format import message


class InvalidParameter(ValueError):
    def __init__(self, name: str, why: str):
        super().__init__(f"invalid parameter {name}: {why}")
        self.name = name


class Refused(InvalidParameter):
    """Inputs that parse but cannot be computed: the message (without the "invalid parameter" prefix) says why
    and what to do; ``name`` is the field to change."""

    def __init__(self, name: str, text: str):
        ValueError.__init__(self, text)
        self.name = name


@dataclass
class Param:
    name: str
    kind: str  # "choice" | "multi" | "int" | "float"
    default: object = None
    options: object = None  # list, or callable(values_so_far) -> list, for choice/multi
    lo: float | None = None
    hi: float | None = None

    def allowed(self, values: dict) -> list:
        opts = self.options(values) if callable(self.options) else self.options
        return list(opts or [])

    def parse(self, raw, values: dict):
        if raw is None or raw == "" or raw == []:
            default = self.default(values) if callable(self.default) else self.default
            if default is None and self.kind != "multi":
                raise InvalidParameter(self.name, "missing")
            return default
        if self.kind == "choice":
            if not isinstance(raw, (str, int)) or isinstance(raw, bool):
                raise InvalidParameter(self.name, f"expected one value, got {type(raw).__name__}")
            allowed = self.allowed(values)
            if str(raw) not in [str(a) for a in allowed]:
                return self._bad(raw, allowed)
            return next(a for a in allowed if str(a) == str(raw))
        if self.kind == "multi":
            items = raw.split(",") if isinstance(raw, str) else raw
            if not isinstance(items, (list, tuple)):
                raise InvalidParameter(self.name, "expected a list")
            allowed = self.allowed(values)
            out = []
            for it in items:
                if not isinstance(it, str) or it not in allowed:
                    return self._bad(it, allowed)
                if it not in out:
                    out.append(it)
            return out
        try:
            val = int(raw) if self.kind == "int" else float(raw)
            if self.kind == "int" and isinstance(raw, float) and raw != int(raw):
                raise ValueError
        except (TypeError, ValueError, OverflowError):
            what = "an integer" if self.kind == "int" else "a number"
            raise InvalidParameter(self.name, f"{str(raw)[:40]!r} is not {what}") from None
        if val != val or (self.lo is not None and val < self.lo) or (self.hi is not None and val > self.hi):
            raise InvalidParameter(self.name, f"{_plain(val)} is outside {_plain(self.lo)} … {_plain(self.hi)}")
        return val

    def _bad(self, raw, allowed):
        shown = ", ".join(map(str, allowed[:12])) + (" …" if len(allowed) > 12 else "")
        raise InvalidParameter(self.name, f"{str(raw)[:60]!r} is not one of: {shown}")


@dataclass
class StoredParam(Param):
    """The built-in item (``default``) or the id of something the server stored; ``lookup(id)`` raises
    ``LookupError`` for an id it does not know (a forged or deleted one)."""

    lookup: object = None  # callable(id)
    what: str = "id"

    def parse(self, raw, values):
        raw = raw or self.default
        if not isinstance(raw, str):
            raise InvalidParameter(self.name, f"expected a {self.what}")
        if raw != self.default:
            self.lookup(raw)
        return raw


def _plain(v) -> str:
    """A bound as a person writes it: 2,147,483,647, not 2.14748e+09."""
    if v is None:
        return "…"
    return f"{int(v):,}" if float(v) == int(v) and abs(v) < 1e15 else f"{v:,.6g}"


#: parameters of a link that no page reads: ``project`` names the project a share link belongs to, handled by
#: the server before the page is laid out (dashboard/access/projects.py ``open_share_link``), never a job input
LINK_ONLY = frozenset({"project"})


def parse(query: dict, params: list[Param]) -> dict:
    """Validate ``query`` against ``params`` in order (later options may depend on earlier values); the
    link-only parameters (:data:`LINK_ONLY`) are left out."""
    query = {k: v for k, v in query.items() if k not in LINK_ONLY}
    known = {p.name for p in params}
    unknown = [k for k in query if k not in known]
    if unknown:
        raise InvalidParameter(unknown[0], "unknown parameter")
    values: dict = {}
    for p in params:
        values[p.name] = p.parse(query.get(p.name), values)
    return values


def to_query(values: dict) -> str:
    flat = {k: (",".join(v) if isinstance(v, (list, tuple)) else v) for k, v in values.items() if v is not None}
    return "?" + urlencode(flat)


def parse_or_default(query: dict, params: list[Param]) -> tuple[dict, str | None]:
    """Values of a page's link, or its defaults plus the message saying what was wrong."""
    try:
        return parse(query, params), None
    except (InvalidParameter, LookupError) as exc:
        return parse({}, params), message(exc)


def render_parsed(values: dict, specs, draw, refuse):
    """A page's redraw from its fields: ``draw(parsed values, start time)`` once ``values`` parse against
    ``specs``, else ``refuse(the error)`` (a bad field, an unknown stored item, a model that refuses the
    values). ``draw`` is given the moment the redraw started, for the page's "computed in" line."""
    import time

    from modeling.errors import ModelingError

    start = time.perf_counter()
    try:
        parsed = parse(values, specs)
    except (InvalidParameter, LookupError, ModelingError) as exc:
        return refuse(exc)
    return draw(parsed, start)
