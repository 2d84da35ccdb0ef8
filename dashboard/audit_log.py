"""Who did what, in the server's log: one line (logger ``perfcast.audit``) per state change and per refused
request, e.g. ``audit: dataset deleted from=127.0.0.1 dataset=ds-0123456789abcdef``.

The client's address is derived on the server (the connection's peer address, ``request.remote_addr``;
in a job process the one Dash recorded from the request that started it), never from anything the browser
sends. Behind a proxy it is the proxy's address: the proxy's own access log has the client's. The user is
the one signed in by the request's session (``user=``, last on the line; in a background job, the session
that started it), derived on the server, never from a callback value.

Each event is also a row of the ``audit_events`` table (dashboard/access: when, user, address, action and
the ids as JSON), written after the log line; a database failure is logged and never stops the action.
"""

from __future__ import annotations

import logging
import re

log = logging.getLogger("perfcast.audit")

_UNSAFE = re.compile(r"[^\w.:@/+-]")


def client_address() -> str:
    """The address of the client this code is serving: the request's peer address, or in a background job
    the address of the request that started it; "-" outside both (a command, a warm-up)."""
    from flask import has_request_context, request

    if has_request_context():
        return request.remote_addr or "-"
    try:  # a background job: Dash passes the starting request's context (request.remote_addr) to the job
        from dash._callback_context import context_value

        return str(getattr(context_value.get(), "remote", "") or "-")
    except LookupError:
        return "-"


def user_name() -> str | None:
    """The signed-in user this code is serving: the request's session, or in a background job the session of
    the request that started it; None when nobody is signed in (or outside both)."""
    from flask import has_request_context

    try:
        if has_request_context():
            from dashboard.access import current_user

            user = current_user()
            return user.name if user else None
        from dash._callback_context import context_value

        from dashboard.access import gate, sessions
        from dashboard.settings import SESSION_COOKIE

        cookies = getattr(context_value.get(), "cookies", None) or {}
        session_id = sessions.session_id_of(cookies.get(SESSION_COOKIE), gate.secret())
        user = sessions.lookup(session_id, valid_only=False) if session_id else None
        return user.name if user else None
    except (LookupError, RuntimeError):
        return None


def actor(address: str | None = None) -> dict:
    """Who acts: the client's address, and the signed-in user when there is one."""
    who = {"from": address or client_address()}
    if (name := user_name()) is not None:
        who["user"] = name
    return who


def _text(value) -> str:
    """A value as one log token: at most 200 characters, anything but word characters and ``.:@/+-`` as ``?``
    (a name or path typed by a user cannot forge a line or a field)."""
    return _UNSAFE.sub("?", str(value))[:200] or '""'


def record(action: str, address: str | None = None, **ids) -> None:
    """Log ``action`` (a few words: "dataset saved") with who did it and the ids involved."""
    who = actor(address)
    user = who.pop("user", None)
    fields = {**who, **ids, **({"user": user} if user else {})}
    log.info("audit: %s %s", action, " ".join(f"{k}={_text(v)}" for k, v in fields.items()))
    _store(action, who["from"], user, ids)


def _store(action: str, address: str, user: str | None, ids: dict) -> None:
    try:
        from dashboard.access import database
        from dashboard.access.models import AuditEvent

        with database.session() as db:
            db.add(AuditEvent(action=action[:64], address=str(address)[:64], user_name=user,
                              detail={str(k): str(v)[:500] for k, v in ids.items()}))
    except Exception:  # noqa: BLE001 - the trail's database failing never stops the action it records
        logging.getLogger("perfcast").exception("audit event not stored in the database: %s", action)
