"""No default password: while the database has no user, each server start issues a one-time link
``<site>/setup?token=...`` (kept as a SHA-256 digest, valid 24 h, used once) and prints it to the server's
terminal, as Jupyter prints its token. Whoever opens it picks the first owner's name and password; that
owner owns the first project, ``default``. ``python -m dashboard.admin setup-link`` issues another link.
"""

from __future__ import annotations

import hashlib
import logging
import os
import secrets
import sys
from datetime import timedelta

from sqlalchemy import select, update

from dashboard import settings
from dashboard.access import accounts, database
from dashboard.access.models import SetupToken, utcnow

_log = logging.getLogger("perfcast")
#: set in the gunicorn master once it announced (its workers inherit it and do not announce again)
ANNOUNCED = "PERFCAST_FIRST_START_ANNOUNCED"  # not a setting: a mark this process leaves for the ones it starts


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_token(url: str | None = None) -> str:
    token = secrets.token_urlsafe(32)
    with database.session(url) as db:
        db.add(SetupToken(digest=_digest(token), expires=utcnow() + timedelta(hours=settings.SETUP_TOKEN_HOURS)))
    return token


def link(token: str, site: str) -> str:
    return f"{site.rstrip('/')}/setup?token={token}"


def announce(site: str, url: str | None = None, stream=None) -> str | None:
    """When there is no user yet: issue a setup token and print its link; returns the link (None: no need)."""
    if os.environ.get(ANNOUNCED) == "1":
        return None
    database.migrate(url)
    if accounts.has_users(url):
        return None
    text = link(issue_token(url), settings.SITE_URL or site)
    banner = (f"\nperfcast has no user yet. Open this one-time link (valid {settings.SETUP_TOKEN_HOURS} h) to create "
              f"the first owner:\n\n    {text}\n\n(or: python -m dashboard.admin user add NAME)\n")
    print(banner, file=stream or sys.stderr, flush=True)
    _log.info("first-start link issued (no user yet)")
    return text


def token_state(token: str, url: str | None = None) -> str:
    """"ok", "done" (an owner exists already) or "invalid" (unknown, used or expired)."""
    if accounts.has_users(url):
        return "done"
    with database.session(url) as db:
        row = db.scalar(select(SetupToken).where(SetupToken.digest == _digest(token or "")))
        if row is None or row.used is not None or row.expires <= utcnow():
            return "invalid"
    return "ok"


def create_first_owner(token: str, name: str, password: str, display_name: str = "", url: str | None = None):
    """Use ``token`` once to create the first owner; returns the user, or raises AccessError."""
    with database.locked(url), database.session(url) as db:
        if accounts.has_users(url):
            raise accounts.AccessError("perfcast is set up already: sign in.")
        used = db.execute(update(SetupToken).where(SetupToken.digest == _digest(token or ""),
                                                   SetupToken.used.is_(None), SetupToken.expires > utcnow())
                          .values(used=utcnow()))
        if used.rowcount != 1:
            raise accounts.AccessError("This link is not valid any more (used, expired or mistyped).")
        return accounts.create_first_owner(db, name, password, display_name)
