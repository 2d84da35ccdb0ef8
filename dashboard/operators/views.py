"""What /operators draws from a result (:class:`modeling.operators.model.OperatorsOnGpu`): plain components and
grid rows; no callbacks, no modeling."""

from __future__ import annotations

import math

from dash import html

from dashboard.ui.components import alert, num_col, stat

MODEL_COLUMNS = [{"field": "name", "headerName": "model", "minWidth": 230, "pinned": "left"},
                 num_col("latency_ms", "estimate ms", 3), num_col("lower_ms", "90 % interval: low ms", 3),
                 num_col("upper_ms", "high ms", 3), num_col("roofline_ms", "roofline ms", 3),
                 num_col("vs_roofline", "estimate / roofline", 2), num_col("n_operators", "operators", 0),
                 num_col("n_outside", "outside what was measured", 0)]
OPERATOR_COLUMNS = [{"field": "op", "headerName": "operator", "minWidth": 90, "pinned": "left"},
                    num_col("b", "b", 0), num_col("m", "m", 0), num_col("n", "n", 0), num_col("k", "k", 0),
                    num_col("latency_ms", "estimate ms", 4), num_col("lower_ms", "90 % low ms", 4),
                    num_col("upper_ms", "90 % high ms", 4), num_col("roofline_ms", "roofline ms", 4),
                    {"field": "flag", "headerName": "flag", "minWidth": 170},
                    {"field": "reason", "headerName": "why", "minWidth": 420, "tooltipField": "reason"}]


def _num(v):
    return None if v is None or not math.isfinite(v) else float(v)


def model_rows(res) -> list[dict]:
    rows = []
    for m in res.models:
        est, roof = _num(m.latency_ms), _num(m.roofline_ms)
        rows.append({"name": m.name, "latency_ms": est, "lower_ms": _num(m.lower_ms), "upper_ms": _num(m.upper_ms),
                     "roofline_ms": roof, "vs_roofline": est / roof if est and roof else None,
                     "n_operators": m.n_operators, "n_outside": m.n_outside})
    return rows


def operator_rows(res) -> list[dict]:
    o = res.operators
    return [{"op": o["op"][i], "b": o["b"][i], "m": o["m"][i], "n": o["n"][i], "k": o["k"][i],
             "latency_ms": _num(o["latency_ms"][i]), "lower_ms": _num(o["lower_ms"][i]),
             "upper_ms": _num(o["upper_ms"][i]), "roofline_ms": _num(o["roofline_ms"][i]),
             "flag": "outside what was measured" if o["outside"][i] else "", "reason": o["reason"][i]}
            for i in range(len(o["op"]))]


def summary(res) -> html.Div:
    """The GPU's headline: its spec sheet's notes first (a twin of a training GPU, specs beyond the training
    GPUs'), the record of which predictor is closer, then the facts."""
    warn = []
    if res.identical_to:
        warn.append(alert(f"Not a prediction: {res.gpu} has the same spec sheet as {res.identical_to}, a training "
                          "GPU. Its operators were measured there; the numbers below are the model's fit to those "
                          "measurements, not an estimate for a new GPU.", "warning"))
    for note in res.notes:
        if not note.startswith(f"{res.gpu} has the same spec sheet"):
            warn.append(alert(f"Outside what was measured: {note}", "warning"))
    short = [f"{f} {100 * v:.0f} %" for f, v in res.level_supported.items() if v < res.level]
    fit = "all operators" if res.fit_sample is None else f"{res.fit_sample} operators per GPU and kind (quick)"
    return html.Div([
        html.H2(res.gpu, id="operators-gpu-name"),
        *warn,
        alert(res.record, "info"),
        html.Div([stat("operators of the table", f"{len(res.operators['op']):,}", "operators-count"),
                  stat("outside what was measured", f"{res.n_outside:,}", "operators-outside"),
                  stat("models (sums of operators)", f"{len(res.models)}"),
                  stat("fit on " + ", ".join(res.train), f"{res.fit_seconds:.1f} s"),
                  stat("every operator and model on this GPU", f"{res.predict_seconds:.2f} s"),
                  stat("fitted on", fit)], className="stats"),
        html.P(f"Intervals: {100 * res.level:g} %, calibrated by holding out each training GPU in turn (the GPU shown "
               "never calibrates its own interval). " + (f"Five training GPUs support at most {', '.join(short)}; "
                                                         "the interval is the widest they calibrate. " if short else "")
               + "A model's interval is the sum of its operators' bounds; a model with an operator outside what "
               "was measured has none.", className="hint"),
    ], id="operators-summary-body")
