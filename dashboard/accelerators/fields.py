"""The typed-parameter form of a custom LogCA accelerator."""

from __future__ import annotations

from dash import html

from dashboard.ui.fields import dropdown, field, number_field


def custom_accelerator_box(prefix, v, is_open):
    """The typed LogCA parameters L, o, C, A, beta and latency mode (used when 'custom' is chosen)."""
    return html.Details([html.Summary("Custom accelerator (choose 'custom' above)"), html.Div([
        number_field(prefix, "L", v["L"], hint="cycles, or cycles/byte when dependent"),
        number_field(prefix, "o", v["o"], hint="cycles"),
        number_field(prefix, "C", v["C"], hint="cycles per byte^β"), number_field(prefix, "A", v["A"]),
        number_field(prefix, "beta", v["beta"]),
        field("latency", dropdown(f"{prefix}-latency", ["independent", "dependent"], v["latency"])),
    ], className="form-grid")], open=is_open)
