"""Pure figure builders: result dicts -> plotly figures (no Dash, testable alone)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

PALETTE = ["#0b6e99", "#d9480f", "#2b8a3e", "#862e9c", "#e67700", "#1864ab", "#c2255c", "#5c940d",
           "#364fc7", "#a61e4d"]
CATEGORY_COLORS = {
    "instruction": "#e7f1fb", "memory": "#fdf0e6", "cache": "#eaf6ec", "occupancy": "#f3ecf8",
    "utilization": "#fff7e0", "launch geometry": "#eef0f3", "time": "#fbeaea", "feature": "#ffffff",
}


def _layout(fig, title=None, height=420):
    fig.update_layout(template="plotly_white", height=height, margin=dict(l=60, r=30, t=50 if title else 20, b=50),
                      title=dict(text=title, x=0.01, font=dict(size=15)) if title else None,
                      legend=dict(orientation="h", y=1.0, yanchor="bottom", x=1, xanchor="right"),
                      font=dict(family="Inter, Segoe UI, system-ui, sans-serif", size=12))
    return fig


def empty(message: str):
    fig = go.Figure()
    fig.add_annotation(text=message, showarrow=False, font=dict(size=14, color="#5b6b7c"))
    fig.update_xaxes(visible=False)
    fig.update_yaxes(visible=False)
    return _layout(fig, height=300)


def _observed_predicted(obs, pred, ape, ids, groups, pred_name, unit, ape_title, x_title, title):
    """Observed and predicted per workload with APE bars on a second axis, ordered by observed value."""
    obs, pred, ape = (np.asarray(v, float) for v in (obs, pred, ape))
    order = np.argsort(obs, kind="stable")
    x = np.arange(1, len(obs) + 1)
    custom = np.stack([np.asarray(ids)[order], np.asarray(groups)[order]], axis=1)
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_bar(x=x, y=ape[order], name="APE %", marker_color="rgba(217,72,15,0.35)", customdata=custom,
                hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>APE %{y:.2f} %<extra></extra>",
                secondary_y=True)
    fig.add_scatter(x=x, y=obs[order], name="observed", mode="lines+markers", marker=dict(size=4),
                    line=dict(color="#1d2733", width=1.5), customdata=custom,
                    hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>observed %{y:.4g}<extra></extra>")
    fig.add_scatter(x=x, y=pred[order], name=pred_name, mode="markers", marker=dict(size=5, color="#0b6e99"),
                    customdata=custom,
                    hovertemplate="%{customdata[0]}<br>%{customdata[1]}<br>predicted %{y:.4g}<extra></extra>")
    fig.update_yaxes(type="log", title_text=f"target ({unit}, log scale)", secondary_y=False)
    cap = float(min(max(np.percentile(ape, 99) * 1.2, 10.0), 1000.0))
    fig.update_yaxes(title_text=ape_title, range=[0, cap], secondary_y=True, showgrid=False,
                     tickmode="auto", nticks=6, tickformat=".0f")
    fig.update_xaxes(title_text=x_title)
    fig.update_layout(bargap=0.1)
    return _layout(fig, title, height=440)


def per_workload(result: dict, model: str, unit: str = "s", title: str | None = None):
    """Observed and out-of-fold predicted target per workload, APE bars on a second axis
    (HALWPE Figs. 6-7, RastSim Figs. 14-15); workloads ordered by observed value."""
    m = next((x for x in result["models"] if x["model"] == model), None)
    if m is None and result["baseline"].get("model") == model:
        m = result["baseline"]
    if m is None:
        return empty(f"{model} is not in this result")
    n = len(result["observed"])
    return _observed_predicted(result["observed"], m["oof_prediction"], m["ape"], result["workload_ids"],
                               result["groups"] if result.get("groups") else [""] * n, f"predicted ({model})",
                               unit, "APE % (out of fold)", "workloads, ordered by observed value",
                               title or f"{model}: E_out {m['e_out']:.2f} %")


def inlier_curves(result: dict, models: list[str]):
    """Inlier ratio vs APE threshold (RastSim Fig. 13) for the chosen models and the baseline."""
    fig = go.Figure()
    entries = [m for m in result["models"] if m["model"] in models]
    if result["baseline"].get("inlier_ratio"):
        entries.append(result["baseline"])
    for i, m in enumerate(entries):
        th = [float(t) for t in m["inlier_ratio"]]
        base = m["model"] == result["baseline"].get("model")
        fig.add_scatter(x=th, y=list(m["inlier_ratio"].values()), mode="lines+markers", name=m["model"],
                        line=dict(color="#868e96" if base else PALETTE[i % len(PALETTE)], dash="dot" if base else None),
                        hovertemplate=m["model"] + "<br>T = %{x} %: %{y:.1f} %<extra></extra>")
    fig.update_xaxes(title_text="APE threshold T (%)", tickvals=[1, 5, 10, 15, 20, 30, 40, 50])
    fig.update_yaxes(title_text="inlier ratio (% of workloads with APE ≤ T)", range=[0, 102])
    return _layout(fig, "Inlier ratios", height=400)


def tree_sweep(sweep: dict):
    """E_out and inlier ratios vs number of trees (RastSim Figs. 11-12)."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    n = sweep["n_trees"]
    fig.add_scatter(x=n, y=sweep["e_out"], name="E_out %", mode="lines+markers", line=dict(color="#d9480f"),
                    secondary_y=False)
    for t, color in (("10", "#0b6e99"), ("20", "#2b8a3e")):
        fig.add_scatter(x=n, y=[ir[t] for ir in sweep["inlier_ratio"]], name=f"IR@{t} %", mode="lines+markers",
                        line=dict(color=color, dash="dash"), secondary_y=True)
    fig.update_xaxes(type="log", tickvals=n, ticktext=[str(v) for v in n], title_text="trees (n = 2^i)")
    fig.update_yaxes(title_text="E_out %", secondary_y=False)
    fig.update_yaxes(title_text="inlier ratio %", secondary_y=True, showgrid=False)
    return _layout(fig, f"Random Forest tree sweep: best n = {sweep['best_n']}", height=400)


