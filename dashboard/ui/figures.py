"""Figure basics every page's figures share: palette, font, layout template, empty figures.

Figures are plain plotly JSON (dicts): building ``go.Figure`` objects costs ~0.1 s of validation per figure."""

from __future__ import annotations

import math
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


def figure(data: list, title: str | None = None, height: int = 420, **layout) -> dict:
    right = layout.get("yaxis2", {}).get("side") == "right"
    lay = {"template": template(), "height": height, "font": FONT,
           "margin": margins(r=75 if right else 30, t=50 if title else 20),
           "legend": {"orientation": "h", "y": 1.0, "yanchor": "bottom", "x": 1, "xanchor": "right"}}
    if title:
        lay["title"] = {"text": title, "x": 0.01, "font": {"size": 15}}
    lay.update(layout)
    return {"data": data, "layout": lay}


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
    return figure([], height=300, xaxis={"visible": False}, yaxis={"visible": False},
                   annotations=[{"text": message, "showarrow": False, "xref": "paper", "yref": "paper",
                                 "x": 0.5, "y": 0.5, "font": {"size": 14, "color": "#5b6b7c"}}])
