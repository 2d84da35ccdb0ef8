"""What a result shows, as plain text to compare with a golden file: the command line's text, the page's summary
card (each component's type, id, class and own text, in order) and the report's content (title, facts, sections'
paragraphs and tables, inputs, provenance; the charts only counted). Dates, code versions and durations are
masked: they change from run to run."""

from __future__ import annotations

import contextlib
import io
import re

MASKS = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?"), "<date>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC"), "<date>"),
    (re.compile(r"code version [^;,)\s]+"), "code version <code>"),
    (re.compile(r"code_version [^;,)\s]+"), "code_version <code>"),
    (re.compile(r"code [0-9a-f]{7,40}(\+dirty)?"), "code <code>"),
    (re.compile(r" in \d+\.\d s\b"), " in <s> s"),
]


def masked(text: str) -> str:
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def cli(argv: list[str]) -> str:
    """The command line's standard output for ``argv`` (run in this process)."""
    from modeling.__main__ import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = main(argv)
    return masked(f"exit {rc}\n{out.getvalue()}")


def _rounded(row: dict) -> dict:
    """A table row with its floats to 6 significant digits (the last digits of a fit vary with the BLAS)."""
    return {k: float(f"{v:.6g}") if isinstance(v, float) else v for k, v in row.items()}


def component(c, depth: int = 0) -> list[str]:
    """A Dash component tree, one line per component or text."""
    pad = "  " * depth
    if c is None:
        return []
    if isinstance(c, (str, int, float)):
        return [f"{pad}{c!r}"]
    if isinstance(c, (list, tuple)):
        return [line for x in c for line in component(x, depth)]
    props = getattr(c, "to_plotly_json", None)
    if props is None:
        return [f"{pad}{c!r}"]
    p = c.to_plotly_json()["props"]
    head = type(c).__name__ + "".join(f" {k}={p[k]!r}" for k in ("id", "className", "role") if p.get(k))
    if type(c).__name__ == "AgGrid":
        cols = [(d.get("field"), d.get("headerName")) for d in p.get("columnDefs") or []]
        return [f"{pad}{head} columns={cols!r}", *[f"{pad}  row {_rounded(r)!r}" for r in p.get("rowData") or []]]
    return [f"{pad}{head}", *component(p.get("children"), depth + 1)]


def page(tree) -> str:
    return masked("\n".join(component(tree)) + "\n")


def report(r) -> str:
    """A :class:`dashboard.ui.report.Report` as text (its charts counted, not drawn)."""
    from dashboard.ui.report import _cell

    lines = [f"title: {r.title}", *[f"fact: {k} = {v}" for k, v in r.facts]]
    for s in r.sections:
        lines.append(f"section: {s.title}")
        lines += [f"  paragraph: {p}" for p in s.paragraphs if p]
        lines.append(f"  figures: {len(s.figures)}")
        for t in s.tables:
            lines.append(f"  table: {t.title} | " + " | ".join(h for _, h in t.columns))
            lines += ["    " + " | ".join(_cell(row.get(f), t.digits) for f, _ in t.columns) for row in t.rows]
    lines += [f"input: {k} = {v!r}" for k, v in r.inputs.items()]
    lines.append(f"provenance: {r.provenance}")
    return masked("\n".join(lines) + "\n")


NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")


def _significant(token: str) -> int:
    mantissa = token.split("e")[0].replace(",", "").replace(".", "").lstrip("0")
    return max(len(mantissa), 1)


def lost_numbers(before: str, after: str, scales=(1.0,)) -> list[str]:
    """The numbers of ``before`` that ``after`` no longer says, at ``before``'s precision (a number ``after`` says
    with more digits, or in a unit ``scales`` times larger, is kept)."""
    said = [float(t.replace(",", "")) for t in NUMBER.findall(after)]
    lost = []
    for token in set(NUMBER.findall(before)):
        want, sig = float(token.replace(",", "")), _significant(token)
        if not any(float(f"{v * k:.{sig}g}") == want for v in said for k in scales):
            lost.append(token)
    return sorted(lost)
