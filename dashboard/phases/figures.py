"""Figures of /phases: typed results (dashboard/phases/results.py) -> plotly JSON (draw only)."""

from __future__ import annotations

import numpy as np

from dashboard.phases.results import NewProgramRun, PhasesRun, SweepRun
from dashboard.ui.figures import PALETTE, axis_title, empty, figure, log_axis, margins, values
from modeling.phases.names import NAMES  # noqa: F401 - the models' names, for the pages too

UNITS = {"cycles": "cycles", "power": "W"}


def trace(run: PhasesRun, program: str, shown=("lacross", "global", "ratio-baseline")):
    """Predicted and actual target per phase of one held-out program over cumulative host instructions,
    per-phase error below (LACross Figs. 6-7)."""
    ph, ev = run.phases, run.evaluation
    idx = ph.indices(program)
    if not idx:
        return empty(f"{program} is not in this result")
    instr = np.array([ph.instructions[i] for i in idx]) / 1e9
    x = np.cumsum(instr) - instr / 2
    actual = np.array([ph.actual[i] for i in idx])
    unit = run.unit
    data = [{"type": "scatter", "mode": "lines+markers", "name": "measured on the target", "x": values(x),
             "y": values(actual), "line": {"color": "#1d2733", "width": 2}, "marker": {"size": 5},
             "hovertemplate": f"%{{x:.1f}} G instructions<br>measured %{{y:.4g}} {unit}<extra></extra>"}]
    for k, m in enumerate(shown):
        pred = np.array([ev.phase_predictions[m][i] for i in idx], dtype=float)
        color = PALETTE[k % len(PALETTE)]
        data.append({"type": "scatter", "mode": "lines", "name": NAMES[m], "x": values(x), "y": values(pred),
                     "line": {"color": color, "width": 1.5, "dash": "solid" if k == 0 else "dot"},
                     "hovertemplate": f"{NAMES[m]} %{{y:.4g}} {unit}<extra></extra>"})
        data.append({"type": "bar", "name": f"{NAMES[m]} error", "x": values(x),
                     "y": values(100 * np.abs(pred - actual) / actual), "yaxis": "y2", "marker": {"color": color},
                     "showlegend": False, "hovertemplate": f"{NAMES[m]}: %{{y:.1f}} %<extra></extra>"})
    what = "cycles per phase" if ev.target == "cycles" else "average power per phase (W)"
    return figure(data, f"{program}: target {what}, held out", 520, barmode="group", bargap=0.15,
                  xaxis=axis_title("cumulative host instructions (×10⁹)"),
                  yaxis={**axis_title(what), "domain": [0.36, 1.0]},
                  yaxis2={**axis_title("error %"), "domain": [0.0, 0.26], "anchor": "x", "rangemode": "tozero"})


def run_label(row: dict, several: bool) -> str:
    """A held-out run's name: its program, and its run (and core count) when the program has several."""
    if not several or "host_run" not in row:
        return row["program"]
    cores = f", {row['cores']} core{'s' if row['cores'] != 1 else ''}" if row.get("cores") is not None else ""
    return f"{row['program']} (run {row['host_run']}{cores})"


def per_program(run: PhasesRun, shown=("lacross", "global", "ratio-baseline", "mean-baseline")):
    """Whole-run error per held-out run (each program's runs apart), models side by side (LACross Figs. 3-4)."""
    rows = sorted(run.evaluation.programs, key=lambda r: (r["program"], r.get("host_run", 0)))
    if not rows:
        return empty("No programs")
    several = len({r["program"] for r in rows}) < len(rows)
    names = [run_label(r, several) for r in rows]
    data = []
    for k, m in enumerate(shown):
        if f"{m}|ape" not in rows[0]:
            continue
        data.append({"type": "bar", "name": NAMES[m], "x": names, "y": [r[f"{m}|ape"] for r in rows],
                     "marker": {"color": PALETTE[k % len(PALETTE)]},
                     "hovertemplate": f"%{{x}}<br>{NAMES[m]}: %{{y:.1f}} %<extra></extra>"})
    return figure(data, "Whole-program error of each held-out program", 460, barmode="group",
                  margin=margins(l=90, b=20 + 7 * max(len(n) for n in names)),
                  xaxis={**axis_title("program"), "tickangle": -45, "automargin": True},
                  yaxis=axis_title("whole-program error %"))


