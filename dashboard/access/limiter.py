"""The sign-in limiter: slows password guessing without letting a stranger lock members out.

Kept in the database (``login_failures``), so every worker and web server counts the same attempts. The rules,
after OWASP's device-cookie scheme:

- **Known browsers.** A browser that has signed in to an account holds a signed device cookie for it
  (:func:`device_cookie`, one year). Its attempts for that account are counted for that device alone
  (``PERFCAST_LOGIN_FAILURES_PER_DEVICE``, 5 in the window): nobody else's failures, for the account or from
  the same address, ever refuse it.
- **New browsers at a known place.** A browser without the device cookie, from a client (address) where the
  account signed in before (``known_clients``, within ``PERFCAST_KNOWN_CLIENT_DAYS``, 90), is limited as a
  device of its own (:func:`location_device`): throttled by its own failures only, never locked out by
  strangers guessing the account's password from elsewhere (OWASP ASVS: throttling, not lockout).
- **Other browsers** are limited per account (``PERFCAST_LOGIN_FAILURES_PER_ACCOUNT``, 5) and per client
  (``PERFCAST_LOGIN_FAILURES_PER_ADDRESS``, 20) within ``PERFCAST_LOGIN_WINDOW_SECONDS`` (15 min). The client
  is the peer's address; behind a trusted proxy (``PERFCAST_TRUSTED_PROXIES``) the address the proxy forwards
  (``X-Forwarded-For``, nearest untrusted hop), so one stranger behind the proxy does not limit everyone; an
  IPv6 client counts by its /64 (one host has a whole /64 to rotate through).
- **Atomic.** An attempt is written as a row *before* its password is checked and counted after, so N guesses
  sent at once get at most the limit of checks (a check-then-write counter let 16 parallel guesses through 8
  checks). A refused attempt's row is removed; a failed one's stays; a successful one removes its own row and
  the failures of that device (or that client) for the account.

A successful sign-in never clears failures that other browsers made, so an attacker's count for the account
survives a member's sign-in.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import and_, delete, func, select

from dashboard import settings
from dashboard.access import database
from dashboard.access.models import KnownClient, LoginFailure, utcnow

DEVICE_COOKIE = "perfcast_device"
DEVICE_DAYS = 365


def _since():
    return utcnow() - timedelta(seconds=settings.LOGIN_WINDOW_SECONDS)


def client_key(peer: str | None, forwarded_for: str | None = None) -> str:
    """Who an attempt counts against: the peer's address, or behind a trusted proxy the nearest address in
    ``X-Forwarded-For`` that is not a trusted proxy; an IPv6 address as its /64 network, an IPv4-mapped IPv6
    address as the IPv4 address. At most 64 characters."""
    from dashboard.audit_log import forwarded_client, trusted_peer

    address = forwarded_client(peer, forwarded_for)
    if forwarded_for and trusted_peer((peer or "").split("%", 1)[0]):
        try:
            ipaddress.ip_address(address)
        except ValueError:  # not an address: every such entry counts as one client, not one each
            return "forwarded:unparsed"
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def _device_mac(account: str, device: str, secret: str) -> str:
    mac = hmac.new(secret.encode(), f"perfcast-device:{account}:{device}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def device_cookie(account: str, secret: str) -> str:
    """A new device cookie's value for ``account``: ``account.device-id.signature``."""
    device = secrets.token_hex(12)
    return f"{account}.{device}.{_device_mac(account, device, secret)}"


def device_of(cookie: str | None, account: str, secret: str) -> str | None:
    """The device id of a correctly signed device cookie of ``account``, else None."""
    if not cookie or len(cookie) > 200:
        return None
    parts = cookie.rsplit(".", 2)
    if len(parts) != 3 or parts[0] != account or len(parts[1]) != 24:
        return None
    return parts[1] if hmac.compare_digest(parts[2], _device_mac(account, parts[1], secret)) else None


