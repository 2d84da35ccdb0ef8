"""Form fields: a labelled control, a number input that reports on Enter or blur, a dropdown."""

from __future__ import annotations

from dash import dcc, html


def field(label, control, hint=None):
    return html.Div([html.Label(label, className="field-label"), control,
                     # a component is a hint even while empty (a callback fills it): ``len`` of a component counts
                     # its children, so it is tested against None, not for truth
                     html.Div(hint, className="field-hint") if hint is not None and hint != "" else None],
                    className="field")


def number_field(prefix, name, value, label=None, hint=None):
    """A numeric input (id ``<prefix>-<name>``) that reports on Enter or blur, not on every keystroke."""
    return field(label or name, dcc.Input(id=f"{prefix}-{name}", type="number", value=value, step="any",
                                          debounce=True, className="num-input"), hint)


def dropdown(id_, options, value, multi=False, **kw):
    opts = [o if isinstance(o, dict) else {"label": str(o), "value": o} for o in options]
    return dcc.Dropdown(id=id_, options=opts, value=value, clearable=False, multi=multi, **kw)


def wide(control):
    """A field two columns wide in a ``form-grid`` (a dropdown whose values are long names)."""
    return html.Div(control, style={"gridColumn": "span 2"})
