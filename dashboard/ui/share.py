"""The share box of a page and the mirror of its form values into the address bar.

The link in the share box names its project (``?...&project=<name>``, the current project's name, put in the
page by the server): a colleague whose browser works in another of their projects lands in this one (the
server switches their session after checking the membership, dashboard/access/projects.py); to anyone else
the link reads as one to things that do not exist. The address bar keeps the page's own parameters only.
"""

from __future__ import annotations

import json

from dash import Input, Output, State, clientside_callback, dcc, html

from dashboard.access.projects import current_project


def share_box(prefix: str) -> html.Div:
    cur = current_project()
    return html.Div([
        html.Span("Link to this view", className="share-label"),
        dcc.Input(id=f"{prefix}-share", readOnly=True, className="share-input", value=""),
        dcc.Clipboard(target_id=f"{prefix}-share", title="copy link", className="share-copy"),
        dcc.Store(id=f"{prefix}-share-project", data=cur.name if cur else None),
    ], className="share-box")


def register_url_sync(prefix: str, names: list[str], ids: list[str]) -> None:
    """Mirror form values into the address bar (no reload) and the share box (with the project's name)."""
    clientside_callback(
        f"""function(...args) {{
            const project = args.pop();
            const vals = args;
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
            if (typeof project === 'string' && project) q.set('project', project);
            return window.location.origin + window.location.pathname + '?' + q.toString();
        }}""",
        Output(f"{prefix}-share", "value"),
        [Input(i, "value") for i in ids],
        State(f"{prefix}-share-project", "data"),
    )
