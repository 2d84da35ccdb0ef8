"""Pure figure builders: typed results (:mod:`dashboard.crossgen.results`, :mod:`modeling.crossgen`) -> plotly
figure JSON (no Dash, testable alone).

Figures are plain plotly JSON (dicts), not ``go.Figure`` objects: a cached view
draws several of them per request, and ``go.Figure``'s property validation cost
40-65 ms per chart; the layout template is resolved once per process.
"""

from __future__ import annotations

import math

import numpy as np

from dashboard.crossgen.results import ApplyRun, EnsembleResult, GenerationsRun, Ranking, SweepResult
from dashboard.ui.figures import PALETTE, axis_title, empty, figure, hline, log_axis, margins, values
from dashboard.ui.format import unit_text

CATEGORY_COLORS = {
    "instruction": "#e7f1fb", "memory": "#fdf0e6", "cache": "#eaf6ec", "occupancy": "#f3ecf8",
    "utilization": "#fff7e0", "launch geometry": "#eef0f3", "time": "#fbeaea", "feature": "#ffffff",
}


def _observed_predicted(obs, pred, ape, ids, groups, pred_name, unit, ape_title, x_title, title):
    """Observed and predicted per workload with APE bars on a second axis, ordered by observed value; ``unit``
    is the target's ("" when none was given: the axis says so)."""
    after = f" {unit}" if unit else ""
    obs, pred, ape = (np.asarray(v, float) for v in (obs, pred, ape))
    order = np.argsort(obs, kind="stable")
    x = list(range(1, len(obs) + 1))
    custom = np.stack([np.asarray(ids, dtype=str)[order], np.asarray(groups, dtype=str)[order]], axis=1).tolist()
    cap = float(min(max(np.percentile(ape, 99) * 1.2, 10.0), 1000.0))
    data = [
        {"type": "bar", "x": x, "y": values(ape[order]), "name": "APE %", "yaxis": "y2", "customdata": custom,
         "marker": {"color": "rgba(217,72,15,0.35)"},
         "hovertemplate": "%{customdata[0]}<br>%{customdata[1]}<br>APE %{y:.2f} %<extra></extra>"},
        {"type": "scatter", "x": x, "y": values(obs[order]), "name": "observed", "mode": "lines+markers",
         "marker": {"size": 4}, "line": {"color": "#1d2733", "width": 1.5}, "customdata": custom,
         "hovertemplate": f"%{{customdata[0]}}<br>%{{customdata[1]}}<br>observed %{{y:.4g}}{after}<extra></extra>"},
        {"type": "scatter", "x": x, "y": values(pred[order]), "name": pred_name, "mode": "markers",
         "marker": {"size": 5, "color": "#0b6e99"}, "customdata": custom,
         "hovertemplate": f"%{{customdata[0]}}<br>%{{customdata[1]}}<br>predicted %{{y:.4g}}{after}<extra></extra>"},
    ]
    over = np.flatnonzero(ape[order] > cap)
    if over.size:  # bars the APE axis cuts: marked at the top with their value, and the axis title says so
        data.append({"type": "scatter", "mode": "markers", "yaxis": "y2", "name": f"APE beyond {cap:.0f} % (cut)",
                     "x": [x[i] for i in over], "y": [cap * 0.985] * int(over.size),
                     "customdata": [[custom[i][0], custom[i][1], float(ape[order][i])] for i in over],
                     "marker": {"symbol": "triangle-up", "size": 9, "color": "#d9480f"},
                     "hovertemplate": "%{customdata[0]}<br>%{customdata[1]}<br>APE %{customdata[2]:.1f} % "
                                      "(beyond the axis)<extra></extra>"})
        ape_title = f"{ape_title}, axis cut at {cap:.0f} % (▲ beyond)"
    return figure(data, title, 440, bargap=0.1, xaxis=axis_title(x_title),
                   yaxis=log_axis(f"target ({unit_text(unit)}, log scale)", obs, pred),
                   yaxis2={**axis_title(ape_title), "overlaying": "y", "side": "right", "range": [0, cap],
                           "showgrid": False, "tickmode": "auto", "nticks": 6, "tickformat": ".0f"})


