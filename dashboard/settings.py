"""Where the dashboard keeps its state, and the limits it enforces.

Everything mutable lives under one directory (``PERFCAST_VAR_DIR``, default
``var/`` in the project) shared by all gunicorn workers and job processes:
saved datasets and scenarios, the result cache and the job manager's cache.
"""

from __future__ import annotations

import os
from pathlib import Path

from modeling.parallel import cores as _cores

ROOT = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("PERFCAST_VAR_DIR", ROOT / "var"))

#: The umask of every perfcast server process (:func:`make_files_private`).
PRIVATE_UMASK = 0o077


def make_files_private() -> None:
    """Make everything this process writes from now on its owner's alone (umask 077): the secret key, the access
    database (password hashes, sessions, the audit trail), uploads and results. Called first by each start-up
    before anything is written: gunicorn.conf.py (the master that migrates the database; its web workers are
    forked from it), app.py (a server started otherwise, and the Celery workers of ``celery -A app``) and
    ``python -m dashboard.admin``; job processes inherit it from the process that starts them. app.py also
    tightens a var directory made by an earlier version."""
    os.umask(PRIVATE_UMASK)


#: Largest upload accepted, checked on the server on the decoded size.
MAX_UPLOAD_BYTES = int(os.environ.get("PERFCAST_MAX_UPLOAD_MB", 50)) * 1024 * 1024
#: Jobs that may train at the same time on this machine (others queue).
MAX_CONCURRENT_JOBS = int(os.environ.get("PERFCAST_MAX_JOBS", 2))
#: Jobs one person may have running or queued at once, over all their projects, and jobs one project may have
#: (over all its members): a further Run is refused, naming the jobs that hold the quota (dashboard/jobs/quotas.py).
#: Two per person by default: as many as a machine's slots (MAX_CONCURRENT_JOBS), so one person can compare two
#: settings side by side, but never queue more, so another person's job waits behind at most two of theirs.
#: Three per project: one more than a person's two, so a second member of a busy project can still start one
#: job, while no project fills the queue in front of every other project.
JOBS_PER_USER = max(1, int(os.environ.get("PERFCAST_JOBS_PER_USER", 2)))
JOBS_PER_PROJECT = max(1, int(os.environ.get("PERFCAST_JOBS_PER_PROJECT", 3)))
#: The most mini-batch steps the networks of one /counts job may train (dashboard/counts/kinds.py: epochs x batches
#: per fit, over its fits and programs). A step costs 0.2-0.4 ms of a core: 3,000,000 is about 15 minutes, about
#: 3x what "every program" of the shipped CPU table costs with the default settings; 5,000 epochs of batch 1 over
#: every program of the shipped CPU table (59 million steps: hours) is refused.
JOB_MAX_NETWORK_STEPS = int(os.environ.get("PERFCAST_JOB_MAX_NETWORK_STEPS", 3_000_000))
#: Scheduling priority of job processes relative to the web workers (os.nice increment).
JOB_NICENESS = int(os.environ.get("PERFCAST_JOB_NICENESS", 10))
#: worker processes of one job's fits (the ensemble's folds, a new application's models, a prediction's choice, a
#: plan's replays): by default one per core this process may use, as the command line's ``--jobs``
#: (``modeling.parallel.cores``); on a Celery worker the same, per job
JOB_WORKERS = max(1, int(os.environ.get("PERFCAST_JOB_WORKERS") or 0) or _cores())
#: how long a job and a web server wait for an unreachable Redis before they give up (dashboard/jobs/outage.py)
REDIS_OUTAGE_SECONDS = float(os.environ.get("PERFCAST_REDIS_OUTAGE_SECONDS", 600))
#: "partial" (the vendored cartesian plotly.js, dashboard/ui/plotly_bundle.py) or "full" (Dash's own)
PLOTLY_BUNDLE = os.environ.get("PERFCAST_PLOTLY_BUNDLE", "partial")
#: A job that no page has watched for this long stops (the user navigated away or
#: closed the tab). Hidden tabs still tick at least once a minute, so this stays well above that.
JOB_ABANDON_SECONDS = float(os.environ.get("PERFCAST_JOB_ABANDON_SECONDS", 150))
#: Result cache bounds.
RESULT_CACHE_BYTES = 1024**3
RESULT_TTL_SECONDS = 30 * 24 * 3600
#: Days a deleted dataset, saved scenario or saved prediction stays in the trash (dashboard/state/trash.py).
TRASH_DAYS = float(os.environ.get("PERFCAST_TRASH_DAYS", 30))
#: Browser polling interval of background jobs (ms).
POLL_MS = 300

