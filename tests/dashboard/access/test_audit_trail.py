"""The audit trail on SQLite and on a real PostgreSQL: the hash chain (appends from many threads stay one
chain; an edited, deleted or cut event is found), a project's events for its owners, the CSV export, and the
members an owner manages (never the last owner away)."""

import csv
import io
import threading
from datetime import timedelta

import pytest
from sqlalchemy import delete, select, text, update

from dashboard.access import accounts, audit_chain, audit_trail, database, members
from dashboard.access.accounts import AccessError
from dashboard.access.models import AuditEvent, AuditHead, Project, utcnow


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        u = f"sqlite:///{tmp_path / 'perfcast.db'}"
    else:
        u = request.getfixturevalue("postgres_url")
    database.migrate(u)
    return u


def _add(url, action, user="ada", project_id=None, **detail):
    with database.session(url) as db:
        return audit_chain.append(db, AuditEvent(at=utcnow(), action=action, address="10.0.0.1", user_name=user,
                                                 project_id=project_id, detail=detail)).id


def _verify(url):
    with database.session(url) as db:
        return audit_chain.verify(db)


def test_an_untouched_chain_verifies_and_each_kind_of_tampering_is_found(url):
    ids = [_add(url, "dataset saved", dataset=f"ds-{i:016x}") for i in range(6)]
    assert _verify(url).intact and _verify(url).events == 6

    with database.session(url) as db:  # someone edits a row's details directly in the database
        db.execute(update(AuditEvent).where(AuditEvent.id == ids[2]).values(detail={"dataset": "ds-forged"}))
    v = _verify(url)
    assert not v.intact and v.broken_at == ids[2] and "edited" in v.why
    with database.session(url) as db:
        db.execute(update(AuditEvent).where(AuditEvent.id == ids[2]).values(detail={"dataset": f"ds-{2:016x}"}))
    assert _verify(url).intact  # put back byte for byte: intact again

    with database.session(url) as db:  # a row in the middle deleted
        db.execute(delete(AuditEvent).where(AuditEvent.id == ids[3]))
    v = _verify(url)
    assert not v.intact and v.broken_at == ids[4]


def test_cutting_the_newest_events_is_found(url):
    ids = [_add(url, "scenario saved", scenario=f"sc-{i:016x}") for i in range(4)]
    with database.session(url) as db:
        db.execute(delete(AuditEvent).where(AuditEvent.id >= ids[2]))
    v = _verify(url)
    assert not v.intact and v.broken_at == ids[3] and "deleted" in v.why


def test_a_changed_time_or_user_breaks_the_chain(url):
    ids = [_add(url, "dataset deleted", dataset="ds-0123456789abcdef") for _ in range(3)]
    with database.session(url) as db:
        db.execute(update(AuditEvent).where(AuditEvent.id == ids[0]).values(at=utcnow() - timedelta(days=3)))
    assert _verify(url).broken_at == ids[0]


def test_appends_from_many_threads_make_one_chain(url):
    errors = []

    def work(k):
        try:
            for i in range(8):
                _add(url, "job run", user=f"u{k}", key=f"scenario-{k:02d}{i:030d}")
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    v = _verify(url)
    assert v.intact and v.events == 48
    with database.session(url) as db:
        head = db.scalar(select(AuditHead))
        assert head.last_event_id == db.scalar(select(AuditEvent.id).order_by(AuditEvent.id.desc()).limit(1))


def test_the_migration_links_events_recorded_before_the_chain(url):
    from alembic import command

    command.downgrade(database.alembic_config(url), "0001")
    with database.engine(url).begin() as c:
        for _ in range(3):
            c.execute(text("INSERT INTO audit_events (at, user_name, address, action, detail) "
                           "VALUES (:at, 'ada', '-', 'signed in', :d)"), {"at": utcnow(), "d": '{"account": "ada"}'})
    database.migrate(url)
    v = _verify(url)
    assert v.intact and v.events == 3
    _add(url, "signed out")
    assert _verify(url).intact and _verify(url).events == 4


def _project(url, name, owner, *others):
    accounts.add_user(owner, "a long enough password", url=url)
    accounts.add_project(name, url=url)
    accounts.set_member(name, owner, "owner", url=url)
    for user, role in others:
        accounts.add_user(user, "a long enough password", url=url)
        accounts.set_member(name, user, role, url=url)
    with database.session(url) as db:
        return db.scalar(select(Project.id).where(Project.name == name))


