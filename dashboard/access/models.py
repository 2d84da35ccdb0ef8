"""The tables of sign-in and access (SQLAlchemy 2 declarative). Times are naive UTC (SQLite keeps no zone).

Schema changes go through a new Alembic migration in ``migrations/versions``, never ``create_all``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

ROLES = ("viewer", "editor", "owner")


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    display_name: Mapped[str] = mapped_column(String(200), default="")
    #: argon2 hash; None: no password (an account that signs in through OIDC only, later)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    #: the OpenID Connect ``sub`` (issuer-qualified) once OIDC sign-in exists
    oidc_subject: Mapped[str | None] = mapped_column(String(255), unique=True, nullable=True)
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    #: the project the user last chose (the project menu, a share link's question, an accepted invitation): a
    #: new session starts there (dashboard/access/projects.py); no foreign key, checked against the memberships
    last_project_id: Mapped[int | None] = mapped_column(Integer, nullable=True)


class Project(Base):
    __tablename__ = "projects"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class Membership(Base):
    __tablename__ = "memberships"
    __table_args__ = (UniqueConstraint("project_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16))  # viewer | editor | owner


class Session(Base):
    """A sign-in: the browser's cookie holds a random id, this row its SHA-256 digest."""
    __tablename__ = "sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires: Mapped[datetime] = mapped_column(DateTime)
    revoked: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    address: Mapped[str] = mapped_column(String(64), default="")
    #: the project this browser works in (dashboard/access/projects.py checks it against the memberships)
    project_id: Mapped[int | None] = mapped_column(ForeignKey("projects.id", ondelete="SET NULL"), nullable=True)


class AuditEvent(Base):
    """Append-only: rows are inserted, never updated; deleted only oldest first by the retention rule
    (dashboard/access/audit_chain.py ``prune``)."""
    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_project_id_id", "project_id", "id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    user_name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    address: Mapped[str] = mapped_column(String(64), default="-")
    action: Mapped[str] = mapped_column(String(64), index=True)
    detail: Mapped[dict] = mapped_column(JSON, default=dict)
    #: the project the event happened in (None: an account's or the site's event, e.g. a sign-in)
    project_id: Mapped[int | None] = mapped_column(Integer, nullable=True, index=True)
    #: SHA-256 of the previous event's digest and this event's fields (dashboard/access/audit_chain.py)
    digest: Mapped[str | None] = mapped_column(String(64), nullable=True)


class AuditHead(Base):
    """One row (id 1): the newest audit event's id and digest, the end of the chain."""
    __tablename__ = "audit_head"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    last_event_id: Mapped[int] = mapped_column(Integer, default=0)
    digest: Mapped[str] = mapped_column(String(64))
    #: where the kept trail starts after older events were deleted by the retention rule: the first kept
    #: event's id and the digest it links to (None: nothing was ever deleted, the chain starts at GENESIS)
    first_event_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    anchor: Mapped[str | None] = mapped_column(String(64), nullable=True)


class SetupToken(Base):
    """The first-start link's token (its SHA-256 digest): valid until ``expires``, once."""
    __tablename__ = "setup_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    created: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires: Mapped[datetime] = mapped_column(DateTime)
    used: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class Invitation(Base):
    """An owner's invitation to join a project with a role: its one-time link's token is kept as a SHA-256
    digest; it is used once (``used``, by ``used_by``), expires, or is withdrawn (``revoked``)."""
    __tablename__ = "invitations"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), unique=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    role: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[str] = mapped_column(String(64))
    created: Mapped[datetime] = mapped_column(DateTime, default=utcnow)
    expires: Mapped[datetime] = mapped_column(DateTime)
    used: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    used_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    revoked: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class KnownClient(Base):
    """A client (dashboard/access/limiter.py ``client_key``: an address, an IPv6 /64) from which an account
    signed in: a browser there without the account's device cookie is limited as a device of its own, so that
    strangers' failures from elsewhere never lock the account's owner out of a new browser at their desk."""
    __tablename__ = "known_clients"
    __table_args__ = (UniqueConstraint("account", "client"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    account: Mapped[str] = mapped_column(String(64), index=True)
    client: Mapped[str] = mapped_column(String(64))
    last_success: Mapped[datetime] = mapped_column(DateTime, default=utcnow)


class LoginFailure(Base):
    """One sign-in attempt being checked, or one that failed (dashboard/access/limiter.py counts these in a
    window: per device for a browser with the account's device cookie, else per account and per client)."""
    __tablename__ = "login_failures"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime, default=utcnow, index=True)
    account: Mapped[str] = mapped_column(String(64), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    device: Mapped[str | None] = mapped_column(String(32), nullable=True, index=True)