# ----------------------------------------------------------------- scale-out (the redis job backend)
#: Set to a Redis URL (``redis://[:password@]host:6379/0``) to run jobs on Celery workers with results,
#: status, locks and cancel flags in Redis; unset: everything on this machine (diskcache, fork, flock).
REDIS_URL = os.environ.get("PERFCAST_REDIS_URL") or None
#: the key that signs sessions and job handles, when given (app.py keeps one on disk otherwise; the redis backend
#: needs it given, the same on every web server and worker: dashboard/jobs/startup_checks.py)
SECRET_KEY = os.environ.get("PERFCAST_SECRET_KEY") or None
#: Seconds a job's lease (its key lock, its slot, its liveness) lasts without renewal; the job renews it
#: every second, so a job whose machine died is known dead this long after its last renewal (30 s: on a busy
#: machine a live job's renewals stalled past 10 s).
LEASE_SECONDS = float(os.environ.get("PERFCAST_LEASE_SECONDS", 30))
#: Celery worker pool (``prefork`` or ``threads``) and concurrency, per worker machine (./worker.sh).
WORKER_POOL = os.environ.get("PERFCAST_WORKER_POOL", "prefork")
WORKER_CONCURRENCY = int(os.environ.get("PERFCAST_WORKER_CONCURRENCY", MAX_CONCURRENT_JOBS))
#: the redis backend shares a leaderboard's (model, fold) fits over every worker (dashboard/jobs/fanout.py)
FANOUT = os.environ.get("PERFCAST_FANOUT", "1") != "0"
#: helper tasks a leaderboard sends (one per worker process that may help; those that find nothing end at once)
FANOUT_HELPERS = int(os.environ.get("PERFCAST_FANOUT_HELPERS", 8))

#: "router": a page arrives by Dash's router callback after the first layout, as Dash does by default (the
#: "before" side of benchmarks/shared_link.py); otherwise inside the first layout (dashboard/ui/first_page.py)
FIRST_PAGE = os.environ.get("PERFCAST_FIRST_PAGE", "layout")
#: "babel": Dash's Babel polyfill, as Dash serves by default (the "before" side of benchmarks/shared_link.py);
#: otherwise the small generator runtime in assets/ (dashboard/ui/polyfill.py)
POLYFILL = os.environ.get("PERFCAST_POLYFILL", "none")
#: "together": every chart of a page drawn in one task, as Dash does (the "before" side of
#: benchmarks/shared_link.py); otherwise one after another (dashboard/ui/chart_order.py)
CHART_ORDER = os.environ.get("PERFCAST_CHART_ORDER", "one-by-one")
#: "per-request": scripts compressed again for every request, as Dash does (the "before" side of
#: benchmarks/shared_link.py); otherwise compressed once per worker and kept (dashboard/ui/compression.py)
STATIC_COMPRESSION = os.environ.get("PERFCAST_STATIC_COMPRESSION", "kept")
#: "eager": AG Grid's code runs before the page's layout is asked for, as Dash does (the "before" side of
#: benchmarks/shared_link.py); otherwise after the page's first chart (dashboard/ui/grid_loading.py)
GRID_LOADING = os.environ.get("PERFCAST_GRID_LOADING", "after-chart")
#: "renderer": the page asks for its layout after all its scripts ran, as Dash does (the "before" side of
#: benchmarks/shared_link.py); otherwise while they run (dashboard/ui/layout_prefetch.py)
LAYOUT_REQUEST = os.environ.get("PERFCAST_LAYOUT_REQUEST", "early")


def var_path(*parts: str) -> Path:
    p = VAR_DIR.joinpath(*parts)
    p.mkdir(parents=True, exist_ok=True)
    return p

# ----------------------------------------------------------------- requests (dashboard/request_checks.py)
#: The site's own address as browsers see it (``https://perfcast.example.com``), when it is served under a
#: name or behind a proxy: the origin state-changing requests must come from, and an allowed host.
SITE_URL = os.environ.get("PERFCAST_SITE_URL", "").strip() or None
#: Host names a request may name in its ``Host`` header (``name`` at any port, or ``name:port``), comma
#: separated; ``*`` (given explicitly) answers any host. Unset: the loopback names at any port.
ALLOWED_HOSTS = [h.strip() for h in os.environ.get("PERFCAST_ALLOWED_HOSTS", "").split(",") if h.strip()] or [
    "127.0.0.1", "localhost", "[::1]"]
#: "1": a state-changing request with neither ``Origin`` nor ``Referer`` is refused too (browsers always
#: send ``Origin`` on cross-site POSTs; scripts such as the test suite's ``requests`` calls send neither).
REQUIRE_ORIGIN = os.environ.get("PERFCAST_REQUIRE_ORIGIN", "") == "1"
#: Where gunicorn writes its access log (one line per request, with the client's address); "-": stderr.
ACCESS_LOG = os.environ.get("PERFCAST_ACCESS_LOG", "-")

