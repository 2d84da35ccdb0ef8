"""The result contract: every evaluation and prediction is a typed :class:`Result` (a dataclass), stored and carried
as plain JSON with its type's tag, and read back as the same type.

* A subclass is registered under its class name, its *tag*, when it is created; two result types with one name
  are refused (the tag would be ambiguous).
* :meth:`Result.to_dict` is plain JSON: the tag under :data:`TAG`, the fields by name, nested results as their
  own tagged dicts, numpy arrays and scalars as lists and numbers, tuples as lists (NaN stays NaN: Python's
  json reads and writes it). A field declared with ``metadata=TRANSIENT`` is a working value of the process
  that computed it and is not stored.
* :meth:`Result.from_dict` revives the type a dict's tag names (and every nested tagged dict); fields it does
  not know are ignored and fields the dict lacks take their defaults, so a result stored by an older or newer
  version of a type still reads. Fields declared as ``np.ndarray`` come back as float arrays, tuples as tuples.
  An unknown tag is a :class:`ResultError`; nothing is ever unpickled.
* Statistics derived from the fields (the best model, medians, shares) are properties of the result, so every
  reader (the pages, the reports, the command line) reads the same number.

:func:`dumps` and :func:`loads` are the JSON text of results and of any plain value around them: the dashboard's
job codec (``dashboard/jobs/codec.py``) compresses it for both job backends, and a saved prediction's
``result.json`` is it, so a result reads back typed wherever it was kept.

One summary per result: a result's ``summary()`` is a :class:`Summary`, what it says about itself once, in order,
rendered three ways by three small renderers: as the command line's text (:meth:`Summary.as_text`, here), as the
HTML report's facts and sections (``dashboard/ui/summary_report.py``) and as a card on its page
(``dashboard/ui/summary_card.py``). It holds the headline :class:`Fact` s (label and value), the :class:`Note` s
(what the reader must not miss: a warning, a verdict), the details (a labelled sentence each: "Error: ..."), the
tables (:class:`SummaryTable`: a DataFrame with its caption and column headings) and the provenance
(:class:`Provenance` and its sentence). The renderers never compute, so the command line, the page and the report
say the same facts with the same labels in the same order. (The layout follows statsmodels' ``Summary``: one
object of facts, tables and notes with a text and an HTML form.)
"""

from __future__ import annotations

import dataclasses
import json
import math
from datetime import UTC, datetime
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from modeling.errors import DataError

if TYPE_CHECKING:
    import pandas as pd

#: the reserved key of a stored result's type (a name no data field uses)
TAG = "__result__"
#: ``field(metadata=TRANSIENT)``: a working value that is not stored (it reads back as its default)
TRANSIENT = {"stored": False}

_TYPES: dict[str, type] = {}


class ResultError(DataError):
    """A stored result that cannot be read as a result (an unknown type, a missing field)."""


def _plain(v):
    if isinstance(v, Result):
        return v.to_dict()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    return v


def _nested(v):
    """``v`` with every tagged dict inside it revived (already revived results stay as they are)."""
    if isinstance(v, dict):
        return revive(v) if TAG in v else {k: _nested(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_nested(x) for x in v]
    return v


def _as_declared(f: dataclasses.Field, v):
    """A stored value as its field declares it: an ``np.ndarray`` field as a float array, a tuple as a tuple."""
    if v is None:
        return v
    declared = str(f.type)
    if "ndarray" in declared and isinstance(v, list):
        return np.asarray(v, dtype=float)
    if declared.startswith("tuple") and isinstance(v, list):
        return tuple(v)
    return v


class Result:
    """Base of the typed results (subclasses are dataclasses); see the module docstring."""

    tag: ClassVar[str]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        tag = cls.__name__
        old = _TYPES.get(tag)
        if old is not None and (old.__module__, old.__qualname__) != (cls.__module__, cls.__qualname__):
            raise TypeError(f"two result types named {tag!r} ({old.__module__} and {cls.__module__}): a stored "
                            "result's tag must name one type")
        cls.tag = tag
        _TYPES[tag] = cls

    def to_dict(self) -> dict:
        """Plain JSON: the tag, then every stored field (nested results as tagged dicts)."""
        out = {TAG: self.tag}
        for f in dataclasses.fields(self):
            if f.metadata.get("stored", True):
                out[f.name] = _plain(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, d: dict):
        """The result a :meth:`to_dict` dict describes, of the type its tag names (which must be ``cls`` or a
        subclass of it)."""
        if not isinstance(d, dict) or not isinstance(d.get(TAG), str):
            raise ResultError(f"not a stored result (no {TAG!r} tag)")
        typ = _TYPES.get(d[TAG])
        if typ is None:
            raise ResultError(f"unknown result type {d[TAG][:60]!r}: not a result this version of perfcast reads")
        if not issubclass(typ, cls):
            raise ResultError(f"a stored {typ.tag} where a {cls.__name__} was expected")
        values = {}
        for f in dataclasses.fields(typ):
            if not f.init:
                continue
            if f.name in d and f.metadata.get("stored", True):
                values[f.name] = _as_declared(f, _nested(d[f.name]))
            elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ResultError(f"a stored {typ.tag} without its field {f.name!r}")
        return typ(**values)

    def to_frame(self):
        """The result as a table (pandas DataFrame), for results that are one; others raise TypeError."""
        raise TypeError(f"a {self.tag} is not a table")


def revive(d: dict):
    """``json.loads``'s ``object_hook``: a tagged dict as its result (its nested results, read first by json,
    are already revived), any other dict as it is."""
    return Result.from_dict(d) if TAG in d else d


def json_default(o):
    """``json.dumps``'s ``default``: typed results as their tagged dicts, numpy arrays and scalars as lists and
    numbers."""
    if isinstance(o, Result):
        return o.to_dict()
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"{type(o).__name__} is not JSON")


