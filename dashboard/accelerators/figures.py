"""Figures of the LogCA and Accelerometer pages: computed curves -> plotly figure dicts.

Figures only draw: every number they show (speedup curves, markers, bounds,
multi-accelerator curves) is computed by :mod:`dashboard.accelerators.views`
from the model and handed over as arrays.

These pages redraw on every input change, so figures are built as plain
plotly JSON (dicts) rather than ``go.Figure`` objects, whose property
validation costs about 0.1 s per figure; the layout template is resolved once.
"""

from __future__ import annotations

import math

import numpy as np

from dashboard.ui.figures import FONT, PALETTE, log_axis, margins, safe, template as _template, values as _list
from modeling.accelerators.advisor import fmt_bytes

REGION_COLORS = ["#cfe3f3", "#fde2cf", "#d5ecd9", "#e7d9f0", "#fff1c2", "#f9d6de", "#dfe7c9", "#d6dbf5"]


LOG4 = math.log10(4)


BYTE_TICKS = [4**i for i in range(0, 31)]


def _log_x(lo=None, hi=None, dtick=LOG4):
    """Granularity axis in binary units (16 B, 1 KiB, 64 KiB, 4 MiB), as the advisor writes bytes."""
    step = round(dtick / LOG4)
    ticks = BYTE_TICKS[::max(1, step)]
    ax = {"type": "log", "title": {"text": "granularity (bytes)"}, "tickvals": ticks,
          "ticktext": [fmt_bytes(t).replace(".00 ", " ").replace(".0 ", " ") for t in ticks]}
    if lo and hi:
        ax["range"] = [math.log10(lo), math.log10(hi)]
    return ax


def _log_y(title: str, data) -> dict:
    """The y axis of a speedup or energy chart: log, labelled per decade over more than two decades and at
    1, 2, 5 within them (a speedup of 1.3 to 4 spans no decade: per-decade labels would show only "1")."""
    ys = [np.asarray([v for v in (tr.get("y") or []) if isinstance(v, (int, float))], float) for tr in data]
    return log_axis(title, *ys)


def _figure(data, title, height, y_title="speedup", **layout):
    lay = {"template": _template(), "height": height, "font": FONT,
           "title": {"text": title, "x": 0.01, "font": {"size": 15}},
           "margin": margins(l=78, b=110),  # the legend sits below the plot; room for 1-2-5 labels
           "legend": {"orientation": "h", "y": -0.2, "yanchor": "top", "x": 0, "xanchor": "left"},
           "xaxis": _log_x(), "yaxis": _log_y(y_title, data)}
    lay.update(layout)
    return safe({"data": data, "layout": lay})


def _line(x, y, name, color, dash=None, width=2, **kw):
    return {"type": "scatter", "mode": "lines", "x": _list(x), "y": _list(y), "name": name,
            "line": {"color": color, "dash": dash or "solid", "width": width}, **kw}


def _hline(y, color="#888", dash="dash"):
    return {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y,
            "line": {"color": color, "width": 1, "dash": dash}}


def speedup_figure(g, curves: list[dict]) -> dict:
    """Speedup of each accelerator, observed points, g1 / g_{A/2} markers and the acceleration bound.

    Each curve: ``label``, ``speedup`` (over ``g``), ``A``, ``observed`` ((g, speedup) or None) and
    ``markers``: [(g, speedup, "g1" | "g_A/2")] inside the grid.
    """
    data = []
    for i, c in enumerate(curves):
        color = PALETTE[i % len(PALETTE)]
        data.append(_line(g, c["speedup"], c["label"], color,
                          hovertemplate="%{x:.3s} B: speedup %{y:.3g}<extra>" + c["label"] + "</extra>"))
        if c["observed"] is not None:
            og, os_ = c["observed"]
            data.append({"type": "scatter", "mode": "markers", "x": _list(og), "y": _list(os_),
                         "name": f"{c['label']} observed", "marker": {"color": color, "symbol": "circle-open",
                                                                      "size": 8}})
        data.append(_line([g[0], g[-1]], [c["A"]] * 2, f"A = {c['A']:.3g}", color, "dot", 1,
                          showlegend=False, hoverinfo="skip"))
        for gx, sy, what in c["markers"]:
            data.append({"type": "scatter", "mode": "markers", "x": [gx], "y": [sy], "showlegend": False,
                         "name": f"{what} {c['label']}",
                         "marker": {"color": color, "symbol": "diamond" if what == "g1" else "star", "size": 13,
                                    "line": {"color": "#1d2733", "width": 1}},
                         "hovertemplate": f"{what} = {fmt_bytes(gx)}<extra>{c['label']}</extra>"})
    return _figure(data, "Speedup vs offloaded granularity (◆ g1, ★ g_A/2, dotted: A)", 480, shapes=[_hline(1)])


