"""The sign-in limiter, kept in the database so every worker and web server counts the same failures.

Each failed sign-in is a row of ``login_failures`` (account name as typed, client address). While an account
has had ``PERFCAST_LOGIN_FAILURES_PER_ACCOUNT`` (5) failures, or an address ``PERFCAST_LOGIN_FAILURES_PER_ADDRESS``
(20), within ``PERFCAST_LOGIN_WINDOW_SECONDS`` (15 min), further attempts for it are refused without looking at
the password. A successful sign-in clears its account's failures. Every failure is also answered only after
``PERFCAST_LOGIN_FAILURE_DELAY`` (1 s) and is in the audit trail.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, or_, select

from dashboard import settings
from dashboard.access import database
from dashboard.access.models import LoginFailure, utcnow


def _since():
    return utcnow() - timedelta(seconds=settings.LOGIN_WINDOW_SECONDS)


def blocked(account: str, address: str, url: str | None = None) -> bool:
    """True while ``account`` or ``address`` has used up its failures in the window."""
    since = _since()
    with database.session(url) as db:
        by_account = db.scalar(select(func.count()).select_from(LoginFailure)
                               .where(LoginFailure.account == account[:64], LoginFailure.at > since))
        by_address = db.scalar(select(func.count()).select_from(LoginFailure)
                               .where(LoginFailure.address == address[:64], LoginFailure.at > since))
    return by_account >= settings.LOGIN_FAILURES_PER_ACCOUNT or by_address >= settings.LOGIN_FAILURES_PER_ADDRESS


def failed(account: str, address: str, url: str | None = None) -> None:
    with database.session(url) as db:
        db.execute(delete(LoginFailure).where(LoginFailure.at <= _since()))  # the window's past, forgotten
        db.add(LoginFailure(account=account[:64], address=address[:64]))


def succeeded(account: str, url: str | None = None) -> None:
    with database.session(url) as db:
        db.execute(delete(LoginFailure).where(or_(LoginFailure.account == account[:64])))