def dumps(value) -> str:
    """``value`` as JSON text: typed results tagged, numpy as lists and numbers, NaN as ``NaN``."""
    return json.dumps(value, default=json_default, separators=(",", ":"))


def loads(text):
    """The value of :func:`dumps`'s text: tagged dicts revived as their result types, other dicts as dicts."""
    return json.loads(text, object_hook=revive)


def result_types() -> dict[str, type]:
    """Every registered result type by tag (a copy)."""
    return dict(_TYPES)


@dataclasses.dataclass(frozen=True)
class Provenance(Result):
    """What computed a result: the job kind and its validated parameters, the data (its id, name and
    fingerprint), the code version (:func:`modeling.version.code_version`) and when. Stamped once, by the job
    runner, on every result that has a ``provenance`` field."""

    kind: str
    params: dict
    dataset: str | None
    dataset_name: str | None
    fingerprint: str | None
    code_version: str
    date: str
    seconds: float | None = None  # how long the computation took

    @classmethod
    def now(cls, kind: str, params: dict, dataset=None, dataset_name=None, fingerprint=None,
            seconds: float | None = None) -> Provenance:
        from modeling.version import code_version

        return cls(kind, dict(params), dataset, dataset_name, fingerprint, code_version(),
                   datetime.now(UTC).isoformat(timespec="seconds"), seconds)

    def columns(self, data: str = "dataset") -> dict:
        """The provenance columns of an exported table: ``<data>``, ``<data>_fingerprint``, code version, date."""
        return {data: self.dataset, f"{data}_fingerprint": self.fingerprint, "code_version": self.code_version,
                "date": self.date}

    def text(self, data: str = "dataset") -> str:
        """One sentence for a page or a report: the data, the code version, when and in how long."""
        took = "" if self.seconds is None or not math.isfinite(self.seconds) else f" in {self.seconds:.1f} s"
        mark = "" if self.fingerprint is None else f", fingerprint {str(self.fingerprint)[:16]}"
        return (f"Provenance: {data} {self.dataset_name} ({self.dataset}{mark}); code version {self.code_version}; "
                f"computed {self.date}{took}.")


def stamped(result, provenance: Provenance):
    """``result`` with ``provenance`` when it is a result with a ``provenance`` field (and none yet); anything
    else as it is."""
    if (isinstance(result, Result) and dataclasses.is_dataclass(result)
            and any(f.name == "provenance" for f in dataclasses.fields(result))
            and result.provenance is None):
        return dataclasses.replace(result, provenance=provenance)
    return result


# ------------------------------------------------------------------ the summary of a result

