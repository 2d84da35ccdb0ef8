"""Joining a project takes the invited person's consent: an owner creates an invitation (a project and a role)
and sends its one-time link ``<site>/invite?token=...``; whoever opens it sees which project, which role and
who invited them, and joins only by accepting. Someone without an account creates one on the same page (when
password sign-in is on), so an owner can bring in a newcomer without the server's shell.

The token exists in clear only in the link; the table keeps its SHA-256 digest (like the first-start link's,
dashboard/access/first_start.py). An invitation is used once, expires after ``settings.INVITATION_HOURS``, and
its owner can withdraw it while it waits. Accepting makes the project the one the user works in (it is their
choice: ``users.last_project_id``, where their next sessions start). Audit events: "invitation created",
"invitation withdrawn" (here), "member joined" and "account created" (``/invite``, dashboard/access/routes.py,
once the session works in the project joined).
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select, update

from dashboard import audit_log, settings
from dashboard.access import accounts, database, passwords
from dashboard.access.accounts import AccessError
from dashboard.access.members import owner_check
from dashboard.access.models import ROLES, Invitation, Membership, Project, User, utcnow


@dataclass(frozen=True)
class Waiting:
    """An invitation that can still be accepted, as its project's owners see it (never its token)."""
    id: int
    role: str
    created_by: str
    created: datetime
    expires: datetime


@dataclass(frozen=True)
class Offer:
    """What the invited person reads before accepting."""
    project: str
    role: str
    invited_by: str
    expires: datetime


@dataclass(frozen=True)
class Joined:
    """An accepted invitation: the account, the project it now works in, and the role it has there."""
    user_id: int
    user_name: str
    project_id: int
    project: str
    role: str
    invited_by: str
    already: bool  # a member before: the role stays as it was


def _digest(token: str) -> str:
    return hashlib.sha256((token or "").encode()).hexdigest()


def link(token: str, site: str) -> str:
    return f"{site.rstrip('/')}/invite?token={token}"


def create(project_id: int, acting_user: str, role: str, url: str | None = None) -> str:
    """An invitation to ``project_id`` with ``role``, made by one of its owners; returns the token (the only
    place it exists in clear)."""
    if role not in ROLES:
        raise AccessError(f"A role is one of {', '.join(ROLES)}.")
    token = secrets.token_urlsafe(32)
    with database.session(url) as db:
        project = owner_check(db, project_id, acting_user, lock=False)
        db.add(Invitation(digest=_digest(token), project_id=project_id, role=role, created_by=acting_user,
                          expires=utcnow() + timedelta(hours=settings.INVITATION_HOURS)))
        name = project.name
    audit_log.record("invitation created", project=name, role=role)
    return token


def waiting(project_id: int, url: str | None = None) -> list[Waiting]:
    """The project's invitations that can still be accepted, newest first."""
    with database.session(url) as db:
        rows = db.scalars(select(Invitation).where(Invitation.project_id == project_id, Invitation.used.is_(None),
                                                   Invitation.revoked.is_(None), Invitation.expires > utcnow())
                          .order_by(Invitation.created.desc(), Invitation.id.desc())).all()
        return [Waiting(r.id, r.role, r.created_by, r.created, r.expires) for r in rows]


def withdraw(project_id: int, acting_user: str, invitation_id: int, url: str | None = None) -> str:
    """Withdraw a waiting invitation of the project (its link stops working at once)."""
    with database.session(url) as db:
        project = owner_check(db, project_id, acting_user, lock=False)
        done = db.execute(update(Invitation).where(Invitation.id == int(invitation_id),
                                                   Invitation.project_id == project_id, Invitation.used.is_(None),
                                                   Invitation.revoked.is_(None))
                          .values(revoked=utcnow())).rowcount
        name = project.name
    if not done:
        raise AccessError("That invitation was used or withdrawn already.")
    audit_log.record("invitation withdrawn", project=name, invitation=int(invitation_id))
    return "Invitation withdrawn: its link no longer works."


def _valid(db, token: str) -> tuple[Invitation, Project] | None:
    row = db.execute(select(Invitation, Project).join(Project, Project.id == Invitation.project_id)
                     .where(Invitation.digest == _digest(token), Invitation.used.is_(None),
                            Invitation.revoked.is_(None), Invitation.expires > utcnow())).first()
    return (row[0], row[1]) if row else None


def offer(token: str, url: str | None = None) -> Offer | None:
    """What the link offers, or None when it is not valid (unknown, used, expired or withdrawn)."""
    if not isinstance(token, str) or not token or len(token) > 200:
        return None
    with database.session(url) as db:
        found = _valid(db, token)
        return Offer(found[1].name, found[0].role, found[0].created_by, found[0].expires) if found else None


_NOT_VALID = "This invitation is not valid any more (used, expired, withdrawn or mistyped): ask for a new one."


def _use(db, token: str, user: User) -> Joined:
    """Inside the caller's transaction: use the invitation once (a second use at the same moment finds it used)
    and make ``user`` a member; the project becomes the user's chosen one."""
    found = _valid(db, token)
    if found is None:
        raise AccessError(_NOT_VALID)
    invitation, project = found
    used = db.execute(update(Invitation).where(Invitation.id == invitation.id, Invitation.used.is_(None))
                      .values(used=utcnow(), used_by=user.name)).rowcount
    if used != 1:
        raise AccessError(_NOT_VALID)
    member = db.scalar(select(Membership).where(Membership.project_id == project.id,
                                                Membership.user_id == user.id))
    if member is None:
        db.add(Membership(project_id=project.id, user_id=user.id, role=invitation.role))
    user.last_project_id = project.id
    return Joined(user.id, user.name, project.id, project.name, member.role if member else invitation.role,
                  invitation.created_by, already=member is not None)


def accept(token: str, user_id: int, url: str | None = None) -> Joined:
    """The signed-in ``user_id`` accepts the invitation of ``token``."""
    with database.session(url) as db:
        user = db.get(User, user_id)
        if user is None or user.disabled:
            raise AccessError("Sign in first.")
        return _use(db, token, user)


def accept_with_new_account(token: str, name: str, password: str, display_name: str = "",
                            url: str | None = None) -> Joined:
    """Someone without an account: create it (name, password) and accept, in one transaction: nothing is kept
    when either step is refused."""
    if not settings.PASSWORD_SIGNIN:
        raise AccessError("Accounts with a password are switched off on this server: sign in with single sign-on, "
                          "then open the link again.")
    name = accounts.check_name(name)
    if why := passwords.weakness(password):
        raise AccessError(why)
    with database.session(url) as db:
        if _valid(db, token) is None:  # before the name: a stale link learns nothing about accounts
            raise AccessError(_NOT_VALID)
        if accounts.find_user(db, name) is not None:
            raise AccessError(f"The name {name} is taken: choose another, or sign in if it is yours.")
        user = User(name=name, display_name=(display_name or name)[:200],
                    password_hash=passwords.hash_password(password))
        db.add(user)
        db.flush()
        return _use(db, token, user)