def test_a_project_trail_has_its_events_and_its_members_sign_ins_in_it_only(url):
    x = _project(url, "gpu-x", "ada", ("bob", "viewer"))
    y = _project(url, "gpu-y", "eve", ("cy", "editor"))
    _add(url, "signed in", "bob", y, account="bob")  # before bob joined x, in another project: not x's
    _add(url, "dataset saved", "ada", x, dataset="ds-aaaaaaaaaaaaaaaa", name="secret x")
    _add(url, "dataset saved", "eve", y, dataset="ds-bbbbbbbbbbbbbbbb", name="secret y")
    _add(url, "signed in", "bob", x, account="bob")
    _add(url, "sign-in failed", None, None, account="bob", why="wrong password")  # in no project: the site's
    _add(url, "signed in", "eve", y, account="eve")
    _add(url, "refused host", None, None, host="evil.example")

    seen = audit_trail.events(x, url=url)
    assert [(e.action, e.user or e.detail.get("account")) for e in seen] == [
        ("signed in", "bob"), ("dataset saved", "ada")]
    assert "secret y" not in repr(seen) and "evil.example" not in repr(seen)
    assert [e.action for e in audit_trail.events(y, url=url)] == ["signed in", "dataset saved", "signed in"]
    assert len(audit_trail.events(None, url=url)) == 7  # the administrator's export: everything
    assert [e.id for e in audit_trail.events(x, limit=1, url=url)] == [seen[0].id]
    assert [e.id for e in audit_trail.events(x, before=seen[0].id, limit=5, url=url)] == [seen[1].id]
    assert [e.action for e in audit_trail.events(x, action="dataset saved", url=url)] == ["dataset saved"]
    assert {e.action for e in audit_trail.events(x, user="bob", url=url)} == {"signed in"}
    assert audit_trail.actions(x, url=url) == ["dataset saved", "signed in"]


def test_a_page_of_a_project_trail_reads_past_many_events_of_others(url):
    """Strangers' refusals and other projects' events, many of them, do not hide a project's own events: the
    project's rows are found by its index, a page at a time."""
    x = _project(url, "gpu-x", "ada")
    first = _add(url, "dataset saved", "ada", x, dataset="ds-aaaaaaaaaaaaaaaa")
    for i in range(450):
        _add(url, "refused host", None, None, host=f"h{i}.example")
    last = _add(url, "dataset deleted", "ada", x, dataset="ds-aaaaaaaaaaaaaaaa")
    assert [e.id for e in audit_trail.events(x, url=url)] == [last, first]
    assert [e.id for e in audit_trail.events(x, before=last, url=url)] == [first]


def test_the_export_is_csv_oldest_first_with_the_verdict_and_no_formulas(url):
    x = _project(url, "gpu-x", "ada")
    _add(url, "dataset saved", "ada", x, dataset="ds-aaaaaaaaaaaaaaaa", name="=HYPERLINK(\"http://evil\")")
    _add(url, "dataset deleted", "ada", x, dataset="ds-aaaaaaaaaaaaaaaa")
    text_ = audit_trail.export_csv(x, url=url)
    body, verdict = text_.rstrip("\n").rsplit("\n", 1)
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == list(audit_trail.COLUMNS)
    assert [r[4] for r in rows[1:]] == ["dataset saved", "dataset deleted"]
    assert all(not c.startswith("=") for r in rows for c in r)
    assert verdict.startswith("# The trail's chain is intact: every event recorded")
    assert "2 events" not in verdict  # an owner is not told how many events the whole site has
    site = audit_trail.export_csv(None, url=url).rstrip("\n").rsplit("\n", 1)[1]
    assert site.startswith("# The trail's chain is intact: all 2 events")