def number(v, digits: int = 4) -> str:
    """Significant digits, thousands separated, no exponent for ordinary sizes: 1,234.5; 0.01234; 3.6e-77."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    v = float(v)
    if v != 0 and (abs(v) < 1e-4 or abs(v) >= 1e15):
        return f"{v:.{max(digits - 1, 1)}e}".replace("e-0", "e-").replace("e+0", "e+")
    text = f"{v:,.{digits}g}" if abs(v) < 10 ** digits else f"{v:,.0f}"
    return text


@dataclasses.dataclass(frozen=True)
class Fact:
    """One labelled fact. ``value`` is its text as shown ("" when the result has none: the card leaves the fact
    out, the report and the text show "–"); ``unit`` follows the value; ``note`` is a longer sentence a reader may
    open; ``key`` names it for a page (the element's id) and for tests."""

    label: str
    value: str
    unit: str = ""
    note: str = ""
    key: str = ""

    @property
    def text(self) -> str:
        """The value with its unit, "–" when there is none."""
        if not self.value:
            return "–"
        return f"{self.value} {self.unit}" if self.unit else self.value


@dataclasses.dataclass(frozen=True)
class Note:
    """A sentence the reader must not miss. ``level``: "warning" or "info"; ``head``: its first words, said
    strongly (a page's bold lead-in); ``key``: its name on a page."""

    text: str
    level: str = "warning"
    head: str = ""
    key: str = ""

    @property
    def sentence(self) -> str:
        return f"{self.head}{self.text}"


@dataclasses.dataclass(frozen=True)
class SummaryTable:
    """A table of a summary: ``frame``'s rows under ``columns`` ((field, heading) in the order shown; fields not
    named are not shown), the number of decimals of a numeric column in ``decimals`` (the page's grid), its
    caption, its ``key`` (its name on a page) and the significant ``digits`` of a number in a report."""

    caption: str
    frame: pd.DataFrame
    columns: tuple[tuple[str, str], ...]
    decimals: dict = dataclasses.field(default_factory=dict)
    key: str = ""
    digits: int = 4  # significant digits of a number in a report
    text_decimals: bool = False  # the command line's text too shows a number with its column's ``decimals``

    def records(self) -> list[dict]:
        """The rows as dicts, missing values as None (JSON has no NaN)."""
        frame = self.frame.astype(object).where(self.frame.notna(), None)
        return frame.to_dict("records")


@dataclasses.dataclass(frozen=True)
class Summary:
    """What a result says about itself (see the module docstring). ``lead`` is the sentence that says what the
    numbers mean; ``details`` are labelled sentences (a :class:`Fact` each, its value the sentence)."""

    title: str
    facts: tuple[Fact, ...]
    lead: str = ""
    notes: tuple[Note, ...] = ()
    details: tuple[Fact, ...] = ()
    tables: tuple[SummaryTable, ...] = ()
    provenance: Provenance | None = None
    provenance_text: str = ""

    def fact(self, key: str) -> Fact:
        """The headline fact named ``key`` (KeyError when there is none)."""
        for f in self.facts:
            if f.key == key:
                return f
        raise KeyError(key)

    def table(self, key: str) -> SummaryTable | None:
        return next((t for t in self.tables if t.key == key), None)

    def as_text(self) -> str:
        """The command line's text: the title, the facts aligned, what the numbers mean, the notes, the details,
        each table with its caption, and the provenance."""
        lines = [self.title, "=" * len(self.title)]
        pad = max((len(f.label) for f in self.facts), default=0)
        lines += [f"{f.label:<{pad}}  {f.text}" for f in self.facts]
        if self.lead:
            lines += ["", self.lead]
        if self.notes:
            lines += ["", *[f"note: {n.sentence}" for n in self.notes]]
        if self.details:
            lines += ["", *[f"{d.label}: {d.value}" for d in self.details]]
        for t in self.tables:
            lines += ["", f"{t.caption}:", text_table(t)]
        if self.provenance_text:
            lines += ["", self.provenance_text]
        return "\n".join(lines)


def _cell(v, decimals: int | None = None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)) and decimals is not None:
        return f"{v:,.{decimals}f}"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def text_table(t: SummaryTable) -> str:
    """A table as aligned text: a heading row, a rule, one row per record (numbers to 6 significant digits, or
    with their column's decimals and thousands separated when the table says ``text_decimals``; missing values
    as "-")."""
    decimals = t.decimals if t.text_decimals else {}
    rows = [[_cell(r.get(f), decimals.get(f)) for f, _ in t.columns] for r in t.records()]
    heads = [h or f for f, h in t.columns]
    widths = [max([len(h), *[len(r[i]) for r in rows]]) for i, h in enumerate(heads)]
    out = ["  ".join(h.ljust(w) for h, w in zip(heads, widths)).rstrip(), "-" * (sum(widths) + 2 * (len(widths) - 1))]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    return "\n".join(out)
