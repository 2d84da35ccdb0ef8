"""Sign-in and access: one database (SQLAlchemy 2, Alembic migrations in ``migrations/``, applied at start),
built-in accounts with argon2 password hashes, server-side sessions, the gate in front of every route,
the first-start link, projects with roles (:mod:`dashboard.access.projects`: the current project of a request or
a scope, viewer < editor < owner, switching, share-link opens, where a project's things are stored), and a
user's ``oidc_subject``.

``install(app)`` (app.py): migrate, add ``/login``, ``/logout``, ``/setup`` and ``/project``, put the gate first
among the Flask app's ``before_request`` functions and the share-link check right after it.
"""

from __future__ import annotations

from dashboard import audit_log
from dashboard.access import audit_events

audit_log.connect(audit_events.user_name, audit_events.store, audit_events.project_id)


def install(app) -> None:
    from dashboard.access import body_limit, database, gate, projects, routes

    server = app.server
    database.migrate()
    gate.set_secret(server.secret_key)
    routes.install(server)
    gate.install(server)
    projects.install(server)  # right after the gate: a share link's ?project= switches a member's session
    body_limit.install(server)  # before that: a body's size is checked before anything reads it


def current_user():
    """The signed-in user of the request being served (None outside a request or when nobody is)."""
    from flask import has_request_context

    from dashboard.access import gate

    if not has_request_context():
        return None
    return gate.signed_in_user()