# ----------------------------------------------------------------- sign-in (dashboard/access)


def database_url(environ=os.environ) -> str:
    """The one database of users, projects, sessions and the audit trail: ``PERFCAST_DATABASE_URL``
    (``postgresql+psycopg://user:password@host/db`` when several web servers share it), else a SQLite file
    ``perfcast.db`` in ``PERFCAST_VAR_DIR``."""
    url = (environ.get("PERFCAST_DATABASE_URL") or "").strip()
    if url:
        return url
    var = Path(environ.get("PERFCAST_VAR_DIR", ROOT / "var"))
    return f"sqlite:///{var / 'perfcast.db'}"


DATABASE_URL = database_url()
#: Hours a sign-in lasts; after that every request of that browser is sent to /login again.
SESSION_HOURS = float(os.environ.get("PERFCAST_SESSION_HOURS", 12))
#: Sessions one account keeps open at once: a new sign-in beyond them ends the account's oldest session, so an
#: account signing in over and over cannot grow the session table (dashboard/access/sessions.py).
SESSIONS_PER_ACCOUNT = max(1, int(os.environ.get("PERFCAST_SESSIONS_PER_ACCOUNT", 20)))
#: Hours an ended (expired or revoked) session's row is kept before it is deleted: a job it started still names
#: its user in the audit trail meanwhile.
ENDED_SESSION_KEEP_HOURS = float(os.environ.get("PERFCAST_ENDED_SESSION_KEEP_HOURS", 24))
#: argon2 cost profile (a name in ``argon2.profiles``): the default costs about 170 ms per hash or check;
#: ``CHEAPEST`` is for the test suite only.
ARGON2_PROFILE = os.environ.get("PERFCAST_ARGON2_PROFILE", "RFC_9106_LOW_MEMORY").strip().upper()
#: Failed sign-ins allowed from browsers without the account's device cookie, per account and per client (the
#: forwarded address behind a trusted proxy; an IPv6 /64) within LOGIN_WINDOW_SECONDS; beyond them such
#: attempts are refused (HTTP 429) without checking the password until the window has passed.
LOGIN_FAILURES_PER_ACCOUNT = int(os.environ.get("PERFCAST_LOGIN_FAILURES_PER_ACCOUNT", 5))
LOGIN_FAILURES_PER_ADDRESS = int(os.environ.get("PERFCAST_LOGIN_FAILURES_PER_ADDRESS", 20))
#: Failed sign-ins allowed per device (a browser holding the account's device cookie, from an earlier sign-in
#: to it) in the window; other browsers' failures never count against a device (dashboard/access/limiter.py).
LOGIN_FAILURES_PER_DEVICE = int(os.environ.get("PERFCAST_LOGIN_FAILURES_PER_DEVICE", 5))
#: Sign-ins (their database writes and password check: ~170 ms of a core and 64 MiB) one web process handles at
#: once for browsers without the account's device cookie (browsers with one have a slot of their own), and the
#: seconds an attempt waits for one before it is answered 503: a burst of sign-ins leaves the other web threads
#: to signed-in members.
LOGIN_CHECKS_AT_ONCE = max(1, int(os.environ.get("PERFCAST_LOGIN_CHECKS_AT_ONCE", 2)))
LOGIN_CHECK_WAIT = float(os.environ.get("PERFCAST_LOGIN_CHECK_WAIT", 10.0))
#: Web threads per web process (gunicorn.conf.py); how many requests other than sign-in posts one process
#: runs at once (dashboard/request_checks.py AtOnce; the others wait their turn); and how many sign-ins of
#: browsers without the account's device cookie may wait for a slot at once (the others are answered 503 at
#: once, with Retry-After): the threads beyond REQUESTS_AT_ONCE hold waiting sign-ins, never members' views.
WEB_THREADS = max(1, int(os.environ.get("PERFCAST_THREADS", 16)))
REQUESTS_AT_ONCE = max(1, int(os.environ.get("PERFCAST_REQUESTS_AT_ONCE", min(4, WEB_THREADS))))
LOGIN_WAITING_AT_ONCE = max(1, int(os.environ.get("PERFCAST_LOGIN_WAITING_AT_ONCE",
                                                  WEB_THREADS - REQUESTS_AT_ONCE)))