def per_workload(result: EnsembleResult, model: str, unit: str = "s", title: str | None = None):
    """Observed and out-of-fold predicted target per workload, APE bars on a second axis
    (HALWPE Figs. 6-7, RastSim Figs. 14-15); workloads ordered by observed value."""
    m = result.find(model)
    if m is None:
        return empty(f"{model} is not in this result")
    n = len(result.observed)
    return _observed_predicted(result.observed, m.oof_prediction, m.ape, result.workload_ids,
                               result.groups if result.groups else [""] * n, f"predicted ({model})",
                               unit, "APE % (out of fold)", "workloads, ordered by observed value",
                               title or f"{model}: E_out {m.e_out:.2f} %")


def inlier_curves(result: EnsembleResult, models: list[str]) -> dict:
    """Inlier ratio vs APE threshold (RastSim Fig. 13) for the chosen models and the baseline."""
    entries = [m for m in result.models if m.model in models]
    if result.baseline is not None and result.baseline.inlier_ratio:
        entries.append(result.baseline)
    data = []
    for i, m in enumerate(entries):
        base = m is result.baseline
        data.append({"type": "scatter", "mode": "lines+markers", "name": m.model,
                     "x": [float(t) for t in m.inlier_ratio], "y": list(m.inlier_ratio.values()),
                     "line": {"color": "#868e96" if base else PALETTE[i % len(PALETTE)],
                              "dash": "dot" if base else "solid"},
                     "hovertemplate": m.model + "<br>T = %{x} %: %{y:.1f} %<extra></extra>"})
    return figure(data, "Inlier ratios", 400,
                   xaxis={**axis_title("APE threshold T (%)"), "tickvals": [1, 5, 10, 15, 20, 30, 40, 50]},
                   yaxis={**axis_title("inlier ratio (% of workloads with APE ≤ T)"), "range": [0, 102]})


def tree_sweep(sweep: SweepResult) -> dict:
    """E_out and inlier ratios vs number of trees (RastSim Figs. 11-12)."""
    n = list(sweep.n_trees)
    data = [{"type": "scatter", "x": n, "y": values(sweep.e_out), "name": "E_out %", "mode": "lines+markers",
             "line": {"color": "#d9480f"}}]
    for t, color in (("10", "#0b6e99"), ("20", "#2b8a3e")):
        data.append({"type": "scatter", "x": n, "y": sweep.ir(t), "name": f"IR@{t} %",
                     "mode": "lines+markers", "line": {"color": color, "dash": "dash"}, "yaxis": "y2"})
    return figure(data, f"Random Forest tree sweep: best n = {sweep.best_n}", 400,
                   xaxis={"type": "log", "tickvals": n, "ticktext": [str(v) for v in n],
                          **axis_title("trees (n = 2^i)")},
                   yaxis=axis_title("E_out %"),
                   yaxis2={**axis_title("inlier ratio %"), "overlaying": "y", "side": "right", "showgrid": False})


def speedup_order(gen: GenerationsRun, order_by: str | None) -> list[str]:
    """One workload order for every target's curve: by ``order_by``'s speedup (the first target when it
    is not one of them); workloads that target lacks follow, in name order."""
    sp = gen.speedup
    key = order_by if order_by in sp else next(iter(sp), None)
    if key is None:
        return []
    ranked = sorted(sp[key], key=lambda w: sp[key][w])
    rest = sorted({w for v in sp.values() for w in v} - set(ranked))
    return ranked + rest


