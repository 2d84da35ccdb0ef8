"""The share box of a page and the mirror of its form values into the address bar."""

from __future__ import annotations

import json

from dash import Input, Output, clientside_callback, dcc, html


def share_box(prefix: str) -> html.Div:
    return html.Div([
        html.Span("Link to this view", className="share-label"),
        dcc.Input(id=f"{prefix}-share", readOnly=True, className="share-input", value=""),
        dcc.Clipboard(target_id=f"{prefix}-share", title="copy link", className="share-copy"),
    ], className="share-box")


def register_url_sync(prefix: str, names: list[str], ids: list[str]) -> None:
    """Mirror form values into the address bar (no reload) and the share box."""
    clientside_callback(
        f"""function(...vals) {{
            const names = {json.dumps(names)};
            const q = new URLSearchParams();
            names.forEach((n, i) => {{
                let v = vals[i];
                if (v === null || v === undefined || v === '') return;
                if (Array.isArray(v)) {{ if (!v.length) return; v = v.join(','); }}
                q.set(n, v);
            }});
            const url = window.location.pathname + '?' + q.toString();
            window.history.replaceState(window.history.state, '', url);
            return window.location.origin + url;
        }}""",
        Output(f"{prefix}-share", "value"),
        [Input(i, "value") for i in ids],
    )
