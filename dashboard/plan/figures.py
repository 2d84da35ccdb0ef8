"""Figures of /plan: computed series -> plotly JSON (draw only)."""

from __future__ import annotations

from dashboard.ui.figures import PALETTE, axis_title, empty, figure


def replay(series: list[dict], x_title: str, title: str):
    """The replay: per strategy, the mean error on the workloads held back against what was spent (one line
    each, the chosen one thicker), with the spread over seeds as error bars (± one standard deviation).

    ``series``: ``{"strategy", "label", "x", "y", "sd", "chosen"}`` per strategy (:func:`dashboard.plan.views.
    replay_series`)."""
    if not series:
        return empty("No replay: too few simulated workloads to replay the strategies on")
    data = []
    for i, s in enumerate(series):
        color = PALETTE[i % len(PALETTE)]
        data.append({"type": "scatter", "mode": "lines+markers", "name": s["label"], "x": s["x"], "y": s["y"],
                     "line": {"color": color, "width": 4 if s["chosen"] else 1.6,
                              **({} if s["chosen"] else {"dash": "dot"})},
                     "marker": {"size": 8 if s["chosen"] else 5, "color": color},
                     "error_y": {"type": "data", "array": s["sd"], "visible": True, "color": color, "thickness": 1,
                                 "width": 3},
                     "hovertemplate": (f"{s['strategy']}<br>%{{x:.4g}} spent<br>mean |log error| %{{y:.4f}}"
                                       "<extra></extra>")})
    fig = figure(data, title, 460, xaxis=axis_title(x_title),
                 yaxis=axis_title("mean |log error| held back (± sd)"))
    fig["layout"]["margin"] = {**fig["layout"]["margin"], "t": 100}
    fig["layout"]["legend"] = {**fig["layout"]["legend"], "y": 1.02, "x": 0, "xanchor": "left"}
    return fig
