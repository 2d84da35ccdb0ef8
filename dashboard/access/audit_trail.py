"""Reading the audit trail: a project's events for its owners (/audit), and every event for the server's
administrator (``python -m dashboard.admin audit export``), as rows and as CSV.

A project's events are those recorded in it (``audit_events.project_id``: uploads, saves, deletes, restores,
runs, share-link opens, membership changes) and the account events of its current members — their sign-ins,
failed sign-ins and sign-outs, which belong to no project. Events of the site itself (a refused ``Host`` or
``Origin``, the first owner's creation) have no project and are in the administrator's export only.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, or_, select

from dashboard.access import database
from dashboard.access.members import member_names
from dashboard.access.models import AuditEvent, Project
from modeling.tables.export import safe_cell

#: events of an account rather than a project: shown to the owners of the projects the account is a member of
ACCOUNT_ACTIONS = ("signed in", "signed out", "sign-in failed", "sign-in throttled", "password changed",
                   "sessions revoked")
COLUMNS = ("id", "at (UTC)", "user", "from", "action", "project", "details", "digest")


@dataclass(frozen=True)
class Event:
    id: int
    at: datetime
    user: str
    address: str
    action: str
    project: str
    detail: dict
    digest: str

    def details_text(self) -> str:
        return " ".join(f"{k}={v}" for k, v in sorted(self.detail.items()))

    def row(self) -> list:
        return [self.id, self.at.strftime("%Y-%m-%d %H:%M:%S"), self.user, self.address, self.action, self.project,
                self.details_text(), self.digest]

    def to_dict(self) -> dict:
        return dict(zip(COLUMNS, self.row()))


def _account(event: AuditEvent) -> str | None:
    return event.user_name or (event.detail or {}).get("account")


def _query(project_id: int | None, members: list[str]):
    q = select(AuditEvent, Project.name).outerjoin(Project, Project.id == AuditEvent.project_id)
    if project_id is None:
        return q
    own = AuditEvent.project_id == project_id
    accounts = and_(AuditEvent.project_id.is_(None), AuditEvent.action.in_(ACCOUNT_ACTIONS))
    return q.where(or_(own, accounts))


def events(project_id: int | None, *, before: int | None = None, limit: int = 200, action: str = "",
           user: str = "", url: str | None = None) -> list[Event]:
    """Newest first: at most ``limit`` events with an id below ``before`` (the next page), optionally only one
    action or one user's. ``project_id=None``: every event of the site (the administrator's export)."""
    members = member_names(project_id, url) if project_id is not None else []
    out: list[Event] = []
    with database.session(url) as db:
        while len(out) < limit:
            q = _query(project_id, members)
            if before is not None:
                q = q.where(AuditEvent.id < before)
            if action:
                q = q.where(AuditEvent.action == action)
            if user:
                q = q.where(or_(AuditEvent.user_name == user, AuditEvent.user_name.is_(None)))
            rows = db.execute(q.order_by(AuditEvent.id.desc()).limit(max(limit, 200))).all()
            if not rows:
                break
            for event, project_name in rows:
                before = event.id
                who = _account(event)
                if project_id is not None and event.project_id is None and who not in members:
                    continue  # an account event of somebody who is not a member
                if user and who != user:
                    continue
                out.append(Event(event.id, event.at, event.user_name or "", event.address, event.action,
                                 project_name or "", dict(event.detail or {}), event.digest or ""))
                if len(out) == limit:
                    break
    return out


def actions(project_id: int | None, url: str | None = None) -> list[str]:
    """The actions recorded (for the page's filter)."""
    with database.session(url) as db:
        q = select(AuditEvent.action).distinct()
        if project_id is not None:
            q = q.where(or_(AuditEvent.project_id == project_id, AuditEvent.action.in_(ACCOUNT_ACTIONS)))
        return sorted(db.scalars(q).all())


def export_csv(project_id: int | None, url: str | None = None, batch: int = 2000) -> str:
    """Every event (of the project, or of the site), oldest first, as CSV with a header row, ending with the
    chain's verdict as a comment line."""
    from dashboard.access import audit_chain

    collected: list[Event] = []
    before = None
    while True:
        page = events(project_id, before=before, limit=batch, url=url)
        if not page:
            break
        collected.extend(page)
        before = page[-1].id
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(COLUMNS)
    for e in reversed(collected):
        w.writerow([safe_cell(v) for v in e.row()])
    with database.session(url) as db:
        verdict = audit_chain.verify(db)
    buf.write(f"# {verdict.sentence()}\n")
    return buf.getvalue()


