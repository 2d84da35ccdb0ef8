"""perfcast web app: composition root (``gunicorn app:server``)."""

from __future__ import annotations

import contextlib
import logging
import os
import secrets

import dash
from dash import Dash, dcc, html

from dashboard import access, request_checks, security
from dashboard.ui import (callback_graph, chart_order, compression, first_page, grid_loading, layout_prefetch,
                          plotly_bundle, polyfill, service_notice)
from dashboard.ui.project_menu import project_menu
from dashboard.callback_errors import on_callback_error
from dashboard.jobs import background_manager, service_check  # noqa: F401 - registers the notice's check
from dashboard.settings import MAX_UPLOAD_BYTES, REDIS_URL, ROOT, VAR_DIR, make_files_private

make_files_private()  # before this process writes anything (gunicorn.conf.py did it already for gunicorn)


def _private_var_dir() -> None:
    """The var directory and the files that hold secrets, readable by the server's own user only (new files are
    private through the umask of ``settings.make_files_private``; this tightens those an earlier version left
    0644)."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    VAR_DIR.chmod(0o700)
    for name in ("secret_key", "perfcast.db", "perfcast.db-wal", "perfcast.db-shm"):
        with contextlib.suppress(FileNotFoundError):
            (VAR_DIR / name).chmod(0o600)


def _secret_key() -> str:
    """Explicit Flask secret shared by all workers: env var, else one kept on disk. With the redis job
    backend it must be given: web servers on several machines sign and check each other's job handles
    with it, and with different keys they would silently reject each other's jobs."""
    from dashboard import settings

    key = settings.SECRET_KEY
    if key and REDIS_URL:
        from dashboard.jobs.startup_checks import StartupRefused, shared_key_problem

        problem = shared_key_problem(REDIS_URL, key)
        if problem:
            raise StartupRefused(problem)
    if key:
        return key
    if REDIS_URL:
        raise SystemExit("perfcast: PERFCAST_REDIS_URL is set, so PERFCAST_SECRET_KEY must be set too, to the same "
                         "value on every web server and worker (e.g. the output of: python -c 'import secrets; "
                         "print(secrets.token_hex(32))').")
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


_log = logging.getLogger("perfcast")
if not _log.handlers:  # the server's log (gunicorn's stderr): messages and tracebacks of perfcast itself
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    _log.addHandler(_handler)
    _log.setLevel(logging.INFO)

app = Dash(__name__, use_pages=True, pages_folder=str(ROOT / "dashboard" / "pages"),
           title="perfcast", suppress_callback_exceptions=True,
           background_callback_manager=background_manager(), on_error=on_callback_error,
           assets_ignore="|".join(p for p in (plotly_bundle.assets_ignore(), polyfill.assets_ignore(),
                                               chart_order.assets_ignore(), grid_loading.assets_ignore(),
                                               layout_prefetch.assets_ignore()) if p),
           compress=True)
server = app.server
security.install(app)
plotly_bundle.install(app)
polyfill.install()
grid_loading.install()
first_page.install(app)
compression.install(app)
callback_graph.install(app)  # the callback graph encoded once per worker
request_checks.install(server)  # outermost: a foreign Host or Origin reaches nothing else
# assets are fingerprinted by Dash (?m=<mtime>): browsers may keep them for a year
server.config["SEND_FILE_MAX_AGE_DEFAULT"] = 365 * 24 * 3600
_private_var_dir()
server.secret_key = _secret_key()
access.install(app)  # the gate runs first of every before_request: without a session only /login, /setup, /assets
if REDIS_URL:  # ./worker.sh: celery -A app:celery_app worker (the same code as the web servers)
    from dashboard.jobs import fanout
    from dashboard.jobs.celery_app import celery_app as _make_celery

    celery_app = _make_celery()
    fanout.register(celery_app)  # the helper task that shares a leaderboard's fits over the workers
# uploads arrive base64-encoded in a callback body: refuse bodies far above the limit early
server.config["MAX_CONTENT_LENGTH"] = int(MAX_UPLOAD_BYTES * 1.4) + 1024 * 1024

def _topbar():
    """Brand, page links, the project menu (dashboard/ui/project_menu.py), and who is signed in with a plain
    sign-out form (POST /logout)."""
    user = access.current_user()
    signout = html.Form([html.A(user.display_name or user.name, href="/password", className="signout-user",
                                id="signed-in-user", title="your account: change your password"),
                         html.Button("Sign out", type="submit", id="signout-button")],
                        action="/logout", method="POST", className="signout") if user else None
    return html.Header([
        dcc.Link([html.Span("perf", className="brand-a"), html.Span("cast", className="brand-b")],
                 href="/", className="brand"),
        html.Nav([dcc.Link(p["name"], href=p["relative_path"], className="nav-link", id=f"nav-{p['name'].lower()}")
                  for p in sorted(dash.page_registry.values(), key=lambda p: p.get("order", 99))], className="nav"),
        project_menu() if user else None,
        signout,
    ], className="topbar")


def _layout():
    """The top bar and the page container, which holds the opened page already (dashboard/ui/first_page.py)."""
    return html.Div([_topbar(), service_notice.layout(), html.Main(first_page.page_container(), className="content")])


app.layout = _layout

if __name__ == "__main__":
    from dashboard.access import first_start
    from dashboard.state.upgrade import move_into_first_project

    move_into_first_project()  # gunicorn does this in on_starting (gunicorn.conf.py)

    first_start.announce(f"http://127.0.0.1:{int(os.environ.get('PORT', 8050))}")
    app.run(debug=False, host="127.0.0.1", port=int(os.environ.get("PORT", 8050)))
