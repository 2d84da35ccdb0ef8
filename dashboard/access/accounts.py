"""Users, projects and memberships: what ``python -m dashboard.admin`` and the first-start page change."""

from __future__ import annotations

import re

from sqlalchemy import select

from dashboard.access import database, passwords
from dashboard.access.models import ROLES, Membership, Project, User

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
DEFAULT_PROJECT = "default"


class AccessError(ValueError):
    """A request the access layer refuses, with a message for the person who made it."""


def check_name(name: str, what: str = "user name") -> str:
    name = (name or "").strip()
    if not NAME.match(name):
        raise AccessError(f"A {what} is 1-64 letters, digits or . _ @ - (starting with a letter or digit).")
    return name


def has_users(url: str | None = None) -> bool:
    with database.session(url) as db:
        return db.scalar(select(User.id).limit(1)) is not None


def find_user(db, name: str) -> User | None:
    return db.scalar(select(User).where(User.name == name))


def add_user(name: str, password: str | None, display_name: str = "", url: str | None = None) -> User:
    """A new account (``password`` None: none, it cannot sign in with a password)."""
    name = check_name(name)
    if password is not None and (why := passwords.weakness(password)):
        raise AccessError(why)
    with database.session(url) as db:
        if find_user(db, name):
            raise AccessError(f"There is already a user {name}.")
        user = User(name=name, display_name=(display_name or name)[:200],
                    password_hash=passwords.hash_password(password) if password is not None else None)
        db.add(user)
        db.flush()
        return user


def set_password(name: str, password: str, url: str | None = None, keep_session: str | None = None) -> int:
    """A new password for ``name``; every session of the account ends with the old password (a session that
    someone opened with a guessed or stolen password must not outlive the change), but ``keep_session`` (the
    digest of the session the person changes it from). Returns how many sessions ended."""
    from sqlalchemy import update

    from dashboard.access.models import Session, utcnow

    if why := passwords.weakness(password):
        raise AccessError(why)
    with database.session(url) as db:
        user = find_user(db, name)
        if user is None:
            raise AccessError(f"There is no user {name}.")
        user.password_hash = passwords.hash_password(password)
        now = utcnow()
        ended = db.execute(update(Session).where(Session.user_id == user.id, Session.revoked.is_(None),
                                                 Session.expires > now, Session.digest != (keep_session or ""))
                           .values(revoked=now)).rowcount
    return ended or 0


def set_disabled(name: str, disabled: bool = True, url: str | None = None) -> None:
    """Disable (or enable) an account; a disabled account's sessions stop working at once."""
    with database.session(url) as db:
        user = find_user(db, name)
        if user is None:
            raise AccessError(f"There is no user {name}.")
        user.disabled = disabled


def add_project(name: str, url: str | None = None) -> Project:
    name = check_name(name, "project name")
    with database.session(url) as db:
        if db.scalar(select(Project).where(Project.name == name)):
            raise AccessError(f"There is already a project {name}.")
        project = Project(name=name)
        db.add(project)
        db.flush()
        return project


def ensure_project(db, name: str) -> Project:
    project = db.scalar(select(Project).where(Project.name == name))
    if project is None:
        project = Project(name=name)
        db.add(project)
        db.flush()
    return project


def set_member(project: str, user: str, role: str, url: str | None = None) -> None:
    """Make ``user`` a member of ``project`` with ``role`` (viewer, editor or owner), or change their role."""
    if role not in ROLES:
        raise AccessError(f"A role is one of {', '.join(ROLES)}.")
    with database.session(url) as db:
        p = db.scalar(select(Project).where(Project.name == project))
        u = find_user(db, user)
        if p is None:
            raise AccessError(f"There is no project {project}.")
        if u is None:
            raise AccessError(f"There is no user {user}.")
        m = db.scalar(select(Membership).where(Membership.project_id == p.id, Membership.user_id == u.id))
        if m is None:
            db.add(Membership(project_id=p.id, user_id=u.id, role=role))
        else:
            m.role = role


def memberships(user: str, url: str | None = None) -> dict[str, str]:
    """``{project name: role}`` of ``user``."""
    with database.session(url) as db:
        rows = db.execute(select(Project.name, Membership.role).join(Membership, Membership.project_id == Project.id)
                          .join(User, User.id == Membership.user_id).where(User.name == user))
        return {name: role for name, role in rows}


def create_first_owner(db, name: str, password: str, display_name: str = "") -> User:
    """The first account, owner of the ``default`` project (inside the caller's transaction)."""
    name = check_name(name)
    if why := passwords.weakness(password):
        raise AccessError(why)
    user = User(name=name, display_name=(display_name or name)[:200], password_hash=passwords.hash_password(password))
    db.add(user)
    db.flush()
    project = ensure_project(db, DEFAULT_PROJECT)
    db.add(Membership(project_id=project.id, user_id=user.id, role="owner"))
    return user
