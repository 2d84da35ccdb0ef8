"""Figures of /counts: typed results (:mod:`dashboard.counts.results`) -> plotly JSON (draw only)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from dashboard.ui.figures import PALETTE, axis_title, empty, figure, log_axis, margins, values

from modeling.counts.names import NAMES  # noqa: F401 - the one set of model names (views import it here)

if TYPE_CHECKING:
    from dashboard.counts.results import CountEvaluation, CountsPredictionRun, CountsProgramsRun

IRREGULAR = "#d9480f"
#: how far beyond the counts drawn a range end may stretch the count axis (factor either way)
RANGE_SPAN = 100.0


def heatmap(ev: CountEvaluation, model: str):
    """Predicted against measured count of every block at every test input, log-log, as a density
    (BB-ML Fig. 4); the identity line is a perfect prediction."""
    if model not in ev.test.pred:
        return empty(f"{NAMES.get(model, model)} was not run")
    y = np.asarray(ev.test.actual, float).ravel()
    p = np.asarray(ev.test.pred[model], float).ravel()
    keep = (y > 0) & (p > 0)
    if not keep.any():
        return empty("No non-zero counts to compare")
    ly, lp = np.log10(y[keep]), np.log10(p[keep])
    lo, hi = float(min(ly.min(), lp.min())), float(max(ly.max(), lp.max()))
    dropped = int((~keep).sum())
    data = [{"type": "histogram2d", "x": values(ly), "y": values(lp), "nbinsx": 40, "nbinsy": 40,
             "colorscale": [[0, "#ffffff"], [1e-6, "#dbe9f6"], [1, "#08306b"]],
             "colorbar": {"title": {"text": "counts in bin"}},
             "hovertemplate": "measured 10^%{x}<br>predicted 10^%{y}<br>%{z} block counts<extra></extra>"},
            {"type": "scatter", "mode": "lines", "x": [lo, hi], "y": [lo, hi], "name": "predicted = measured",
             "line": {"color": "#1d2733", "dash": "dash", "width": 1}}]
    note = f"; {dropped} zero counts not drawn" if dropped else ""
    return figure(data, f"{ev.program}: {NAMES.get(model, model)} on the test inputs ({ev.split}{note})",
                  460, xaxis=axis_title("measured count (log10)"), yaxis=axis_title("predicted count (log10)"),
                  margin=margins(r=150))  # the colour bar


def ratios(ev: CountEvaluation, model: str):
    """Predicted / measured count per block against input size on the test inputs; irregular blocks in
    colour, the largest training input marked."""
    if model not in ev.test.pred:
        return empty(f"{NAMES.get(model, model)} was not run")
    X = np.asarray(ev.test.X, float)
    size = X.prod(axis=1)
    order = np.argsort(size, kind="stable")
    y = np.asarray(ev.test.actual, float)[order]
    p = np.asarray(ev.test.pred[model], float)[order]
    irregular = ev.irregular_reason
    params = " × ".join(ev.sizes)
    data = []
    for b, blk in enumerate(ev.block_ids):
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(y[:, b] > 0, p[:, b] / y[:, b], np.nan)
        if not np.isfinite(r).any():
            continue
        odd = blk in irregular
        data.append({"type": "scatter", "mode": "lines+markers", "x": values(size[order]), "y": values(r),
                     "name": f"{blk} ({irregular[blk]})" if odd else blk, "showlegend": odd,
                     "line": {"color": IRREGULAR if odd else "#9aa7b4", "width": 2 if odd else 1},
                     "marker": {"size": 4}, "opacity": 1 if odd else 0.6,
                     "hovertemplate": f"{blk}<br>{params} = %{{x:,.0f}}<br>predicted / measured %{{y:.3f}}"
                                      "<extra></extra>"})
    if not data:
        return empty("No non-zero counts to compare")
    train_max = float(np.asarray(ev.train_X, float).prod(axis=1).max())
    log_x = size.max() > 10 * size.min()
    shown = np.array([v for t in data for v in t["y"] if v is not None])
    lo, hi = float(shown.min()), float(shown.max())
    return figure(data, f"{ev.program}: {NAMES.get(model, model)}, predicted / measured per block "
                        f"beyond the training inputs", 520,
                  xaxis=(log_axis(f"input size ({params})", size) if log_x
                         else axis_title(f"input size ({params})")),
                  legend={"orientation": "h", "y": -0.18, "yanchor": "top", "x": 0, "xanchor": "left"},
                  margin=margins(b=110),
                  yaxis={**axis_title("predicted / measured"), "tickformat": ".3f",
                         "range": [min(0.95, lo - 0.02), max(1.05, hi + 0.02)]},
                  shapes=[{"type": "line", "xref": "x", "x0": train_max, "x1": train_max, "yref": "paper", "y0": 0,
                           "y1": 1, "line": {"color": "#1d2733", "dash": "dot", "width": 1}},
                          {"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": 1, "y1": 1,
                           "line": {"color": "#2b8a3e", "width": 1}}],
                  annotations=[{"text": "largest training input", "xref": "x",
                                "x": np.log10(train_max) if log_x else train_max,
                                "y": 1, "yref": "paper", "showarrow": False, "xanchor": "left",
                                "yanchor": "top"}])


def curve(ev: CountEvaluation):
    """Test mean APE against the number of training inputs used (BB-ML Fig. 5 left)."""
    rows = ev.curve or []
    if not rows:
        return empty("No training-size curve")
    data = []
    for k, m in enumerate(dict.fromkeys(r.model for r in rows)):
        rs = [r for r in rows if r.model == m]
        data.append({"type": "scatter", "mode": "lines+markers", "name": NAMES.get(m, m),
                     "x": [r.n_train for r in rs], "y": values([max(r.mape, 1e-6) for r in rs]),
                     "line": {"color": PALETTE[k % len(PALETTE)]},
                     "hovertemplate": f"{NAMES.get(m, m)}: %{{x}} training inputs, %{{y:.3g}} %<extra></extra>"})
    return figure(data, f"{ev.program}: test error against training inputs ({ev.split})", 380,
                  xaxis=axis_title("training inputs used"),
                  yaxis=log_axis("mean APE % (log)", [max(r.mape, 1e-6) for r in rows]))


def programs_bar(run: CountsProgramsRun):
    """Mean APE per program, models side by side (every program on the same split)."""
    rows = run.rows
    if not rows:
        return empty("No program could be evaluated on this split")
    progs = run.programs
    data = []
    for k, m in enumerate(run.models):
        by = {r.program: r.score.mape for r in rows if r.model == m}
        data.append({"type": "bar", "name": NAMES.get(m, m), "x": progs,
                     "y": values([max(by.get(p, np.nan), 1e-4) for p in progs]),
                     "marker": {"color": PALETTE[k % len(PALETTE)]},
                     "hovertemplate": f"%{{x}}: {NAMES.get(m, m)} %{{y:.3g}} %<extra></extra>"})
    return figure(data, f"Mean APE per program ({run.params['split']} split)", 420, barmode="group",
                  xaxis={"tickangle": -35}, yaxis=log_axis("mean APE % (log; 1e-4 = exact)",
                                                          [max(r.score.mape, 1e-4) for r in rows]))


def predicted_counts(run: CountsPredictionRun, block: str):
    """The predicted count of one block (or the total over blocks) against input size, with its range as
    error bars, beside the measured counts; log-log."""
    pr = run.prediction
    blocks = list(pr.blocks)
    params = pr.params
    Xm, Ym = run.measured_X, run.measured_Y
    if block == "all blocks":
        ym = Ym.sum(axis=1)
        yp, lo, hi = pr.predicted.sum(axis=1), pr.lower.sum(axis=1), pr.upper.sum(axis=1)
        yb = pr.baseline.sum(axis=1) if pr.baseline is not None else np.full(pr.n_inputs, np.nan)
        how = "sum over blocks"
    elif block in blocks:
        b = blocks.index(block)
        ym = Ym[:, b]
        yp, lo, hi = pr.predicted[:, b], pr.lower[:, b], pr.upper[:, b]
        yb = pr.baseline[:, b] if pr.baseline is not None else np.full(pr.n_inputs, np.nan)
        h = pr.how[b]
        how = "exact polynomial" if h == "exact" else NAMES.get(h, h)
    else:
        return empty("Choose a block")
    xm = Xm.prod(axis=1)
    xp = np.asarray(pr.inputs, float).prod(axis=1)
    ptext = [", ".join(f"{k}={v:g}" for k, v in pr.inputs_of(i).items()) for i in range(pr.n_inputs)]
    label = " × ".join(params)
    unit = "executions" if pr.kind == "blocks" else "events"
    keep = ym > 0
    text = [", ".join(f"{k}={v:g}" for k, v in zip(params, x)) for x in Xm[keep]]
    data = [{"type": "scatter", "mode": "markers", "name": "measured", "x": values(xm[keep]), "y": values(ym[keep]),
             "text": text, "marker": {"color": "#9aa7b4", "size": 5},
             "hovertemplate": f"measured at %{{text}}<br>%{{y:,.0f}} {unit}<extra></extra>"},
            {"type": "scatter", "mode": "markers", "name": f"predicted ({how})", "x": values(xp),
             "y": values(np.maximum(yp, 1e-300)), "text": ptext,
             "marker": {"color": PALETTE[0], "size": 10, "symbol": "diamond"},
             "error_y": {"type": "data", "symmetric": False, "array": values(np.nan_to_num(hi - yp)),
                         "arrayminus": values(np.nan_to_num(yp - lo)), "color": PALETTE[0], "thickness": 1.5},
             "hovertemplate": f"predicted at %{{text}}<br>%{{y:,.0f}} {unit}<extra></extra>"}]
    if np.isfinite(yb).any() and (yb > 0).any():
        data.append({"type": "scatter", "mode": "markers",
                     "name": "baseline (nearest measured, scaled by the sizes each block depends on)",
                     "x": values(xp), "y": values(np.where(yb > 0, yb, np.nan)), "text": ptext,
                     "marker": {"color": "#c0392b", "size": 8, "symbol": "x"},
                     "hovertemplate": f"baseline at %{{text}}<br>%{{y:,.0f}} {unit}<extra></extra>"})
    pts = np.concatenate([ym[keep], yp[yp > 0], yb[np.isfinite(yb) & (yb > 0)]])
    if not (pts > 0).any():
        return empty(f"{block}: every count is zero")
    # the axis spans the counts and the range ends within RANGE_SPAN of them: one block's wide range (a count
    # of 0-2 far beyond its inputs) must not stretch the chart to 1e14; an end beyond is cut at the edge, said
    top, bottom = float(pts.max()), float(pts.min())
    ends = np.concatenate([hi[np.isfinite(hi) & (hi > 0)], lo[np.isfinite(lo) & (lo > 0)]])
    cut = ends[(ends > top * RANGE_SPAN) | (ends < bottom / RANGE_SPAN)]
    ends = ends[(ends <= top * RANGE_SPAN) & (ends >= bottom / RANGE_SPAN)]
    xs, ys = np.concatenate([xm, xp]), np.concatenate([pts, ends])
    yaxis = log_axis(f"count ({unit} per run; log)", ys)
    yaxis["range"] = [math.log10(float(ys.min())) - 0.1, math.log10(float(ys.max())) + 0.1]
    big = cut[cut > top]
    note = (f" (a range reaches {float(big.max()):,.3g}, beyond the chart: cut at its edge)" if big.size else
            " (a range reaches below the chart: cut at its edge)" if cut.size else "")
    return figure(data, f"{pr.program}: {block}, predicted beyond the measured inputs{note}", 440,
                  xaxis=log_axis(f"input size ({label}{', product' if len(params) > 1 else ''}; log)", xs),
                  yaxis=yaxis,
                  legend={"orientation": "h", "y": -0.2, "yanchor": "top", "x": 0, "xanchor": "left"},
                  margin=margins(b=100))
