"""Figures of /predict: a typed result (:class:`dashboard.predict.results.PredictRun`) -> plotly JSON (draw only)."""

from __future__ import annotations

import numpy as np

from dashboard.ui.figures import PALETTE, axis_title, empty, figure, log_axis, values
from dashboard.ui.format import unit_text

WARN = "#d9480f"
BASE = "#5b6b7c"
#: above this many workloads the x axis is numbered instead of naming each workload
NAMED_MAX = 40


def _bars(pt, lo, hi, color, width=1.2):
    return {"type": "data", "symmetric": False, "array": values(hi - pt), "arrayminus": values(pt - lo),
            "color": color, "thickness": width, "width": 3}


def predictions(run, metric_label: str, unit: str):
    """Every workload's prediction with its interval (error bars), sorted by prediction, on a log axis;
    the baseline and its interval as a second series; workloads outside the training data drawn apart
    (open red markers, their interval not valid there)."""
    pred = run.prediction
    rows = sorted(pred.rows(), key=lambda r: r["predicted"])
    if not rows:
        return empty("No workloads were predicted")
    n = len(rows)
    named = n <= NAMED_MAX
    x = [r["id"] for r in rows] if named else list(range(1, n + 1))
    ids = [r["id"] + (f" ({r['group']})" if r["group"] else "") for r in rows]
    pt = np.array([r["predicted"] for r in rows], float)
    lo = np.array([r["lower"] for r in rows], float)
    hi = np.array([r["upper"] for r in rows], float)
    ok = np.array([bool(r["applicable"]) for r in rows])
    lvl = f"{pred.choice.level * 100:g} %"
    data, series = [], [pt, lo, hi]
    after = f" {unit}" if unit else ""

    def masked(a, keep):
        return np.where(keep, a, np.nan)

    data.append({"type": "scatter", "mode": "markers", "name": f"prediction, {lvl} interval", "x": x,
                 "y": values(masked(pt, ok)), "text": ids, "marker": {"size": 7, "color": PALETTE[0]},
                 "error_y": _bars(masked(pt, ok), masked(lo, ok), masked(hi, ok), PALETTE[0]),
                 "hovertemplate": f"%{{text}}<br>predicted %{{y:.4g}}{after}<extra></extra>"})
    if (~ok).any():
        data.append({"type": "scatter", "mode": "markers", "name": "outside the training data: interval not valid",
                     "x": x, "y": values(masked(pt, ~ok)), "text": ids,
                     "marker": {"size": 9, "color": WARN, "symbol": "x-open", "line": {"width": 2}},
                     "error_y": _bars(masked(pt, ~ok), masked(lo, ~ok), masked(hi, ~ok), "rgba(217,72,15,0.35)"),
                     "hovertemplate": f"%{{text}}<br>predicted %{{y:.4g}}{after} (not applicable)<extra></extra>"})
    if pred.baseline is not None:
        b = np.array([r["baseline"] for r in rows], float)
        blo = np.array([r["baseline_lower"] for r in rows], float)
        bhi = np.array([r["baseline_upper"] for r in rows], float)
        series += [b, blo, bhi]
        data.append({"type": "scatter", "mode": "markers", "name": f"baseline (host × median ratio), {lvl} interval",
                     "x": x, "y": values(b), "text": ids,
                     "marker": {"size": 7, "color": BASE, "symbol": "diamond-open", "line": {"width": 1.5}},
                     "error_y": _bars(b, blo, bhi, "rgba(91,107,124,0.5)", 1),
                     "hovertemplate": f"%{{text}}<br>baseline %{{y:.4g}}{after}<extra></extra>"})
    xaxis = {**axis_title("workloads, sorted by prediction" + ("" if named else " (rank)")),
             **({"type": "category", "tickangle": -45, "tickfont": {"size": 10}} if named else {})}
    title = f"{pred.n_new} workloads predicted ({pred.n_applicable} inside the training data)"
    fig = figure(data, title, 620 if named else 500, xaxis=xaxis,
                 yaxis=log_axis(f"{metric_label} ({unit_text(unit)}, log scale)", *series))
    # the title above, the legend below it: neither covers the other
    fig["layout"]["margin"] = {**fig["layout"]["margin"], "t": 90, "b": 160 if named else 60}
    fig["layout"]["legend"] = {**fig["layout"]["legend"], "y": 1.02, "x": 0, "xanchor": "left"}
    return fig