def energy_figure(g, curves: dict, g1e, label) -> dict:
    """Speedup, efficiency (5.4) and speedup-efficiency product (5.8) of one accelerator; ``curves``
    maps each name to its values over ``g``; ``g1e`` is g1 of the energy model (None: off the grid)."""
    data = [_line(g, y, name, PALETTE[i], "dash" if i == 1 else None, 2.5 if i == 2 else 1.8)
            for i, (name, y) in enumerate(curves.items())]
    if g1e is not None:
        data.append({"type": "scatter", "mode": "markers", "x": [g1e], "y": [1.0],
                     "name": f"g1^e = {fmt_bytes(g1e)}", "marker": {"symbol": "diamond", "size": 12,
                                                                     "color": PALETTE[1]}})
    return _figure(data, f"Energy: {label}", 440, "ratio to the host", shapes=[_hline(1)])


MULTI_TITLES = {"pipelined": "pipelined sub-computations", "parallel-equal": "parallel, equal split",
                "parallel-balanced": "parallel, split to finish together"}


def multi_figure(g, series: dict, mode, observed=None, label="") -> dict:
    """Speedup with n accelerators (``series``: n -> values over ``g``), with the thesis' observed table."""
    data = []
    for i, (n, y) in enumerate(series.items()):
        color = PALETTE[i % len(PALETTE)]
        data.append(_line(g, y, f"n = {n}", color))
        if observed and n in observed["speedup"]:
            data.append({"type": "scatter", "mode": "markers", "x": observed["granularity"],
                         "y": observed["speedup"][n], "name": f"n = {n} observed",
                         "marker": {"color": color, "symbol": "circle-open", "size": 8}})
    return _figure(data, f"{label}: {MULTI_TITLES[mode]}" + (f" — {observed['title']}" if observed else ""), 440)


BOUND_STYLES = {"acceleration": ("#2b8a3e", "A"), "overhead": ("#d9480f", "C·g^β / o"),
                "latency": ("#862e9c", "C·g^β / L")}


def bounds_figure(g, speedup, bounds: dict, title: str, dependent_latency: bool = False) -> dict:
    """Accelerometer bounds: the speedup under its ceilings (``bounds``: kind -> values over ``g``)."""
    s = np.asarray(speedup, dtype=float)
    data = []
    for k, y in bounds.items():
        if not np.any(np.isfinite(y)):
            continue
        color, text = BOUND_STYLES[k]
        if k == "latency" and dependent_latency:
            text = "C·g^β / (L·g)"
        data.append(_line(g, y, f"{k} bound ({text})", color, "dash", 1.5))
    data.append(_line(g, s, "speedup", "#0b6e99", width=3))
    lo = max(float(np.nanmin(s)) / 3, 1e-6)
    yaxis = {"type": "log", "title": {"text": "speedup"}, "dtick": 1,  # a label per decade, not per minor tick
             "range": [math.log10(lo), math.log10(float(np.nanmax(s)) * 20)]}
    return _figure(data, title, 420, yaxis=yaxis)


