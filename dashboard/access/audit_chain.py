"""The audit trail's chain: every event carries ``digest = SHA-256(previous digest | the event's fields)``, and
one row of ``audit_head`` holds the newest event's id and digest.

The app only ever inserts events (dashboard/access/audit_events.py); this makes that checkable. Anyone who
can write to the database directly could still edit a row, delete one, or cut the newest ones away, but not
without :func:`verify` finding it: an edited row no longer hashes to its digest, a deleted row breaks the next
row's link, and cut rows leave the head pointing past the end. Owners see the verdict on /audit and in its
export.

Appending is serialised by the head row: the transaction first writes it (an UPDATE that changes nothing),
which on PostgreSQL takes the row's lock and on SQLite the database's write lock, so two workers never link
two events to the same predecessor.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from sqlalchemy import select, text, update

from dashboard.access.models import AuditEvent, AuditHead

GENESIS = "0" * 64


def canonical(event: AuditEvent) -> bytes:
    """The fields an event's digest covers, in one fixed byte form (times to the microsecond, the details'
    keys sorted)."""
    fields = {"id": event.id, "at": event.at.isoformat(timespec="microseconds") if event.at else None,
              "user": event.user_name, "address": event.address, "action": event.action,
              "project": getattr(event, "project_id", None), "detail": event.detail or {}}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str).encode()


def link(previous: str, event: AuditEvent) -> str:
    return hashlib.sha256(previous.encode() + b"|" + canonical(event)).hexdigest()


def _lock_head(db) -> AuditHead:
    db.execute(update(AuditHead).where(AuditHead.id == 1).values(last_event_id=AuditHead.last_event_id))
    head = db.scalar(select(AuditHead).where(AuditHead.id == 1))
    if head is None:  # a database migrated before the chain existed and never linked: start it here
        head = AuditHead(id=1, last_event_id=0, digest=GENESIS)
        db.add(head)
        db.flush()
    return head


def append(db, event: AuditEvent) -> AuditEvent:
    """Add ``event`` to the trail inside the caller's transaction, linked to the newest event."""
    head = _lock_head(db)
    db.add(event)
    db.flush()  # its id
    event.digest = link(head.digest, event)
    head.last_event_id, head.digest = event.id, event.digest
    return event


def relink_all(connection) -> int:
    """Compute the digests of every event in id order and set the head (the migration that introduced the
    chain, on the events recorded before it). Returns the number of events."""
    previous, last, n = GENESIS, 0, 0
    columns = {c.key for c in AuditEvent.__table__.columns} - {"digest"}
    rows = connection.execute(text("SELECT * FROM audit_events ORDER BY id")).mappings().all()
    for row in rows:
        fields = {k: v for k, v in row.items() if k in columns}
        if isinstance(fields.get("detail"), str):  # raw JSON text on SQLite
            fields["detail"] = json.loads(fields["detail"])
        if isinstance(fields.get("at"), str):
            from datetime import datetime

            fields["at"] = datetime.fromisoformat(fields["at"])
        event = AuditEvent(**fields)
        previous, last, n = link(previous, event), row["id"], n + 1
        connection.execute(text("UPDATE audit_events SET digest = :d WHERE id = :i"), {"d": previous, "i": row["id"]})
    connection.execute(text("DELETE FROM audit_head"))
    connection.execute(text("INSERT INTO audit_head (id, last_event_id, digest) VALUES (1, :l, :d)"),
                       {"l": last, "d": previous})
    return n


@dataclass(frozen=True)
class Verdict:
    """What :func:`verify` found: ``intact`` and, when not, the first event where the chain breaks and why."""
    intact: bool
    events: int
    broken_at: int | None = None
    why: str = ""

    def to_dict(self) -> dict:
        return {"intact": self.intact, "events": self.events, "broken_at": self.broken_at, "why": self.why}

    def sentence(self, site: bool = True) -> str:
        """The verdict in words; ``site`` False (a project's owner reading it): without the server's count of
        events, which is every project's and the site's, not the project's to know."""
        if self.intact:
            if not site:
                return ("The trail's chain is intact: every event recorded on this server (every project's) "
                        "hashes to its recorded digest and the newest one is the one the head names.")
            return (f"The trail's chain is intact: all {self.events:,} events recorded on this server (every "
                    "project's) hash to their recorded digests and the newest one is the one the head names.")
        return f"The trail was altered outside perfcast: {self.why}"


def verify(db, batch: int = 5000) -> Verdict:
    """Walk every kept event in id order and recompute the chain (from the anchor the retention rule left, or
    from the start)."""
    head = db.scalar(select(AuditHead).where(AuditHead.id == 1))
    previous, last_id, n = (head.anchor if head is not None and head.anchor else GENESIS), 0, 0
    after = 0
    while True:
        events = db.scalars(select(AuditEvent).where(AuditEvent.id > after).order_by(AuditEvent.id)
                            .limit(batch)).all()
        if not events:
            break
        if n == 0 and head is not None and head.first_event_id and events[0].id != head.first_event_id:
            return Verdict(False, 0, events[0].id, f"the kept trail starts at event {events[0].id}, not at "
                           f"{head.first_event_id} where the retention rule left it (events were deleted).")
        for event in events:
            expected = link(previous, event)
            if event.digest != expected:
                why = (f"event {event.id} does not hash to its recorded digest (it was edited, or an event "
                       "before it was deleted).")
                return Verdict(False, n, event.id, why)
            previous, last_id, n = expected, event.id, n + 1
        after = events[-1].id
    if head is not None and (head.last_event_id != last_id or head.digest != previous):
        return Verdict(False, n, head.last_event_id,
                       f"the newest recorded event is {head.last_event_id}, but the trail ends at {last_id} "
                       "(events at its end were deleted).")
    return Verdict(True, n)


def prune(db, before, batch: int = 5000) -> int:
    """The retention rule: delete the events recorded before ``before`` (a naive UTC datetime), oldest first,
    and move the chain's anchor to the first kept event, so that :func:`verify` still checks everything kept
    (an event deleted or edited outside this rule is still found). Returns how many were deleted."""
    from sqlalchemy import delete, func

    head = _lock_head(db)
    cut = db.scalar(select(func.max(AuditEvent.id)).where(AuditEvent.at < before))
    if cut is None:
        return 0
    last_deleted = db.get(AuditEvent, cut)
    first_kept = db.scalar(select(func.min(AuditEvent.id)).where(AuditEvent.id > cut))
    if first_kept is None:  # keep the newest event, whatever its age: the chain's head stays checkable
        first_kept = cut
        last_deleted = db.scalar(select(AuditEvent).where(AuditEvent.id < cut).order_by(AuditEvent.id.desc())
                                 .limit(1))
        if last_deleted is None:
            return 0
    anchor = last_deleted.digest
    n = db.execute(delete(AuditEvent).where(AuditEvent.id < first_kept)).rowcount or 0
    head.first_event_id, head.anchor = first_kept, anchor
    return n


def prune_by_setting(db) -> int:
    """:func:`prune` at ``PERFCAST_AUDIT_KEEP_DAYS`` (nothing when it is 0)."""
    from datetime import timedelta

    from dashboard import settings
    from dashboard.access.models import utcnow

    if settings.AUDIT_KEEP_DAYS <= 0:
        return 0
    return prune(db, utcnow() - timedelta(days=settings.AUDIT_KEEP_DAYS))
