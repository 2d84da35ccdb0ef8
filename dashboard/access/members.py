"""A project's members as its owners manage them: list, change a role, remove (people join by accepting an
invitation: dashboard/access/invitations.py).

Every change is checked here, on the server, whatever page or command asks for it: the acting user must be an
owner of the project, and a project never loses its last owner (nobody could manage it any more). Each change
is an audit event ("member role changed", "member removed") with the project, the member and
the roles before and after.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select, update

from dashboard import audit_log
from dashboard.access import database
from dashboard.access.accounts import AccessError, check_name
from dashboard.access.models import ROLES, Membership, Project, User


@dataclass(frozen=True)
class Member:
    name: str
    display_name: str
    role: str
    disabled: bool

    def to_dict(self) -> dict:
        return {"name": self.name, "display_name": self.display_name, "role": self.role, "disabled": self.disabled}


def members(project_id: int, url: str | None = None) -> list[Member]:
    """The members of a project, owners first, then by name."""
    order = {r: i for i, r in enumerate(reversed(ROLES))}
    with database.session(url) as db:
        rows = db.execute(select(User.name, User.display_name, Membership.role, User.disabled)
                          .join(Membership, Membership.user_id == User.id)
                          .where(Membership.project_id == project_id)).all()
    return sorted((Member(*r) for r in rows), key=lambda m: (order.get(m.role, 9), m.name))


def member_names(project_id: int, url: str | None = None) -> list[str]:
    return [m.name for m in members(project_id, url)]


def _lock_memberships(db, project_id: int) -> None:
    """Serialize every change to one project's memberships: the first statement of the transaction writes the
    project's row (to itself), so a second change waits here until the first is committed and then reads the
    memberships as they are. On PostgreSQL this is the row's lock (and READ COMMITTED reads see the first
    change once it is committed); on SQLite in WAL mode it is the database's one write lock, taken before
    anything is read, so the transaction's snapshot starts after the other writer's commit. Without it two
    owners demoting each other at the same moment both counted two owners and the project was left with
    none."""
    db.execute(update(Project).where(Project.id == project_id).values(id=Project.id))


def owner_check(db, project_id: int, acting_user: str, lock: bool = True) -> Project:
    """The project when ``acting_user`` is one of its owners, else ``AccessError``; ``lock``: serialize the
    memberships' changes first (:func:`_lock_memberships`)."""
    if lock:
        _lock_memberships(db, project_id)
    project = db.get(Project, project_id)
    role = db.scalar(select(Membership.role).join(User, User.id == Membership.user_id)
                     .where(Membership.project_id == project_id, User.name == acting_user))
    if project is None or role is None:
        raise AccessError("There is no such project.")
    if role != "owner":
        raise AccessError(f"Only owners of project {project.name} manage its members.")
    return project


def _owners(db, project_id: int) -> int:
    return db.scalar(select(func.count()).select_from(Membership)
                     .where(Membership.project_id == project_id, Membership.role == "owner")) or 0


def set_role(project_id: int, acting_user: str, member: str, role: str, url: str | None = None) -> str:
    """Change a member's role. Returns a sentence saying what changed.

    Nobody joins a project without their consent: someone who is not a member (whether or not an account of
    that name exists: the answer is the same, so account names cannot be probed) joins by accepting an
    invitation (dashboard/access/invitations.py)."""
    if role not in ROLES:
        raise AccessError(f"A role is one of {', '.join(ROLES)}.")
    member = check_name(str(member or "").strip())
    with database.session(url) as db:
        project = owner_check(db, project_id, acting_user)
        m = db.scalar(select(Membership).join(User, User.id == Membership.user_id)
                      .where(Membership.project_id == project_id, User.name == member))
        if m is None:
            raise AccessError(f"{member} is not a member of {project.name}. To add someone, create an invitation "
                              "and send them its link: they join when they accept it.")
        before = m.role
        if before == role:
            return f"{member} is already {_a(role)} of {project.name}."
        if before == "owner" and _owners(db, project_id) <= 1:
            raise AccessError(f"{member} is the last owner of {project.name}; make someone else an owner first.")
        m.role = role
        name = project.name
    audit_log.record("member role changed", project=name, member=member, role=role, previous=before)
    return f"{member} is now {_a(role)} of {name}."


def remove(project_id: int, acting_user: str, member: str, url: str | None = None) -> str:
    member = check_name(str(member or "").strip())
    with database.session(url) as db:
        project = owner_check(db, project_id, acting_user)
        m = db.scalar(select(Membership).join(User, User.id == Membership.user_id)
                      .where(Membership.project_id == project_id, User.name == member))
        if m is None:
            raise AccessError(f"{member} is not a member of {project.name}.")
        if m.role == "owner" and _owners(db, project_id) <= 1:
            raise AccessError(f"{member} is the last owner of {project.name}; make someone else an owner first.")
        before, name = m.role, project.name
        db.delete(m)
    audit_log.record("member removed", project=name, member=member, previous=before)
    return f"Removed {member} from {name}."


def _a(role: str) -> str:
    return f"an {role}" if role[0] in "aeiou" else f"a {role}"
