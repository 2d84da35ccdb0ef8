"""The audit trail in the database: every :func:`dashboard.audit_log.record` also becomes a row of
``audit_events`` (append-only), with the user signed in by the request's session, or in a background job by
the session of the request that started it (Dash passes that request's cookies to the job), and the
project it happened in (``project_id``: the request's current project, or the scope a job runs in)."""

from __future__ import annotations


def user_name() -> str | None:
    from flask import has_request_context

    from dashboard.access import gate, sessions
    from dashboard.settings import SESSION_COOKIE

    if has_request_context():
        user = gate.signed_in_user()
        return user.name if user else None
    from dash._callback_context import context_value

    context = context_value.get()
    cookies = getattr(context, "cookies", None) or {}
    session_id = sessions.session_id_of(cookies.get(SESSION_COOKIE), gate.secret())
    user = sessions.lookup(session_id, valid_only=False) if session_id else None
    if user is None:  # signed in by a trusted proxy's header (dashboard/access/proxy.py)
        from dashboard.access import proxy

        return proxy.account_name(getattr(context, "headers", None) or {}, getattr(context, "remote", None))
    return user.name


def project_id() -> int | None:
    """The current project's id (dashboard/access/projects.py): the request's, or the scope's in a job."""
    from dashboard.access import projects

    return projects.current_id()


def store(action: str, address: str, user: str | None, ids: dict, project: int | None = None) -> None:
    from dashboard.access import audit_chain, database
    from dashboard.access.models import AuditEvent, utcnow

    with database.session() as db:
        audit_chain.append(db, AuditEvent(at=utcnow(), action=action[:64], address=str(address)[:64], user_name=user,
                                          project_id=project, detail={str(k): str(v)[:500] for k, v in ids.items()}))