def speedups(gen: dict):
    """Per-workload speedup of each target over the host, ordered by speedup (HALWPE Fig. 4)."""
    fig = go.Figure()
    apps = gen.get("applications") or {}
    for i, (target, sp) in enumerate(gen["speedup"].items()):
        items = sorted(sp.items(), key=lambda kv: kv[1])
        ids = [k for k, _ in items]
        fig.add_scatter(x=list(range(1, len(items) + 1)), y=[v for _, v in items], mode="lines", name=target,
                        line=dict(color=PALETTE[i % len(PALETTE)], width=2),
                        customdata=[[w, apps.get(w, "")] for w in ids],
                        hovertemplate=target + "<br>%{customdata[0]}<br>%{customdata[1]}<br>speedup %{y:.3g}x"
                                               "<extra></extra>")
    fig.add_hline(y=1, line=dict(color="#868e96", dash="dot"))
    fig.update_yaxes(type="log", title_text=f"speedup over {gen['host']} (host time / target time)")
    fig.update_xaxes(title_text="workloads, ordered by speedup (per target)")
    return _layout(fig, f"Speedup of each target over {gen['host']}", height=420)


def simulator_speedups(gen: dict):
    """Model speedup over the simulator per workload and target (HALWPE Fig. 12).

    Workloads on a common x axis, ordered by the speedup of the last target
    (the paper orders by its newest GPU); the legend gives each target's mean.
    """
    fig = go.Figure()
    sims = gen["sim_speedup"]
    last = list(sims)[-1]
    common = [w for w in sims[last] if all(w in sp for sp in sims.values())]
    order = sorted(common, key=lambda w: sims[last][w])
    apps = gen.get("applications") or {}
    for i, (target, sp) in enumerate(sims.items()):
        mean = float(np.mean([sp[w] for w in order])) if order else float("nan")
        fig.add_scatter(x=list(range(1, len(order) + 1)), y=[sp[w] for w in order], mode="lines+markers",
                        name=f"{target}: mean {mean:,.0f}×", marker=dict(size=4),
                        line=dict(color=PALETTE[i % len(PALETTE)], width=1.5),
                        customdata=[[w, apps.get(w, "")] for w in order],
                        hovertemplate=target + "<br>%{customdata[0]}<br>%{customdata[1]}<br>"
                                               "%{y:,.3g}× faster than simulating<extra></extra>")
    if any(v < 2 for sp in sims.values() for v in sp.values()):  # some simulations beat the host run
        fig.add_hline(y=1, line=dict(color="#868e96", dash="dot"))
    fig.update_yaxes(type="log", title_text="simulator time / model time (host run)")
    fig.update_xaxes(title_text=f"workloads run on every simulator ({len(order)}), ordered by the {last} speedup")
    return _layout(fig, "Model speedup over cycle-accurate simulation", height=420)