def speedups(gen: GenerationsRun, order_by: str | None = None) -> dict:
    """Per-workload speedup of each target over the host (HALWPE Fig. 4). Every curve uses the same
    workload order (by ``order_by``'s speedup), so one x position is one workload on every curve."""
    apps = gen.applications or {}
    order = speedup_order(gen, order_by)
    key = order_by if order_by in gen.speedup else next(iter(gen.speedup), "")
    data = []
    for i, (target, sp) in enumerate(gen.speedup.items()):
        xs = [j + 1 for j, w in enumerate(order) if w in sp]
        ws = [w for w in order if w in sp]
        data.append({"type": "scatter", "mode": "lines+markers" if target == key else "markers", "name": target,
                     "x": xs, "y": values([sp[w] for w in ws]),
                     "line": {"color": PALETTE[i % len(PALETTE)], "width": 2},
                     "marker": {"size": 4, "color": PALETTE[i % len(PALETTE)]},
                     "customdata": [[w, apps.get(w, "")] for w in ws],
                     "hovertemplate": target + "<br>%{customdata[0]}<br>%{customdata[1]}<br>speedup %{y:.3g}x"
                                               "<extra></extra>"})
    pred = (gen.predicted_speedup or {}).get(key) or {}
    if pred:  # the ordering target's predicted speedups beside its measured ones: what the page is for
        ws = [w for w in order if w in pred]
        best = gen.best_of(key)
        data.append({"type": "scatter", "mode": "markers", "name": f"{key} predicted ({best}, out of fold)",
                     "x": [order.index(w) + 1 for w in ws], "y": values([pred[w] for w in ws]),
                     "marker": {"size": 7, "symbol": "x-thin", "line": {"width": 1.5, "color": "#212529"}},
                     "customdata": [[w, apps.get(w, "")] for w in ws],
                     "hovertemplate": key + " predicted<br>%{customdata[0]}<br>%{customdata[1]}<br>speedup "
                                            "%{y:.3g}x<extra></extra>"})
    one, _ = hline(1, "#868e96", "dot")
    return figure(data, f"Speedup of each target over {gen.host}: measured, and {key} predicted", 420,
                  shapes=[one],
                  yaxis=log_axis(f"speedup over {gen.host} (host time / target time)",
                                 *[list(sp.values()) for sp in gen.speedup.values()], list(pred.values())),
                  xaxis=axis_title(f"workloads, ordered by the {key} speedup (the same order on every curve)"))


def simulator_speedups(gen: GenerationsRun) -> dict:
    """Model speedup over the simulator per workload and target (HALWPE Fig. 12).

    Workloads on a common x axis, ordered by the speedup of the last target
    (the paper orders by its newest GPU); the legend gives each target's mean.
    """
    sims = gen.sim_speedup
    last = list(sims)[-1]
    common = [w for w in sims[last] if all(w in sp for sp in sims.values())]
    order = sorted(common, key=lambda w: sims[last][w])
    apps = gen.applications or {}
    data = []
    for i, (target, sp) in enumerate(sims.items()):
        mean = float(np.mean([sp[w] for w in order])) if order else float("nan")
        data.append({"type": "scatter", "mode": "lines+markers", "name": f"{target}: mean {mean:,.0f}×",
                     "x": list(range(1, len(order) + 1)), "y": values([sp[w] for w in order]),
                     "marker": {"size": 4}, "line": {"color": PALETTE[i % len(PALETTE)], "width": 1.5},
                     "customdata": [[w, apps.get(w, "")] for w in order],
                     "hovertemplate": target + "<br>%{customdata[0]}<br>%{customdata[1]}<br>"
                                               "%{y:,.3g}× faster than simulating<extra></extra>"})
    shapes = []
    if any(v < 2 for sp in sims.values() for v in sp.values()):  # some simulations beat the host run
        shapes.append(hline(1, "#868e96", "dot")[0])
    return figure(data, "Model speedup over cycle-accurate simulation", 420, shapes=shapes,
                   yaxis={"type": "log", **axis_title("simulator time / model time (host run)")},
                   xaxis=axis_title(f"workloads run on every simulator ({len(order)}), ordered by the {last} speedup"))


