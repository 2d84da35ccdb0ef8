"""The audit trail in the database: every :func:`dashboard.audit_log.record` also becomes a row of
``audit_events`` (append-only), with the user signed in by the request's session, or in a background job by
the session of the request that started it (Dash passes that request's cookies to the job)."""

from __future__ import annotations


def user_name() -> str | None:
    from flask import has_request_context

    from dashboard.access import gate, sessions
    from dashboard.settings import SESSION_COOKIE

    if has_request_context():
        user = gate.signed_in_user()
        return user.name if user else None
    from dash._callback_context import context_value

    cookies = getattr(context_value.get(), "cookies", None) or {}
    session_id = sessions.session_id_of(cookies.get(SESSION_COOKIE), gate.secret())
    user = sessions.lookup(session_id, valid_only=False) if session_id else None
    return user.name if user else None


def store(action: str, address: str, user: str | None, ids: dict) -> None:
    from dashboard.access import audit_chain, database
    from dashboard.access.models import AuditEvent, utcnow

    with database.session() as db:
        audit_chain.append(db, AuditEvent(at=utcnow(), action=action[:64], address=str(address)[:64], user_name=user,
                                          detail={str(k): str(v)[:500] for k, v in ids.items()}))