def regions_figure(reg, lo, hi) -> dict:
    """Optimization regions (an :class:`~modeling.accelerators.accelerometer.OptimizationRegions`) as labelled
    bands over granularity, with each parameter's cut-off arrows."""
    labels = list(dict.fromkeys(r.params for r in reg.regions))
    shapes, notes, data = [], [], []
    for r in reg.regions:
        color = REGION_COLORS[labels.index(r.params) % len(REGION_COLORS)]
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": r.start, "x1": r.end, "y0": 0,
                       "y1": 1, "fillcolor": color, "line": {"width": 0.5, "color": "#fff"}, "layer": "below"})
        notes.append({"x": math.log10(math.sqrt(r.start * r.end)), "y": 4.6, "text": f"<b>{r.params}</b>",
                      "showarrow": False, "font": {"size": 15}})
    cutoffs = reg.cutoffs
    for row, k in enumerate(("A", "C", "o", "L")):
        cut = cutoffs[k]
        y = row + 0.5
        if cut is None:
            notes.append({"x": math.log10(math.sqrt(lo * hi)), "y": y, "showarrow": False,
                          "text": f"{k}: no gain ≥ {reg.threshold:.0%}", "font": {"color": "#5b6b7c"}})
            continue
        start, end = cut
        data.append({"type": "scatter", "mode": "lines+markers", "x": [start, end], "y": [y, y],
                     "name": k, "showlegend": False, "line": {"color": "#1d2733", "width": 2},
                     "marker": {"symbol": ["arrow-left", "arrow-right"], "size": 12, "color": "#1d2733"},
                     "hovertemplate": f"{k}: {fmt_bytes(start)} … {fmt_bytes(end)}<extra></extra>"})
        notes.append({"x": math.log10(start), "y": y, "text": f"<b>{k}</b>", "showarrow": False,
                      "xshift": -14, "font": {"size": 13}})
    title = (f"Optimization regions: parameters whose {reg.factor:g}× improvement gains "
             f"≥ {reg.threshold:.0%}")
    return _figure(data, title, 330, xaxis=_log_x(lo, hi), yaxis={"visible": False, "range": [0, 5]},
                   shapes=shapes, annotations=notes)


def totem_figure(tot, g, label) -> dict:
    """Totem plots: each parameter improved 2…10× and to its extreme (thesis Figs. 6.5-6.10), 2×2 panels."""
    titles = {"L": "latency L ÷ f", "o": "overhead o ÷ f", "C": "computational index C × f",
              "A": "acceleration A × f"}
    shades = ["#c5d9e8", "#9dbfd8", "#74a5c8", "#4b8bb8", "#0b6e99"]
    data, notes, layout = [], [], {}
    domains = {0: ([0, 0.46], [0.56, 1]), 1: ([0.54, 1], [0.56, 1]), 2: ([0, 0.46], [0, 0.44]),
               3: ([0.54, 1], [0, 0.44])}
    for idx, k in enumerate("LoCA"):
        n = "" if idx == 0 else str(idx + 1)
        xd, yd = domains[idx]
        layout[f"xaxis{n}"] = {**_log_x(dtick=math.log10(16)), "domain": xd, "anchor": f"y{n}",
                               "title": {"text": "granularity (bytes)" if idx >= 2 else ""}}
        layout[f"yaxis{n}"] = {"type": "log", "domain": yd, "anchor": f"x{n}", "dtick": 1}  # decades only
        axes = {"xaxis": f"x{n}", "yaxis": f"y{n}"}
        data.append(_line(g, tot["base"], "base", "#1d2733", legendgroup="base", showlegend=idx == 0, **axes))
        for j, (f, y) in enumerate(tot[k].items()):
            extreme = f in ("0", "inf")
            name = ("→ 0 (L, o)" if f == "0" else "→ ∞ (C, A)") if extreme else f"{f}×"
            show = (idx == 0) or (extreme and idx == 2)
            data.append(_line(g, y, name, "#d9480f" if extreme else shades[j % len(shades)],
                              "dash" if extreme else None, 1.5, legendgroup=name, showlegend=show, **axes))
        notes.append({"text": f"<b>{titles[k]}</b>", "xref": "paper", "yref": "paper", "x": (xd[0] + xd[1]) / 2,
                      "y": yd[1] + 0.01, "yanchor": "bottom", "showarrow": False})
    return _figure(data, f"Totem plots: {label}", 640, annotations=notes, margin=margins(l=70, b=145), **layout)