def side_by_side(left: EnsembleResult, right: EnsembleResult, left_title: str, right_title: str,
                 unit: str = "s") -> dict:
    """Two scenarios' best models, observed vs out-of-fold predicted, on shared axes (``unit``: the target's)."""
    data = []
    after = f" {unit}" if unit else ""
    hover = {k: f"%{{customdata}}<br>{k} %{{y:.4g}}{after}<extra></extra>" for k in ("observed", "predicted")}
    for col, res in ((1, left), (2, right)):
        best = res.best_model
        obs = np.asarray(res.observed, float)
        order = np.argsort(obs, kind="stable")
        x = list(range(1, len(obs) + 1))
        ids = np.asarray(res.workload_ids, dtype=str)[order].tolist()
        axes = {"xaxis": "x" if col == 1 else "x2", "yaxis": "y" if col == 1 else "y2"}
        data.append({"type": "scatter", "mode": "lines", "name": "observed", "x": x, "y": values(obs[order]),
                     "line": {"color": "#1d2733", "width": 1.5}, "showlegend": col == 1, "legendgroup": "obs",
                     "customdata": ids, "hovertemplate": hover["observed"], **axes})
        data.append({"type": "scatter", "mode": "markers", "name": "predicted (best model)", "x": x,
                     "y": values(np.asarray(best.oof_prediction, float)[order]),
                     "marker": {"size": 4, "color": "#0b6e99"}, "showlegend": col == 1, "legendgroup": "pred",
                     "customdata": ids, "hovertemplate": hover["predicted"], **axes})
    x_title = axis_title("workloads, ordered by observed")
    titles = [{"text": t, "xref": "paper", "yref": "paper", "x": x, "y": 1.0, "xanchor": "center",
               "yanchor": "bottom", "showarrow": False, "font": {"size": 14}}
              for t, x in ((left_title, 0.24), (right_title, 0.76))]
    return figure(data, None, 440, annotations=titles, margin=margins(t=40, b=110),
                   legend={"orientation": "h", "y": -0.2, "yanchor": "top", "x": 0.5, "xanchor": "center"},
                   xaxis={"domain": [0, 0.48], **x_title},
                   xaxis2={"domain": [0.52, 1], "matches": "x", "anchor": "y2", **x_title},
                   yaxis=log_axis(f"target ({unit_text(unit)}, log)", left.observed, right.observed),
                   yaxis2={"type": "log", "matches": "y", "anchor": "x2", "showticklabels": False})


def repeats(values_, window: dict, label: str, unit: str = "s") -> dict:
    """Repeated runs with the ±k·MAD window, inliers and outliers (HALWPE Fig. 8)."""
    v = np.asarray(values_, float)
    inl = np.asarray(window["inlier"], bool)
    x = np.arange(1, len(v) + 1)
    data = [{"type": "scatter", "mode": "markers", "name": f"kept ({int(inl.sum())})", "x": x[inl].tolist(),
             "y": values(v[inl]), "marker": {"size": 5, "color": "#0b6e99"},
             "hovertemplate": "run %{x}: %{y:.4g}<extra></extra>"},
            {"type": "scatter", "mode": "markers", "name": f"outliers ({int((~inl).sum())})", "x": x[~inl].tolist(),
             "y": values(v[~inl]), "marker": {"size": 8, "color": "#d9480f", "symbol": "x"},
             "hovertemplate": "run %{x}: %{y:.4g}<extra></extra>"}]
    band = {"type": "rect", "xref": "paper", "x0": 0, "x1": 1, "yref": "y", "y0": window["low"],
            "y1": window["high"], "fillcolor": "rgba(11,110,153,0.08)", "line": {"width": 0}, "layer": "below"}
    band_note = {"text": f"median ± {window['k']:g}·MAD", "xref": "paper", "x": 0, "xanchor": "left", "yref": "y",
                 "y": window["high"], "yanchor": "bottom", "showarrow": False}
    lines = [hline(window["median"], "#1d2733", "solid", "median", "bottom right"),
             hline(window["mean_all"], "#d9480f", "dot", "mean of all runs", "top right"),
             hline(window["mean_inliers"], "#2b8a3e", "dash", "mean of kept runs", "bottom left")]
    return figure(data, f"{len(v)} repeated runs of {label}", 420, margin=margins(l=95),
                  shapes=[band] + [sh for sh, _ in lines], annotations=[band_note] + [n for _, n in lines],
                  xaxis=axis_title("run (launch order)"), yaxis=axis_title(f"{label} ({unit_text(unit)})"))


def applied(run: ApplyRun, unit: str = "s"):
    """Observed vs predicted on the validation set of a model applied without retraining."""
    res = run.applied
    return _observed_predicted(res.observed, res.predicted, res.ape, res.workload_ids, run.groups,
                               "predicted", unit, "APE %", "validation workloads, ordered by observed value",
                               f"{res.model} applied without retraining: {res.e_validation:.2f} % mean APE")


