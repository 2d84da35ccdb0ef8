"""Figures of /predict: a typed result (:class:`dashboard.predict.results.PredictRun`) -> plotly JSON (draw only)."""

from __future__ import annotations

import base64

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


def typed(a, dtype: str = "f8") -> dict:
    """An array as plotly.js's typed-array JSON (little-endian bytes in base64): the same numbers, bit for bit,
    in 10.7 characters each instead of up to 24; a value that is not finite is a gap (NaN), as None is."""
    arr = np.asarray(a, dtype=float if dtype == "f8" else None)
    if dtype == "f8":
        arr = np.where(np.isfinite(arr), arr, np.nan)
    arr = np.ascontiguousarray(arr, dtype="<" + dtype)
    return {"dtype": dtype, "bdata": base64.b64encode(arr.tobytes()).decode("ascii")}


def _packed_bars(pt, lo, hi, color, width=1.2):
    return {"type": "data", "symmetric": False, "array": typed(hi - pt), "arrayminus": typed(pt - lo),
            "color": color, "thickness": width, "width": 3}


def predictions(run, metric_label: str, unit: str, packed: bool = False):
    """Every workload's prediction with its interval (error bars), sorted by prediction, on a log axis;
    the baseline and its interval as a second series; workloads outside the training data drawn apart
    (open red markers, their interval not valid there).

    ``packed`` (the page's first answer): above :data:`NAMED_MAX` workloads the same chart in fewer bytes: the
    numbers as typed arrays (:func:`typed`), each of the two prediction series holding only its own workloads
    (not every workload with the others' left as gaps), the baseline's ranks as a start and a step."""
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

    if packed and not named:
        return _packed_figure(pred, ids, pt, lo, hi, ok, lvl, after, series, rows, metric_label, unit)

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
        b, blo, bhi = _baseline_series(rows)
        series += [b, blo, bhi]
        data.append({"type": "scatter", "mode": "markers", "name": f"baseline (host × median ratio), {lvl} interval",
                     "x": x, "y": values(b), "text": ids,
                     "marker": {"size": 7, "color": BASE, "symbol": "diamond-open", "line": {"width": 1.5}},
                     "error_y": _bars(b, blo, bhi, "rgba(91,107,124,0.5)", 1),
                     "hovertemplate": f"%{{text}}<br>baseline %{{y:.4g}}{after}<extra></extra>"})
    return _laid_out(data, pred, named, series, metric_label, unit)


def _baseline_series(rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The baseline's estimate and interval bounds of every row, as arrays (missing values NaN)."""
    return tuple(np.array([r[k] for r in rows], float) for k in ("baseline", "baseline_lower", "baseline_upper"))


def _packed_figure(pred, ids, pt, lo, hi, ok, lvl, after, series, rows, metric_label, unit):
    """:func:`predictions`' chart of many workloads, packed (its docstring)."""
    data = []
    for keep, name, marker, color, note in (
            (ok, f"prediction, {lvl} interval", {"size": 7, "color": PALETTE[0]}, PALETTE[0], ""),
            (~ok, "outside the training data: interval not valid",
             {"size": 9, "color": WARN, "symbol": "x-open", "line": {"width": 2}}, "rgba(217,72,15,0.35)",
             " (not applicable)")):
        if note and not keep.any():
            continue
        idx = np.flatnonzero(keep)
        data.append({"type": "scatter", "mode": "markers", "name": name, "x": typed(idx + 1, "i4"),
                     "y": typed(pt[idx]), "text": [ids[i] for i in idx], "marker": marker,
                     "error_y": _packed_bars(pt[idx], lo[idx], hi[idx], color),
                     "hovertemplate": f"%{{text}}<br>predicted %{{y:.4g}}{after}{note}<extra></extra>"})
    if pred.baseline is not None:
        b, blo, bhi = _baseline_series(rows)
        series += [b, blo, bhi]
        data.append({"type": "scatter", "mode": "markers", "name": f"baseline (host × median ratio), {lvl} interval",
                     "x0": 1, "dx": 1, "y": typed(b), "text": ids,
                     "marker": {"size": 7, "color": BASE, "symbol": "diamond-open", "line": {"width": 1.5}},
                     "error_y": _packed_bars(b, blo, bhi, "rgba(91,107,124,0.5)", 1),
                     "hovertemplate": f"%{{text}}<br>baseline %{{y:.4g}}{after}<extra></extra>"})
    return _laid_out(data, pred, False, series, metric_label, unit)


def _laid_out(data, pred, named, series, metric_label, unit):
    xaxis = {**axis_title("workloads, sorted by prediction" + ("" if named else " (rank)")),
             **({"type": "category", "tickangle": -45, "tickfont": {"size": 10}} if named else {})}
    title = f"{pred.n_new} workloads predicted ({pred.n_applicable} inside the training data)"
    fig = figure(data, title, 620 if named else 500, xaxis=xaxis,
                 yaxis=log_axis(f"{metric_label} ({unit_text(unit)}, log scale)", *series))
    # the title above, the legend below it: neither covers the other
    fig["layout"]["margin"] = {**fig["layout"]["margin"], "t": 90, "b": 160 if named else 60}
    fig["layout"]["legend"] = {**fig["layout"]["legend"], "y": 1.02, "x": 0, "xanchor": "left"}
    return fig