@dataclass(frozen=True)
class Attempt:
    """One sign-in attempt being checked (its row is written): end it with :func:`failed` or :func:`succeeded`."""
    row_id: int
    account: str
    client: str
    device: str | None


def location_device(client: str) -> str:
    """The device id of a new browser at a known client: the client's digest (never a cookie's id, which is
    24 hexadecimal digits)."""
    return "loc-" + hashlib.sha256(client.encode()).hexdigest()[:28]


def known_client(account: str, client: str, url: str | None = None) -> bool:
    """Has ``account`` signed in from ``client`` within ``PERFCAST_KNOWN_CLIENT_DAYS``?"""
    since = utcnow() - timedelta(days=settings.KNOWN_CLIENT_DAYS)
    with database.session(url) as db:
        return db.scalar(select(KnownClient.id).where(KnownClient.account == account[:64],
                                                      KnownClient.client == client[:64],
                                                      KnownClient.last_success > since)) is not None


def remember_client(account: str, client: str, url: str | None = None) -> None:
    """A successful sign-in of ``account`` from ``client``: the place is known (or known again) from now."""
    account, client = account[:64], client[:64]
    with database.session(url) as db:
        row = db.scalar(select(KnownClient).where(KnownClient.account == account, KnownClient.client == client))
        if row is None:
            db.add(KnownClient(account=account, client=client, last_success=utcnow()))
        else:
            row.last_success = utcnow()


def begin(account: str, client: str, device: str | None = None, url: str | None = None) -> Attempt | None:
    """Write the attempt, then count: the attempt (None when refused, its row removed) if it is within the
    limits that apply to it, counting itself and every attempt being checked at the same moment."""
    account, client = account[:64], client[:64]
    since = _since()
    with database.session(url) as db:
        db.execute(delete(LoginFailure).where(LoginFailure.at <= since))  # the window's past, forgotten
        row = LoginFailure(account=account, address=client, device=device)
        db.add(row)
        db.flush()
        row_id = row.id
    with database.session(url) as db:
        if _over(db, account, client, device, since, 0):
            db.execute(delete(LoginFailure).where(LoginFailure.id == row_id))
            return None
    return Attempt(row_id, account, client, device)


def _over(db, account: str, client: str, device: str | None, since, more: int) -> bool:
    """Are the attempts written in the window (being checked, or failed), and ``more``, over a limit?"""
    def count(*where) -> int:
        return (db.scalar(select(func.count()).select_from(LoginFailure).where(LoginFailure.at > since, *where))
                or 0) + more

    if device is not None:
        return count(LoginFailure.device == device) > settings.LOGIN_FAILURES_PER_DEVICE
    unknown = LoginFailure.device.is_(None)
    return (count(unknown, LoginFailure.account == account) > settings.LOGIN_FAILURES_PER_ACCOUNT
            or count(unknown, LoginFailure.address == client) > settings.LOGIN_FAILURES_PER_ADDRESS)


def limited(account: str, client: str, device: str | None = None, url: str | None = None) -> bool:
    """Would an attempt now be refused (a read, nothing written)? Asked before a sign-in waits for a slot, so a
    stranger already over a limit is answered 429 at once instead of taking one of the few waiting places;
    :func:`begin` decides, atomically."""
    with database.session(url) as db:
        return _over(db, account[:64], client[:64], device, _since(), 1)


def failed(attempt: Attempt, url: str | None = None) -> None:
    """A wrong password: the attempt's row stays and counts until the window has passed."""


def succeeded(attempt: Attempt, url: str | None = None) -> None:
    """The right password: the attempt and the failures of the same device (or, from an unknown browser, the
    same client) for this account are forgotten; other browsers' failures keep counting."""
    same = (LoginFailure.device == attempt.device if attempt.device is not None
            else and_(LoginFailure.device.is_(None), LoginFailure.address == attempt.client))
    with database.session(url) as db:
        db.execute(delete(LoginFailure).where(
            (LoginFailure.id == attempt.row_id) | and_(LoginFailure.account == attempt.account, same)))