#: Scheduling priority of the password checks of browsers without the account's device cookie, below the web
#: threads and above jobs (os.setpriority increment of the checking thread; jobs run at JOB_NICENESS).
LOGIN_CHECK_NICENESS = int(os.environ.get("PERFCAST_LOGIN_CHECK_NICENESS", 5))
LOGIN_WINDOW_SECONDS = float(os.environ.get("PERFCAST_LOGIN_WINDOW_SECONDS", 900))
#: Days a client (address) an account signed in from stays known: a new browser there is limited as a device of
#: its own, not by strangers' failures for the account (dashboard/access/limiter.py).
KNOWN_CLIENT_DAYS = float(os.environ.get("PERFCAST_KNOWN_CLIENT_DAYS", 90))
#: Seconds a failed sign-in waits before it is answered. 0 by default: the limits above bound guessing, and a
#: waiting answer holds one of the web threads that signed-in members need (a stranger's parallel failures held
#: them all).
LOGIN_FAILURE_DELAY = float(os.environ.get("PERFCAST_LOGIN_FAILURE_DELAY", 0.0))
#: Hours the first-start link (/setup?token=...) stays valid.
SETUP_TOKEN_HOURS = 24
#: Days the audit trail keeps an event: older ones are deleted, oldest first, at each web worker's start and by
#: ``python -m dashboard.admin audit prune`` (the chain is re-anchored: dashboard/access/audit_chain.py prune).
#: 0 keeps every event for ever.
AUDIT_KEEP_DAYS = float(os.environ.get("PERFCAST_AUDIT_KEEP_DAYS", 400))
#: Hours an owner's invitation link (/invite?token=...) stays valid, unless it is used or withdrawn before.
INVITATION_HOURS = float(os.environ.get("PERFCAST_INVITATION_HOURS", 7 * 24))
#: Name of the session cookie (cookies ignore ports: two perfcast servers on one host need different names).
SESSION_COOKIE = os.environ.get("PERFCAST_SESSION_COOKIE", "perfcast_session")

# ----------------------------------------------------------------- other ways of signing in (dashboard/access)


def _flag(name: str, default: str) -> bool:
    return os.environ.get(name, default).strip().lower() in ("1", "true", "yes", "on")


#: "0": no sign-in with a built-in password (the form is not shown, a POST to /login is refused); use it when
#: everyone signs in through OpenID Connect or the proxy header.
PASSWORD_SIGNIN = _flag("PERFCAST_PASSWORD_SIGNIN", "1")
#: Single sign-on through OpenID Connect (dashboard/access/oidc.py): the provider's issuer URL (its discovery
#: document is ``ISSUER/.well-known/openid-configuration``), and this site's client id and secret there. The
#: client's redirect URI is ``<site>/oidc/callback``, its post-logout redirect URI ``<site>/login``.
OIDC_ISSUER = os.environ.get("PERFCAST_OIDC_ISSUER", "").strip() or None
OIDC_CLIENT_ID = os.environ.get("PERFCAST_OIDC_CLIENT_ID", "").strip() or None
OIDC_CLIENT_SECRET = os.environ.get("PERFCAST_OIDC_CLIENT_SECRET", "").strip() or None
#: The provider's name on the sign-in button ("Sign in with <name>"); default: the issuer's host.
OIDC_NAME = os.environ.get("PERFCAST_OIDC_NAME", "").strip() or None
#: The claim a new user's perfcast name is taken from (then ``email``, then ``sub``).
OIDC_USERNAME_CLAIM = os.environ.get("PERFCAST_OIDC_USERNAME_CLAIM", "preferred_username").strip()
#: "1" (default): someone the provider signs in who has no perfcast account yet gets one, a member of no
#: project (they see nothing until an owner adds them); "0": they are refused until an administrator links
#: their subject to an account (python -m dashboard.access.oidc link NAME SUBJECT).
OIDC_CREATE_USERS = _flag("PERFCAST_OIDC_CREATE_USERS", "1")
#: "1" (default): sign-out also sends the browser to the provider's end_session_endpoint, when it has one.
OIDC_PROVIDER_SIGNOUT = _flag("PERFCAST_OIDC_PROVIDER_SIGNOUT", "1")
#: Seconds a sign-in begun at the provider may take before its callback is refused.
OIDC_FLOW_SECONDS = float(os.environ.get("PERFCAST_OIDC_FLOW_SECONDS", 600))
#: A trusted reverse proxy's header naming the signed-in user (dashboard/access/proxy.py), e.g.
#: ``X-Forwarded-User``; honoured only on connections from PERFCAST_TRUSTED_PROXIES (addresses or CIDRs,
#: comma separated), ignored (and logged) from anyone else.
PROXY_USER_HEADER = os.environ.get("PERFCAST_PROXY_USER_HEADER", "").strip() or None
TRUSTED_PROXIES = [p.strip() for p in os.environ.get("PERFCAST_TRUSTED_PROXIES", "").split(",") if p.strip()]
#: "1" (default): a name the proxy sends that has no perfcast account yet gets one, a member of no project.
PROXY_CREATE_USERS = _flag("PERFCAST_PROXY_CREATE_USERS", "1")
