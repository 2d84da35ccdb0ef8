"""Figure basics every page's figures share: palette, font, layout template, empty figures, and the escaping of
users' text (:func:`safe`), which every figure builder applies to what it returns.

Figures are plain plotly JSON (dicts): building ``go.Figure`` objects costs ~0.1 s of validation per figure."""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache

import numpy as np


PALETTE = ["#0b6e99", "#d9480f", "#2b8a3e", "#862e9c", "#e67700", "#1864ab", "#c2255c", "#5c940d",
           "#364fc7", "#a61e4d"]


FONT = {"family": "Inter, Segoe UI, system-ui, sans-serif", "size": 12}


@lru_cache(maxsize=1)
def template() -> dict:
    import plotly.io as pio

    return pio.templates["plotly_white"].to_plotly_json()


def values(a) -> list:
    """Plain floats for JSON (NaN and inf become gaps)."""
    return [None if not math.isfinite(x) else x for x in np.asarray(a, dtype=float).tolist()]


def margins(l: int = 80, r: int = 30, t: int = 50, b: int = 60) -> dict:  # noqa: E741 - plotly's names
    """Plot margins in px, wide enough for the usual tick labels and axis titles.

    The template's axes have ``automargin``: when labels do not fit, plotly widens the margin and
    draws the whole chart a second time (about twice the drawing time of a shared link's chart).
    Margins that already fit skip that second pass; automargin stays as the safety net for
    labels longer than these allow (e.g. a user's long feature names)."""
    return {"l": l, "r": r, "t": t, "b": b}


# ---------------------------------------------------------------- users' text in figures
# plotly draws every label, hover box, legend entry, tick and annotation as its own small HTML: <a href>,
# <span style>, <b>, <br>... are obeyed, and &lt; &gt; &amp; are shown as < > &. A workload, application,
# column or dataset name is a user's text, so a name like "<a href=//evil>x</a>" became a link in the chart.

#: trace fields that hold data (users' names among them), never markup: every <, > and & is escaped
DATA_FIELDS = ("text", "hovertext", "customdata", "name", "x", "y", "labels", "ids", "legendgroup")
#: fields the figure code writes with markup of its own (<br>, <b>, <extra>...) around users' names
MARKUP_FIELDS = ("text", "hovertemplate", "texttemplate", "ticktext")
#: the only tags kept in those: the figure code's own, without attributes (no link, no style)
_NOT_OURS = re.compile(r"<(?!/?(?:br|b|i|em|sup|sub|extra)\s*/?>)([^<>]*)(>?)", re.IGNORECASE)


def plain(text: str) -> str:
    """A user's text that plotly shows as typed: ``&``, ``<`` and ``>`` as entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _markup(text: str) -> str:
    """Text the figure code marked up with users' names inside: every tag that is not one of the code's own
    (``<br>``, ``<b>``, ``<i>``, ``<em>``, ``<sup>``, ``<sub>``, ``<extra>``, without attributes) is escaped, so
    no link, style or unknown tag survives; a name's own ``<b>`` there shows bold, nothing more."""
    return _NOT_OURS.sub(lambda m: f"&lt;{m.group(1)}{'&gt;' if m.group(2) else ''}", text)


_NUMBERS = frozenset({int, float, bool, type(None), np.float64, np.int64})


def _data(value):
    if isinstance(value, str):
        return plain(value)
    if isinstance(value, (list, tuple)):
        try:
            numeric = np.asarray(value).dtype.kind in "biuf"
        except ValueError:  # ragged
            numeric = False
        if numeric or all(type(v) in _NUMBERS for v in value):
            return value  # numbers only (the usual x and y, gaps as None): nothing to escape, nothing copied
        probe = json.dumps(value, default=str)
        if "<" not in probe and ">" not in probe and "&" not in probe:
            return value  # numbers, or names without markup characters (the usual case): one scan, no copy
        return [plain(v) if isinstance(v, str) else _data(v) for v in value]
    if isinstance(value, np.ndarray) and value.dtype.kind in "OUS":
        return [_data(v) for v in value.tolist()]
    return value


