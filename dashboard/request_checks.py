"""Two checks on every request, before the app sees it (a WSGI wrapper around the Flask app).

**Host** (DNS rebinding): a page on another site whose name an attacker points at this server's address
would otherwise be answered as if it were this site, and its scripts could read every answer. A request
whose ``Host`` is not allowed gets HTTP 400 with a one-line plain message and nothing else (no page, no
layout, no callback, no asset). Allowed: ``PERFCAST_ALLOWED_HOSTS`` (names, ``name:port`` for one port;
``*``, only when given explicitly, allows any host), by default ``127.0.0.1``, ``localhost`` and ``[::1]``
at any port; always the host of ``PERFCAST_SITE_URL`` when it is set.

**Origin** (CSRF): a request that changes state (POST, PUT, PATCH, DELETE: every Dash callback, and so
every upload, save, delete and job) is refused with HTTP 403 when its ``Origin`` header, or without one its
``Referer``, names another origin than the site's. The site is ``PERFCAST_SITE_URL`` when set, else the
request's own scheme and (allowed) ``Host``. A request with neither header is let through: browsers always
send ``Origin`` on a cross-site POST (and on same-origin ones, so Dash's own requests carry it), so such a
request comes from a program (``curl``, the test suite's ``requests`` calls), which no web page can make a
visitor's browser send; ``PERFCAST_REQUIRE_ORIGIN=1`` refuses those too.

Each refusal is logged (``perfcast.audit``) with the client's address.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from dashboard import audit_log

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_PORTS = {"http": "80", "https": "443"}
HOST_REFUSED = b"Bad Request: this server does not answer to that host name.\n"
ORIGIN_REFUSED = b"Forbidden: this request comes from another site.\n"


def split_host(host: str) -> tuple[str, str | None]:
    """``"Name:8050"`` -> ``("name", "8050")``, ``"[::1]"`` -> ``("[::1]", None)``; a malformed host (a bare IPv6
    address, a port that is not digits) comes back whole as its name, which matches no allowed name."""
    host = host.strip().lower()
    if host.startswith("["):
        name, bracket, rest = host.partition("]")
        if bracket and not rest:
            return name + "]", None
        if bracket and rest[:1] == ":" and rest[1:].isdigit():
            return name + "]", rest[1:]
        return host, None
    name, colon, port = host.partition(":")
    if not colon:
        return name, None
    return (name, port) if port.isdigit() and ":" not in port else (host, None)


def origin_of(url: str) -> str | None:
    """``scheme://host[:port]`` of an http(s) URL, lower-cased, without a default port; None for anything
    else (``null``, another scheme, no host)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    netloc = parts.netloc.rpartition("@")[2]
    if scheme not in DEFAULT_PORTS or not netloc:
        return None
    name, port = split_host(netloc)
    return f"{scheme}://{name}" + (f":{port}" if port and port != DEFAULT_PORTS[scheme] else "")


class AllowedHosts:
    """The host names a request may name: ``entries`` as ``name`` (any port) or ``name:port``; ``*`` any."""

    def __init__(self, entries, site_url: str | None = None):
        self.any = "*" in entries
        self.entries = {split_host(e) for e in entries if e != "*"}
        site = origin_of(site_url) if site_url else None
        if site:
            self.entries.add((split_host(site.split("://", 1)[1])[0], None))

    def __contains__(self, host: str) -> bool:
        if self.any:
            return True
        name, port = split_host(host)
        return (name, None) in self.entries or (port is not None and (name, port) in self.entries)


def _plain(start_response, status: str, body: bytes):
    start_response(status, [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body))),
                            ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-store")])
    return [body]


class RequestChecks:
    """WSGI middleware: the Host check on every request, the Origin check on state-changing ones."""

    def __init__(self, app, allowed_hosts, site_url: str | None = None, require_origin: bool = False):
        self.app = app
        self.allowed = AllowedHosts(allowed_hosts, site_url)
        self.site = origin_of(site_url) if site_url else None
        self.require_origin = require_origin

    def __call__(self, environ, start_response):
        host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "")
        address = environ.get("REMOTE_ADDR") or "-"
        path = environ.get("PATH_INFO", "")
        if host not in self.allowed:
            audit_log.record("refused host", address, host=host, method=environ.get("REQUEST_METHOD"), path=path)
            return _plain(start_response, "400 Bad Request", HOST_REFUSED)
        if environ.get("REQUEST_METHOD", "GET").upper() in STATE_CHANGING:
            site = self.site or origin_of(f"{environ.get('wsgi.url_scheme', 'http')}://{host}")
            claimed = environ.get("HTTP_ORIGIN") or environ.get("HTTP_REFERER")
            if claimed is None:
                refused = self.require_origin
            else:
                claimed = origin_of(claimed) or claimed  # a Referer's path and query are not logged
                refused = claimed != site
            if refused:
                audit_log.record("refused origin", address, origin=claimed or "none", site=site, path=path)
                return _plain(start_response, "403 Forbidden", ORIGIN_REFUSED)
        return self.app(environ, start_response)


class AtOnce:
    """WSGI middleware: at most ``n`` requests of this process run at once (the others wait their turn), except
    sign-in posts, which wait for a password-check slot of their own (dashboard/access/passwords.py) on the
    web threads beyond ``n``. A process has more web threads than it runs requests at once: a burst of
    sign-ins waits on those, while pages and callbacks run as they did on ``n`` threads (``REQUESTS_AT_ONCE``,
    4, the web threads per process before sign-ins had threads of their own)."""

    def __init__(self, app, n: int, exempt=frozenset({("POST", "/login")})):
        import threading

        self.app = app
        self.permits = threading.BoundedSemaphore(max(1, n))
        self.exempt = exempt

    def __call__(self, environ, start_response):
        if (environ.get("REQUEST_METHOD", "GET").upper(), environ.get("PATH_INFO", "")) in self.exempt:
            return self.app(environ, start_response)
        with self.permits:  # the app's work; the server thread then sends the answer (a file streams) without it
            return self.app(environ, start_response)


def install(server) -> None:
    """Wrap the Flask ``server``'s WSGI app with the checks configured in :mod:`dashboard.settings`, and
    inside them :class:`AtOnce` (``REQUESTS_AT_ONCE`` requests of this process at once)."""
    from dashboard.settings import ALLOWED_HOSTS, REQUESTS_AT_ONCE, REQUIRE_ORIGIN, SITE_URL

    if SITE_URL and not origin_of(SITE_URL):
        raise SystemExit(f"perfcast: PERFCAST_SITE_URL must be an http(s) address such as "
                         f"https://perfcast.example.com, not {SITE_URL!r}")
    server.wsgi_app = RequestChecks(AtOnce(server.wsgi_app, REQUESTS_AT_ONCE), ALLOWED_HOSTS, SITE_URL,
                                    REQUIRE_ORIGIN)


def local_host() -> str:
    """A ``Host`` the checks allow, for the server's own requests to itself (the warm-up at worker start)."""
    from dashboard.settings import ALLOWED_HOSTS, SITE_URL

    named = [e for e in ALLOWED_HOSTS if e != "*"]
    if SITE_URL and origin_of(SITE_URL):
        return origin_of(SITE_URL).split("://", 1)[1]
    return named[0] if named else "localhost"