def ranking_bars(rank: Ranking, top: int = 15) -> dict:
    """Top features of a ranking as horizontal bars coloured by category."""
    rows = rank.features[:top]
    if not rows:
        return empty("This model selected no features")
    pv = rank.score_name == "pvalue"
    vals = [(-math.log10(max(r["score"], 1e-300)) if pv else r["score"]) for r in rows]
    bar = {"type": "bar", "orientation": "h", "x": values(vals[::-1]), "y": [r["feature"] for r in rows][::-1],
           "marker": {"color": [CATEGORY_COLORS.get(r.get("category") or "feature", "#fff") for r in rows][::-1],
                      "line": {"color": "#5b6b7c", "width": 1}},
           "customdata": [[r.get("category") or ""] for r in rows][::-1],
           "hovertemplate": "%{y}<br>%{customdata[0]}<br>%{x:.4g}<extra></extra>"}
    longest = max(len(str(r["feature"])) for r in rows)
    return figure([bar], f"Top {len(rows)} features of {rank.model}", max(300, 26 * len(rows) + 100),
                   xaxis=axis_title("−log10 p-value" if pv else rank.kind),
                   margin=margins(l=min(30 + 6 * longest, 600)))


def category_row_style(field="category"):
    """Row colours by feature category (the papers colour counters, API metrics and queries)."""
    return {"styleConditions": [
        {"condition": f"params.data.{field} === {cat!r}", "style": {"backgroundColor": color}}
        for cat, color in CATEGORY_COLORS.items()]}


#: APE below this (percent) is drawn at it on the log axes of :func:`ape_pair`.
APE_FLOOR = 0.01


def ape_pair(rows: list, label_a: str, label_b: str, title: str) -> dict:
    """Per-workload APE of run A against run B on one log scale (both axes the same range), the diagonal where
    the two agree; points above it are workloads A predicts better. ``rows``: the comparison's
    ``WorkloadRow`` (:mod:`modeling.crossgen.compare`)."""
    if not rows:
        return empty("The two scenarios share no scored workload")
    a = np.maximum(np.asarray([r.ape_a for r in rows], float), APE_FLOOR)
    b = np.maximum(np.asarray([r.ape_b for r in rows], float), APE_FLOOR)
    lo, hi = float(min(a.min(), b.min())) / 1.5, float(max(a.max(), b.max())) * 1.5
    span = [math.log10(lo), math.log10(hi)]
    custom = [[r.workload, r.ape_a, r.ape_b] for r in rows]
    data = [{"type": "scatter", "mode": "lines", "x": [lo, hi], "y": [lo, hi], "name": "same error in both",
             "line": {"color": "#868e96", "dash": "dot", "width": 1}, "hoverinfo": "skip"},
            {"type": "scatter", "mode": "markers", "x": values(a), "y": values(b), "name": "workload",
             "marker": {"size": 6, "color": np.where(b < a, "#2b8a3e", "#c92a2a").tolist(), "opacity": 0.75},
             "customdata": custom, "showlegend": False,
             "hovertemplate": "%{customdata[0]}<br>APE in A %{customdata[1]:.2f} %<br>APE in B "
                              "%{customdata[2]:.2f} %<extra></extra>"}]
    ax = log_axis("", a, b)
    return figure(data, title, 460,
                  xaxis={**ax, **axis_title(f"APE % in A: {label_a}"), "range": span},
                  yaxis={**ax, **axis_title(f"APE % in B: {label_b}"), "range": span},
                  annotations=[{"text": "below the line: B closer", "xref": "paper", "yref": "paper", "x": 0.98,
                                "y": 0.02, "xanchor": "right", "yanchor": "bottom", "showarrow": False,
                                "font": {"color": "#2b8a3e", "size": 12}},
                               {"text": "above: A closer", "xref": "paper", "yref": "paper", "x": 0.02, "y": 0.98,
                                "xanchor": "left", "yanchor": "top", "showarrow": False,
                                "font": {"color": "#c92a2a", "size": 12}}])