def side_by_side(left: dict, right: dict, left_title: str, right_title: str, unit: str = "s"):
    """Two scenarios' best models, observed vs out-of-fold predicted, on shared axes."""
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, shared_xaxes=True, horizontal_spacing=0.04,
                        subplot_titles=(left_title, right_title))
    for col, res in ((1, left), (2, right)):
        best = next(m for m in res["models"] if m["model"] == res["best"]["overall"])
        obs = np.asarray(res["observed"], float)
        order = np.argsort(obs, kind="stable")
        x = np.arange(1, len(obs) + 1)
        ids = np.asarray(res["workload_ids"])[order]
        fig.add_scatter(x=x, y=obs[order], mode="lines", name="observed", line=dict(color="#1d2733", width=1.5),
                        showlegend=col == 1, legendgroup="obs", customdata=ids,
                        hovertemplate="%{customdata}<br>observed %{y:.4g}<extra></extra>", row=1, col=col)
        fig.add_scatter(x=x, y=np.asarray(best["oof_prediction"])[order], mode="markers",
                        name="predicted (best model)", marker=dict(size=4, color="#0b6e99"), showlegend=col == 1,
                        legendgroup="pred", customdata=ids,
                        hovertemplate="%{customdata}<br>predicted %{y:.4g}<extra></extra>", row=1, col=col)
    fig.update_yaxes(type="log", title_text=f"target ({unit}, log)", row=1, col=1)
    fig.update_xaxes(title_text="workloads, ordered by observed")
    _layout(fig, height=440)
    fig.update_layout(legend=dict(orientation="h", y=-0.2, yanchor="top", x=0.5, xanchor="center"),
                      margin=dict(t=40, b=90))
    return fig


def repeats(values, window: dict, label: str, unit: str = "s"):
    """Repeated runs with the ±k·MAD window, inliers and outliers (HALWPE Fig. 8)."""
    v = np.asarray(values, float)
    inl = np.asarray(window["inlier"], bool)
    x = np.arange(1, len(v) + 1)
    fig = go.Figure()
    fig.add_hrect(y0=window["low"], y1=window["high"], fillcolor="rgba(11,110,153,0.08)", line_width=0,
                  annotation_text=f"median ± {window['k']:g}·MAD", annotation_position="top left")
    fig.add_scatter(x=x[inl], y=v[inl], mode="markers", name=f"kept ({int(inl.sum())})",
                    marker=dict(size=5, color="#0b6e99"), hovertemplate="run %{x}: %{y:.4g}<extra></extra>")
    fig.add_scatter(x=x[~inl], y=v[~inl], mode="markers", name=f"outliers ({int((~inl).sum())})",
                    marker=dict(size=8, color="#d9480f", symbol="x"), hovertemplate="run %{x}: %{y:.4g}<extra></extra>")
    fig.add_hline(y=window["median"], line=dict(color="#1d2733", width=1), annotation_text="median",
                  annotation_position="bottom right")
    fig.add_hline(y=window["mean_all"], line=dict(color="#d9480f", dash="dot"), annotation_text="mean of all runs",
                  annotation_position="top right")
    fig.add_hline(y=window["mean_inliers"], line=dict(color="#2b8a3e", dash="dash"),
                  annotation_text="mean of kept runs", annotation_position="bottom left")
    fig.update_xaxes(title_text="run (launch order)")
    fig.update_yaxes(title_text=f"{label} ({unit})")
    return _layout(fig, f"{len(v)} repeated runs of {label}", height=420)


def applied(res: dict, unit: str = "s"):
    """Observed vs predicted on the validation set of a model applied without retraining."""
    return _observed_predicted(res["observed"], res["predicted"], res["ape"], res["workload_ids"], res["groups"],
                               "predicted", unit, "APE %", "validation workloads, ordered by observed value",
                               f"{res['model']} applied without retraining: {res['e_validation']:.2f} % mean APE")


def ranking_bars(rank: dict, top: int = 15):
    """Top features of a ranking as horizontal bars coloured by category."""
    rows = rank["features"][:top]
    if not rows:
        return empty("This model selected no features")
    pv = rank["score_name"] == "pvalue"
    vals = [(-np.log10(max(r["score"], 1e-300)) if pv else r["score"]) for r in rows]
    fig = go.Figure(go.Bar(
        x=vals[::-1], y=[r["feature"] for r in rows][::-1], orientation="h",
        marker=dict(color=[CATEGORY_COLORS.get(r.get("category") or "feature", "#fff") for r in rows][::-1],
                    line=dict(color="#5b6b7c", width=1)),
        customdata=[[r.get("category") or ""] for r in rows][::-1],
        hovertemplate="%{y}<br>%{customdata[0]}<br>%{x:.4g}<extra></extra>"))
    fig.update_xaxes(title_text="−log10 p-value" if pv else rank["kind"])
    return _layout(fig, f"Top {len(rows)} features of {rank['model']}", height=max(300, 26 * len(rows) + 100))
