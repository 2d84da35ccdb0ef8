"""Sign-in by a trusted reverse proxy's header (teams behind their own SSO): with
``PERFCAST_PROXY_USER_HEADER`` (e.g. ``X-Forwarded-User``) and ``PERFCAST_TRUSTED_PROXIES`` (addresses or CIDRs),
a request whose TCP peer (``request.remote_addr`` as gunicorn gives it: the connection's address, never
``X-Forwarded-For``) is one of the proxies and that carries the header is signed in as the account of that name.
The same header from any other address is ignored (and logged, at most once a minute per address and process):
the request is then judged by its session cookie alone, as if the header were not there.

No cookie and no session row: every request is signed in by its own header, so the proxy decides on each one
(its sign-out, its session lifetime, its revocation take effect on the next request), and nothing a browser
holds can sign anyone in when it reaches perfcast without the proxy. To shut someone out on perfcast's side,
``python -m dashboard.admin user disable NAME`` (effective on the next request). A name without an account gets
one (a member of no project: it sees nothing until an owner adds it) unless ``PERFCAST_PROXY_CREATE_USERS=0``.
"""

from __future__ import annotations

import ipaddress
import logging
import time
from datetime import datetime, timedelta

from dashboard import settings
from modeling.parallel import ForkSafeLock

_log = logging.getLogger("perfcast")
_NOTED: dict[str, float] = {}  # address or account -> when it was last logged (per process)
_NOTED_LOCK = ForkSafeLock()
#: the session "digest" of a proxy sign-in: no session row has it (sign-out revokes nothing)
DIGEST = "proxy-header"


def enabled() -> bool:
    return bool(settings.PROXY_USER_HEADER)


def networks(entries=None) -> list:
    """The trusted proxies as networks; raises ValueError naming an entry that is not an address or CIDR."""
    out = []
    for entry in settings.TRUSTED_PROXIES if entries is None else entries:
        try:
            out.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError as e:
            raise ValueError(f"PERFCAST_TRUSTED_PROXIES: {entry!r} is not an address or CIDR") from e
    return out


def check_settings() -> None:
    """At start: a header without proxies (it would never be honoured) or a bad entry stops the server."""
    if not enabled():
        return
    try:
        nets = networks()
    except ValueError as e:
        raise SystemExit(f"perfcast: {e}") from e
    if not nets:
        raise SystemExit("perfcast: PERFCAST_PROXY_USER_HEADER is set but PERFCAST_TRUSTED_PROXIES is empty: "
                         "name the proxies' addresses (e.g. 10.0.0.5,10.0.1.0/24).")


def trusted(address: str | None) -> bool:
    from dashboard.audit_log import trusted_peer

    return trusted_peer(address)


def _once(key: str, seconds: float = 60.0) -> bool:
    now = time.monotonic()
    with _NOTED_LOCK:
        if now - _NOTED.get(key, -1e9) < seconds:
            return False
        if len(_NOTED) > 10000:
            _NOTED.clear()
        _NOTED[key] = now
        return True


def signed_in(request):
    """The account the trusted proxy's header names for ``request`` (a sessions.SignedIn), or None: no header,
    an untrusted peer (logged), a name that is not valid, an unknown name when accounts are not created, or a
    disabled account."""
    if not enabled():
        return None
    value = request.headers.get(settings.PROXY_USER_HEADER)
    if value is None:
        return None
    address = request.remote_addr or "-"
    if not trusted(address):
        if _once("peer:" + address):
            from dashboard import audit_log

            _log.warning("proxy user header %s from %s ignored: not a trusted proxy (PERFCAST_TRUSTED_PROXIES)",
                         settings.PROXY_USER_HEADER, address)
            audit_log.record("proxy header ignored", address, why="untrusted address")
        return None
    return _account(value.strip(), address)


def _account(name: str, address: str):
    from sqlalchemy.exc import IntegrityError

    from dashboard import audit_log
    from dashboard.access import accounts, database
    from dashboard.access.models import User
    from dashboard.access.sessions import SignedIn

    try:
        name = accounts.check_name(name)
    except accounts.AccessError:
        if _once("bad:" + address):
            audit_log.record("sign-in failed", address, method="proxy", why="invalid name in proxy header")
        return None
    for _attempt in range(3):
        try:
            with database.session() as db:
                user = accounts.find_user(db, name)
                created = False
                if user is None:
                    if not settings.PROXY_CREATE_USERS:
                        if _once("unknown:" + name):
                            audit_log.record("sign-in failed", address, method="proxy", account=name,
                                             why="no such account")
                        return None
                    user = User(name=name, display_name=name, password_hash=None)
                    db.add(user)
                    db.flush()
                    created = True
                if user.disabled:
                    if _once("disabled:" + name):
                        audit_log.record("sign-in failed", address, method="proxy", account=name, why="disabled")
                    return None
                signed = SignedIn(user.id, user.name, user.display_name, DIGEST,
                                  datetime.now() + timedelta(hours=settings.SESSION_HOURS))
            break
        except IntegrityError:  # created by another worker at the same moment: read it again
            time.sleep(0.05)
    else:
        return None
    if created:
        audit_log.record("account created", address, method="proxy", account=name)
    if _once("in:" + name, settings.SESSION_HOURS * 3600):  # not one line per request
        audit_log.record("signed in", address, method="proxy", account=name)
    return signed


def account_name(headers: dict, address: str | None) -> str | None:
    """The account a trusted proxy's header named on a request that is over (a background job's audit lines:
    Dash hands the job the starting request's headers and peer address); None when it named nobody valid."""
    if not enabled() or not trusted(address):
        return None
    wanted = settings.PROXY_USER_HEADER.lower()
    value = next((v for k, v in (headers or {}).items() if str(k).lower() == wanted), None)
    if not isinstance(value, str):
        return None
    from dashboard.access import accounts, database

    try:
        name = accounts.check_name(value)
    except accounts.AccessError:
        return None
    with database.session() as db:
        return name if accounts.find_user(db, name) is not None else None
