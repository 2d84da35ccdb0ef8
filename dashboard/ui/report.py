"""A result as one self-contained HTML file to attach to a design review: it opens offline, with no server
and no network (plotly.js is inlined, the charts stay interactive), and carries the numbers, the tables, the
inputs, the provenance (data fingerprint, code version, date) and the link that reopens the view.

Nothing in it is executable but perfcast's own script: every text is HTML-escaped, and each chart's JSON sits in
a ``<script type="application/json">`` with ``<`` escaped, so a dataset named ``</script><script>…`` stays text.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field

from dashboard.settings import ROOT

#: the partial plotly.js bundle the pages load (dashboard/ui/plotly_bundle.py), inlined into every report
PLOTLY_JS = sorted((ROOT / "assets" / "vendor").glob("plotly-cartesian-*.min.js"))


@dataclass
class Table:
    columns: list[tuple[str, str]]  # (field, header)
    rows: list[dict]
    title: str = ""
    digits: int = 4


@dataclass
class Section:
    title: str
    paragraphs: list[str] = field(default_factory=list)
    figures: list[dict] = field(default_factory=list)  # plotly figure dicts, as the pages draw them
    tables: list[Table] = field(default_factory=list)


@dataclass
class Report:
    title: str
    facts: list[tuple[str, str]]  # the headline numbers: (label, value)
    sections: list[Section]
    inputs: dict                  # the view's parameters
    provenance: str
    link: str                     # the view's share link
    generated: str                # when the report was made (UTC)

    def html(self) -> bytes:
        return render(self)


def _cell(v, digits: int) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.{digits}g}"
    return str(v)


def _table(t: Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for _, h in t.columns)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(r.get(f), t.digits))}</td>" for f, _ in t.columns)
                   + "</tr>" for r in t.rows)
    title = f"<h3>{html.escape(t.title)}</h3>" if t.title else ""
    return f"{title}<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _json(obj) -> str:
    """JSON safe inside a <script> element: no ``<``, ``>`` or ``&`` a parser could read as markup."""
    text = json.dumps(obj, separators=(",", ":"), default=str, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _clean(fig: dict) -> dict:
    """A figure without NaN (JSON has none: plotly reads null as a gap)."""
    import math

    def walk(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: walk(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [walk(x) for x in v]
        return v

    return walk(fig)


STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, 'Segoe UI', sans-serif; color: #1c2530; margin: 24px auto;
       max-width: 1180px; padding: 0 16px; }
h1 { font-size: 22px; margin-bottom: 4px; } h2 { font-size: 17px; margin-top: 28px; border-bottom: 1px solid #dde3ea; }
h3 { font-size: 14px; } .meta { color: #5b6b7b; } .facts { display: flex; flex-wrap: wrap; gap: 12px; }
.fact { border: 1px solid #dde3ea; border-radius: 6px; padding: 8px 12px; min-width: 150px; }
.fact b { display: block; font-size: 16px; } table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border: 1px solid #dde3ea; padding: 3px 8px; text-align: left; font-size: 13px; }
th { background: #f3f6f9; } .chart { width: 100%; margin-bottom: 12px; } td { max-width: 420px; }
"""


def render(r: Report) -> bytes:
    if not PLOTLY_JS:
        raise RuntimeError("assets/vendor has no plotly.js bundle (scripts/vendor_plotly.sh vendors it)")
    parts = [f"<h1>{html.escape(r.title)}</h1>",
             f"<p class='meta'>perfcast report, generated {html.escape(r.generated)}. Reopen the live view: "
             f"<a href='{html.escape(r.link, quote=True)}'>{html.escape(r.link)}</a></p>",
             "<div class='facts'>" + "".join(f"<div class='fact'>{html.escape(k)}<b>{html.escape(v)}</b></div>"
                                             for k, v in r.facts) + "</div>"]
    n = 0
    for s in r.sections:
        parts.append(f"<h2>{html.escape(s.title)}</h2>")
        parts += [f"<p>{html.escape(p)}</p>" for p in s.paragraphs if p]
        for fig in s.figures:
            height = int((fig.get("layout") or {}).get("height") or 460)
            parts.append(f"<div class='chart' id='chart-{n}' style='height:{height}px'></div>"
                         f"<script type='application/json' id='chart-{n}-data'>{_json(_clean(fig))}</script>")
            n += 1
        parts += [_table(t) for t in s.tables]
    parts.append("<h2>Inputs</h2>" + _table(Table([("name", "input"), ("value", "value")],
                                                  [{"name": k, "value": json.dumps(v) if isinstance(v, (list, dict))
                                                    else v} for k, v in r.inputs.items()])))
    parts.append(f"<h2>Provenance</h2><p>{html.escape(r.provenance)}</p>")
    draw = ("document.querySelectorAll('.chart').forEach(function (el) {"
            "var f = JSON.parse(document.getElementById(el.id + '-data').textContent);"
            "Plotly.newPlot(el, f.data || [], Object.assign({}, f.layout || {}, {autosize: true}),"
            "{responsive: true, displaylogo: false});});")
    plotly = PLOTLY_JS[-1].read_text(encoding="utf-8").replace("</script", "<\\/script")
    page = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
            f"<title>{html.escape(r.title)}</title><style>{STYLE}</style>"
            f"<script>{plotly}</script></head><body>{''.join(parts)}<script>{draw}</script></body></html>")
    return page.encode("utf-8")


def file_name(stem: str) -> str:
    """A report's file name from a few words (no path separators or odd characters)."""
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("_")[:120] + ".html"


def view_link(path: str, params: dict) -> str:
    """The link that reopens a view: the site's address (``PERFCAST_SITE_URL``, else the request's own, whose
    ``Host`` passed the allow-list), the view's parameters as the server parsed them and the current project."""
    from flask import has_request_context, request

    from dashboard.settings import SITE_URL
    from dashboard.ui.url_state import to_query

    from dashboard.access.projects import current_project

    base = (SITE_URL or (request.host_url if has_request_context() else "http://127.0.0.1:8050/")).rstrip("/")
    cur = current_project()  # a colleague in another of their projects lands in this one (as the share box's)
    return f"{base}{path}{to_query({**params, **({'project': cur.name} if cur else {})})}"
