"""Reading the audit trail: a project's events for its owners (/audit), and every event for the server's
administrator (``python -m dashboard.admin audit export``), as rows and as CSV.

A project's events are those recorded in it (``audit_events.project_id``, indexed): uploads, saves, deletes,
restores, runs, share-link opens, membership changes and invitations, and its members' sign-ins and sign-outs
in it (a sign-in is recorded in the project its session starts in, a sign-out in the one it ended in). An
account's events elsewhere — in another project, before it joined, a failed sign-in (which is in no project) —
are not a project's: an owner reads what happened in their project, not a member's history. Events of no
project (failed sign-ins, refused ``Host`` or ``Origin``, the first owner's creation) are in the
administrator's export only.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select

from dashboard.access import database
from dashboard.access.models import AuditEvent, Project
from modeling.tables.export import safe_cell

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


def _query(project_id: int | None):
    q = select(AuditEvent, Project.name).outerjoin(Project, Project.id == AuditEvent.project_id)
    return q if project_id is None else q.where(AuditEvent.project_id == project_id)


def events(project_id: int | None, *, before: int | None = None, limit: int = 200, action: str = "",
           user: str = "", url: str | None = None) -> list[Event]:
    """Newest first: at most ``limit`` events with an id below ``before`` (the next page), optionally only one
    action or one user's (the user who acted, or the account an event names). ``project_id=None``: every event
    of the site (the administrator's export)."""
    q = _query(project_id)
    if action:
        q = q.where(AuditEvent.action == action)
    if user:
        q = q.where(or_(AuditEvent.user_name == user, AuditEvent.user_name.is_(None)))
    out: list[Event] = []
    batch = max(limit, 200)
    with database.session(url) as db:
        while len(out) < limit:
            page = q if before is None else q.where(AuditEvent.id < before)
            rows = db.execute(page.order_by(AuditEvent.id.desc()).limit(batch)).all()
            for event, project_name in rows:
                before = event.id
                if user and (event.user_name or (event.detail or {}).get("account")) != user:
                    continue  # an event of nobody signed in that names another account
                out.append(Event(event.id, event.at, event.user_name or "", event.address, event.action,
                                 project_name or "", dict(event.detail or {}), event.digest or ""))
                if len(out) == limit:
                    break
            if len(rows) < batch:
                break
    return out


def actions(project_id: int | None, url: str | None = None) -> list[str]:
    """The actions recorded (for the page's filter)."""
    with database.session(url) as db:
        q = select(AuditEvent.action).distinct()
        if project_id is not None:
            q = q.where(AuditEvent.project_id == project_id)
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
    buf.write(f"# {verdict.sentence(site=project_id is None)}\n")
    return buf.getvalue()