def test_owners_manage_members_and_a_project_keeps_an_owner(url):
    x = _project(url, "gpu-x", "ada", ("bob", "viewer"), ("cy", "editor"))
    assert [(m.name, m.role) for m in members.members(x, url)] == [("ada", "owner"), ("cy", "editor"),
                                                                  ("bob", "viewer")]
    with pytest.raises(AccessError, match="Only owners"):
        members.set_role(x, "cy", "bob", "editor", url=url)
    with pytest.raises(AccessError, match="no such project"):
        members.set_role(x + 999, "ada", "bob", "editor", url=url)
    with pytest.raises(AccessError, match="not a member .* invitation"):
        members.set_role(x, "ada", "nobody", "editor", url=url)
    with pytest.raises(AccessError, match="role"):
        members.set_role(x, "ada", "bob", "admin", url=url)
    assert "now an editor" in members.set_role(x, "ada", "bob", "editor", url=url)
    with pytest.raises(AccessError, match="last owner"):
        members.set_role(x, "ada", "ada", "editor", url=url)
    with pytest.raises(AccessError, match="last owner"):
        members.remove(x, "ada", "ada", url=url)
    members.set_role(x, "ada", "cy", "owner", url=url)
    assert "Removed ada" in members.remove(x, "cy", "ada", url=url)
    assert [(m.name, m.role) for m in members.members(x, url)] == [("cy", "owner"), ("bob", "editor")]
    accounts.add_user("dan", "a long enough password", url=url)  # an account joins only by an invitation
    with pytest.raises(AccessError, match="not a member .* invitation"):
        members.set_role(x, "cy", "dan", "viewer", url=url)


@pytest.mark.parametrize("change", ["demote", "remove"])
def test_two_owners_acting_on_each_other_at_once_leave_one_owner(url, monkeypatch, change):
    """Two owners demote (or remove) each other at the same moment. Each change counts the owners and then
    writes; the count is held back until both have counted (or 3 s have passed, when the other is waiting for
    the memberships' lock), so without that lock both counted two owners and the project had none."""
    x = _project(url, "gpu-x", "ada", ("bob", "owner"))
    counted = threading.Barrier(2, timeout=3)
    real_owners = members._owners

    def owners_then_wait(db, project_id):
        n = real_owners(db, project_id)
        try:
            counted.wait()
        except threading.BrokenBarrierError:
            pass
        return n

    monkeypatch.setattr(members, "_owners", owners_then_wait)
    results: dict[str, str] = {}

    def act(who, whom):
        try:
            if change == "demote":
                results[who] = members.set_role(x, who, whom, "editor", url=url)
            else:
                results[who] = members.remove(x, who, whom, url=url)
        except AccessError as e:
            results[who] = f"refused: {e}"

    threads = [threading.Thread(target=act, args=("ada", "bob")), threading.Thread(target=act, args=("bob", "ada"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    refused = [w for w, r in results.items() if r.startswith("refused")]
    assert len(results) == 2 and len(refused) == 1, results
    assert any(s in results[refused[0]] for s in ("last owner", "Only owners", "no such project"))
    assert [m.role for m in members.members(x, url)].count("owner") == 1


def test_the_retention_rule_deletes_old_events_and_the_kept_chain_still_verifies(url):
    ids = [_add(url, "dataset saved", "ada", None, dataset=f"ds-{i:016x}") for i in range(6)]
    with database.session(url) as db:  # the first four are old
        db.execute(update(AuditEvent).where(AuditEvent.id <= ids[3]).values(at=utcnow() - timedelta(days=500)))
        audit_chain.relink_all(db.connection())  # their times changed: link them again, as recorded then
    assert _verify(url).intact
    with database.session(url) as db:
        assert audit_chain.prune(db, utcnow() - timedelta(days=400)) == 4
    with database.session(url) as db:
        assert list(db.scalars(select(AuditEvent.id).order_by(AuditEvent.id))) == ids[4:]
    v = _verify(url)
    assert v.intact and v.events == 2
    new = _add(url, "dataset deleted", "ada", None, dataset="ds-0000000000000000")
    assert _verify(url).intact and _verify(url).events == 3
    with database.session(url) as db:  # deleting a kept event outside the rule is still found
        db.execute(delete(AuditEvent).where(AuditEvent.id == ids[4]))
    v = _verify(url)
    assert not v.intact and "retention" in v.why or v.broken_at in (ids[5], new)
    with database.session(url) as db:  # and with nothing old, the rule deletes nothing
        assert audit_chain.prune(db, utcnow() - timedelta(days=400)) == 0
