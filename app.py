"""perfcast web app: composition root (``gunicorn app:server``)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import dash
from dash import Dash, dcc, html

ROOT = Path(__file__).resolve().parent
VAR_DIR = Path(os.environ.get("PERFCAST_VAR_DIR", ROOT / "var"))


def _secret_key() -> str:
    """Explicit Flask secret shared by all workers: env var, else one kept on disk."""
    key = os.environ.get("PERFCAST_SECRET_KEY")
    if key:
        return key
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    path = VAR_DIR / "secret_key"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(secrets.token_hex(32))
        try:
            os.link(tmp, path)  # atomic: the first worker wins, the others read its key
        except FileExistsError:
            pass
        finally:
            tmp.unlink(missing_ok=True)
    return path.read_text().strip()


app = Dash(__name__, use_pages=True, pages_folder=str(ROOT / "dashboard" / "pages"),
           title="perfcast", suppress_callback_exceptions=True)
server = app.server
server.secret_key = _secret_key()

app.layout = html.Div([
    html.Header([
        html.Div([html.Span("perf", className="brand-a"), html.Span("cast", className="brand-b")],
                 className="brand"),
        html.Nav([dcc.Link(p["name"], href=p["relative_path"], className="nav-link")
                  for p in dash.page_registry.values()], className="nav"),
    ], className="topbar"),
    html.Main(dash.page_container, className="content"),
])

if __name__ == "__main__":
    app.run(debug=False, host="127.0.0.1", port=int(os.environ.get("PORT", 8050)))