def sweep(run: SweepRun):
    """Per-phase error and solver speed against granularity (Figs. 8-9), unique phases (Fig. 10)."""
    rows = run.rows
    g = [r.granularity for r in rows]
    data = [
        {"type": "scatter", "mode": "lines+markers", "name": "LACross per-phase MAPE", "x": g,
         "y": [r.lacross_mape for r in rows], "line": {"color": PALETTE[0]}},
        {"type": "scatter", "mode": "lines+markers", "name": "host × median ratio", "x": g,
         "y": [r.ratio_mape for r in rows], "line": {"color": PALETTE[2], "dash": "dot"}},
        {"type": "scatter", "mode": "lines+markers", "name": "LACross whole-program error", "x": g,
         "y": [r.lacross_program_ape for r in rows], "line": {"color": PALETTE[1]}},
        {"type": "bar", "name": "phases", "x": g, "y": [r.n_phases for r in rows], "yaxis": "y2",
         "marker": {"color": "rgba(11,110,153,0.18)"}, "width": [x * 0.3 for x in g]},
        {"type": "bar", "name": "unique phases", "x": g, "y": [r.unique_phases for r in rows], "yaxis": "y2",
         "marker": {"color": "rgba(217,72,15,0.35)"}, "width": [x * 0.15 for x in g]},
    ]
    return figure(data, "Accuracy and phases against granularity", 460, barmode="overlay",
                  xaxis=log_axis("phase granularity (retired instructions, log)", g),
                  yaxis=axis_title("error %"),
                  yaxis2={**axis_title("phases (held-out, all folds)"), "overlaying": "y", "side": "right",
                          "showgrid": False, "rangemode": "tozero"})


def new_program(run: NewProgramRun):
    """The predicted target trace of a program never run on the target: per phase over cumulative host
    instructions, the interval as a band, fall-back phases marked; nothing measured (there is nothing)."""
    pred_ = run.prediction
    if not pred_.phase:
        return empty("No phases")
    unit = pred_.unit
    x = values((np.asarray(pred_.start_instructions, float) + np.asarray(pred_.end_instructions, float)) / 2e9)
    lo, hi = values(pred_.lower), values(pred_.upper)
    pred = values(pred_.predicted)
    level = f"{pred_.level * 100:g} %"
    data = [
        {"type": "scatter", "mode": "lines", "x": x, "y": hi, "line": {"width": 0, "color": PALETTE[0]},
         "showlegend": False, "hoverinfo": "skip", "name": "upper"},
        {"type": "scatter", "mode": "lines", "x": x, "y": lo, "line": {"width": 0, "color": PALETTE[0]},
         "fill": "tonexty", "fillcolor": "rgba(31, 119, 180, 0.18)", "name": f"{level} interval",
         "hoverinfo": "skip"},
        {"type": "scatter", "mode": "lines+markers", "x": x, "y": pred, "name": f"predicted ({NAMES[pred_.model]})",
         "line": {"color": PALETTE[0], "width": 2}, "marker": {"size": 5},
         "customdata": [[a, b] for a, b in zip(lo, hi)],
         "hovertemplate": (f"%{{x:.1f}} G instructions<br>predicted %{{y:.4g}} {unit}<br>{level}: "
                           f"%{{customdata[0]:.4g}} – %{{customdata[1]:.4g}}<extra></extra>")},
    ]
    fb = [i for i, f in enumerate(pred_.fallback) if f]
    if fb:
        data.append({"type": "scatter", "mode": "markers", "x": [x[i] for i in fb], "y": [pred[i] for i in fb],
                     "name": "neighbourhood fall-back", "marker": {"symbol": "x", "size": 10, "color": "#c0392b"},
                     "hovertemplate": "fall-back: nearest training phases used<extra></extra>"})
    t, cycles = pred_.total, pred_.target == "cycles"
    what = "cycles per phase" if cycles else "average power per phase (W)"
    scale, fmt = (1e9, ".3f") if cycles else (1.0, ".3f")
    bounds = (f" [{t['lower'] / scale:{fmt}} – {t['upper'] / scale:{fmt}}], {level} interval"
              if t["lower"] is not None else ", no interval on the total (too few training programs)")
    tot = (f"total {t['predicted'] / 1e9:.3f} × 10⁹ cycles" if cycles
           else f"average {t['predicted']:.3f} W") + bounds
    return figure(data, f"{pred_.program} at {pred_.target_freq:g} MHz, predicted from {pred_.host_freq:g} MHz"
                        f"<br><sup>{tot}; nothing measured on the target</sup>", 460,
                  xaxis=axis_title("cumulative host instructions (×10⁹)"),
                  yaxis={**axis_title(what), "rangemode": "normal" if cycles else "tozero"})