def _nested(value):
    """Inside a layout or a trace's nested settings (titles, annotations, colour bars): markup fields."""
    if isinstance(value, dict):
        return {k: (_markup(v) if k in MARKUP_FIELDS and isinstance(v, str)
                    else [_markup(x) if isinstance(x, str) else x for x in v]
                    if k in MARKUP_FIELDS and isinstance(v, (list, tuple)) else _nested(v))
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_nested(v) for v in value]
    return value


def safe(fig: dict) -> dict:
    """``fig`` with every user's text escaped for plotly: trace data fields (:data:`DATA_FIELDS`: labels, hover
    texts, custom data, names, category values) fully, markup fields (:data:`MARKUP_FIELDS`: hover templates,
    titles, annotations, tick labels) down to the figure code's own tags. Applied by :func:`figure` (so by
    every figure built with it) and by the accelerator pages' builder; a figure already safe is unchanged by a
    second pass of the markup rule, so the builders apply it once, on what they return."""
    data = [{k: (_data(v) if k in DATA_FIELDS else _markup(v) if k in MARKUP_FIELDS and isinstance(v, str)
                 else _nested(v)) for k, v in trace.items()} if isinstance(trace, dict) else trace
            for trace in fig.get("data") or []]
    layout = fig.get("layout") or {}
    title = layout.get("title")
    out = {k: v for k, v in layout.items() if k != "template"}
    out = _nested(out)
    if isinstance(title, str):
        out["title"] = _markup(title)
    if "template" in layout:
        out["template"] = layout["template"]  # plotly's own, shared (not copied)
    return {**fig, "data": data, "layout": out}


def figure(data: list, title: str | None = None, height: int = 420, **layout) -> dict:
    right = layout.get("yaxis2", {}).get("side") == "right"
    lay = {"template": template(), "height": height, "font": FONT,
           "margin": margins(r=75 if right else 30, t=50 if title else 20),
           "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1, "xanchor": "right"}}
    if title:
        lay["title"] = {"text": title, "x": 0.01, "font": {"size": 15}}
    lay.update(layout)
    return safe({"data": data, "layout": lay})


def axis_title(text: str) -> dict:
    return {"title": {"text": text}}


def hline(y: float, color: str, dash: str = "solid", text: str | None = None, where: str = "top right"):
    """A horizontal line across the plot, optionally labelled (shape, annotation or None)."""
    shape = {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y,
             "line": {"color": color, "width": 1, "dash": dash}}
    if not text:
        return shape, None
    vert, horiz = where.split()
    note = {"text": text, "xref": "paper", "x": 0 if horiz == "left" else 1, "xanchor": horiz, "yref": "y", "y": y,
            "yanchor": "bottom" if vert == "top" else "top", "showarrow": False}
    return shape, note


def log_axis(title: str, *series) -> dict:
    """A log axis; over more than two decades one labelled tick per decade (10^k),
    so the labels of the minor ticks do not crowd each other."""
    v = np.concatenate([np.asarray(x, float).ravel() for x in series]) if series else np.array([])
    v = v[np.isfinite(v) & (v > 0)]
    ax = {"type": "log", **axis_title(title)}
    if v.size and v.max() / v.min() > 100:
        ax.update(dtick=1, exponentformat="power")
    elif v.size:  # within two decades: 1, 2, 5 of each decade, labelled plainly (no crowded minor labels)
        lo, hi = math.floor(math.log10(v.min())), math.ceil(math.log10(v.max()))
        ticks = [m * 10.0**k for k in range(lo, hi + 1) for m in (1, 2, 5)
                 if v.min() / 1.5 <= m * 10.0**k <= v.max() * 1.5]
        ax.update(tickvals=ticks, ticktext=[f"{t:g}" for t in ticks])
    return ax


def empty(message: str) -> dict:
    """A figure that only says ``message`` (plain text: a user's name in it is shown as typed)."""
    return figure([], height=300, xaxis={"visible": False}, yaxis={"visible": False},
                   annotations=[{"text": plain(message), "showarrow": False, "xref": "paper", "yref": "paper",
                                 "x": 0.5, "y": 0.5, "font": {"size": 14, "color": "#5b6b7c"}}])
