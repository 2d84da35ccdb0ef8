"""Figures of /new-app: results (modeling.newapp.results and .hypothetical types) -> plotly JSON (draw only)."""

from __future__ import annotations

import numpy as np

from dashboard.ui.figures import PALETTE, axis_title, empty, figure, log_axis, values

#: the methods drawn at first; the others start hidden (click the legend to show them)
SHOWN = ("naive-pooled", "roofline", "one-run", "RandomForest")


def _logged(label: str, unit: str) -> str:
    """An axis title of a log axis, with the unit when there is one."""
    return f"{label} ({unit}, log)" if unit else f"{label} (log)"


def estimates(app, metric: str, unit: str):
    """Per workload of the held-out application (an ApplicationEstimate): measured target and each estimate
    with its range (error bars lo..hi), against the host's own value; log-log."""
    rows = app.rows
    if not rows:
        return empty("The application has no workloads")
    rows = sorted(rows, key=lambda r: r["host"])
    host = np.array([r["host"] for r in rows])
    ids = [f"{r['id']} ({r['kernel']})" for r in rows]
    data, series = [], [host]
    for i, m in enumerate(app.methods):
        name = m.method
        pt = np.array([np.nan if r[f"{name}|point"] is None else r[f"{name}|point"] for r in rows])
        if not np.isfinite(pt).any():
            continue
        lo = np.array([np.nan if r[f"{name}|lo"] is None else r[f"{name}|lo"] for r in rows])
        hi = np.array([np.nan if r[f"{name}|hi"] is None else r[f"{name}|hi"] for r in rows])
        series.append(pt)
        color = PALETTE[i % len(PALETTE)]
        data.append({"type": "scatter", "mode": "markers", "name": name, "x": values(host), "y": values(pt),
                     "text": ids, "marker": {"size": 6, "color": color, "symbol": "diamond" if m.kind == "model"
                                             else "circle-open"},
                     "error_y": {"type": "data", "symmetric": False, "array": values(hi - pt),
                                 "arrayminus": values(pt - lo), "color": color, "thickness": 1, "width": 2},
                     "visible": True if name in SHOWN else "legendonly",
                     "hovertemplate": f"%{{text}}<br>{name}: %{{y:.4g}} {unit}<extra></extra>"})
    meas = np.array([np.nan if r["measured"] is None else r["measured"] for r in rows])
    if np.isfinite(meas).any():
        series.append(meas)
        cal = [r["calibrating"] for r in rows]
        data.append({"type": "scatter", "mode": "markers", "name": "measured on the target", "x": values(host),
                     "y": values(meas), "text": ids,
                     "marker": {"size": [12 if c else 7 for c in cal], "color": "#1d2733",
                                "symbol": ["star" if c else "x-thin-open" for c in cal], "line": {"width": 2}},
                     "hovertemplate": f"%{{text}}<br>measured: %{{y:.4g}} {unit}<extra></extra>"})
    return figure(data, f"{app.application} on the target: estimates with their ranges", 460,
                  xaxis=log_axis(_logged(f"host's own {metric}", unit), host),
                  yaxis=log_axis(_logged(f"target {metric}", unit), *series))


def per_application(allres):
    """Mean APE of each scored method per held-out application (a HeldOutEvaluation, leave one application
    out)."""
    methods = allres.scored
    if not methods:
        return empty("No method could be scored")
    groups = allres.groups
    data, ys = [], []
    for i, m in enumerate(methods):
        y = [m.per_group[g].mean_ape for g in groups]
        ys.append([v for v in y if v is not None])
        data.append({"type": "bar", "name": m.method, "x": groups, "y": y,
                     "marker": {"color": PALETTE[i % len(PALETTE)]},
                     "hovertemplate": f"{m.method}<br>%{{x}} held out: mean APE %{{y:.1f}} %<extra></extra>"})
    flat = np.array([v for y in ys for v in y], float)
    yaxis = log_axis("mean APE % (log)", flat) if flat.size and flat.max() / max(flat.min(), 1e-9) > 100 \
        else axis_title("mean APE %")
    return figure(data, "Each application held out in turn: mean APE per method", 400, barmode="group",
                  xaxis=axis_title("held-out application"), yaxis=yaxis)


def _plain(text: str) -> str:
    """User text for a plotly title or label: plotly reads a few HTML tags there, so < > & become entities."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def hypothetical(hyp, unit: str):
    """Per workload on a GPU never built or measured: the spec roofline estimate with its interval (error bars
    lower..upper, from the rule's errors on measured pairs; the class range where there is no interval)
    against the host's own value, one colour per application; log-log (``hyp``: a HypotheticalEstimate)."""
    rows = hyp.rows
    if not rows:
        return empty("No workloads to estimate")
    data, series = [], []
    host_all = np.array([r["host"] for r in rows])
    for i, app in enumerate(sorted({r["application"] for r in rows})):
        rs = sorted((r for r in rows if r["application"] == app), key=lambda r: r["host"])
        host = np.array([r["host"] for r in rs])
        band = ("lower", "upper") if rs[0].get("lower") is not None else ("lo", "hi")
        pt, lo, hi = (np.array([r[k] for r in rs]) for k in ("point", *band))
        series += [pt, lo, hi]
        color = PALETTE[i % len(PALETTE)]
        data.append({"type": "scatter", "mode": "markers", "name": app, "x": values(host), "y": values(pt),
                     "text": [f"{r['id']} ({r['class']}-bound)" for r in rs],
                     "marker": {"size": 6, "color": color},
                     "error_y": {"type": "data", "symmetric": False, "array": values(hi - pt),
                                 "arrayminus": values(pt - lo), "color": color, "thickness": 1, "width": 2},
                     "hovertemplate": f"%{{text}}<br>estimate %{{y:.4g}} {unit}<extra></extra>"})
    name = _plain(hyp.device["device"])
    what = "intervals" if rows[0].get("lower") is not None else "class ranges"
    return figure(data, f"{name} (from its specs only): spec roofline estimates with their {what}",
                  460, xaxis=log_axis(_logged(f"host's own {hyp.metric}", unit), host_all),
                  yaxis=log_axis(_logged(f"estimated {hyp.metric} on {name}", unit), *series))
