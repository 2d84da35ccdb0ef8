"""What strangers can write to the audit trail (dashboard/audit_log.py): a refusal anyone can cause is written
once a minute per client and kind with the count of its repeats, not once per request; beyond a number of kinds
a minute, one event counts the rest; an event the database could not store is itself recorded once storing
works again."""

import logging

import pytest

from dashboard import audit_log


@pytest.fixture()
def stored(monkeypatch):
    rows = []
    monkeypatch.setattr(audit_log, "_SINKS", [lambda action, address, user, ids, project: rows.append(
        (action, address, dict(ids)))])
    monkeypatch.setattr(audit_log, "REPEATS", audit_log.Repeats())
    monkeypatch.setattr(audit_log, "DROPPED", audit_log.Dropped())
    return rows


def test_a_refusal_repeated_many_times_writes_two_events(stored):
    for _ in range(500):
        audit_log.record("refused host", "10.0.0.9", host="evil.example")
    audit_log.record("refused host", "10.0.0.9", host="other.example")  # other details: one more repeat
    audit_log.record("dataset saved", "10.0.0.1", dataset="ds-0000000000000001")  # not a refusal: at once
    assert [r[0] for r in stored] == ["refused host", "dataset saved"]
    audit_log.REPEATS.flush()  # the minute is over
    assert len(stored) == 3
    action, address, ids = stored[-1]
    assert (action, address, ids["host"], ids["repeats"], ids["variants"]) == (
        "refused host", "10.0.0.9", "evil.example", 500, 2)
    assert ids["first"] <= ids["last"]


def test_many_kinds_a_minute_are_counted_together_beyond_the_cap(stored, monkeypatch):
    monkeypatch.setattr(audit_log.Repeats, "MAX_KEYS", 10)
    audit_log.REPEATS = audit_log.Repeats()
    for i in range(300):  # a stranger rotating addresses
        audit_log.record("refused origin", f"10.1.{i // 250}.{i % 250}", origin="http://evil.example")
    assert len(stored) == 10
    audit_log.REPEATS.flush()
    assert stored[-1][2] == {"others": 290, "clients": 290} and len(stored) == 11


def test_a_minute_passing_writes_the_repeats_at_the_next_refusal(stored, monkeypatch):
    now = [1000.0]
    monkeypatch.setattr("time.time", lambda: now[0])
    audit_log.record("sign-in throttled", "10.0.0.5", account="bob")
    audit_log.record("sign-in throttled", "10.0.0.5", account="bob")
    now[0] += 61
    audit_log.record("sign-in throttled", "10.0.0.5", account="bob")  # a new minute: its first, at once
    assert [r[2].get("repeats") for r in stored] == [None, 1, None]


def test_dropped_events_are_recorded_when_storing_works_again(stored, monkeypatch, caplog):
    full = [True]

    def sink(action, address, user, ids, project):
        if full[0]:
            raise OSError(28, "No space left on device")
        stored.append((action, address, dict(ids)))

    monkeypatch.setattr(audit_log, "_SINKS", [sink])
    caplog.set_level(logging.ERROR, "perfcast")
    audit_log.record("dataset saved", "10.0.0.1", dataset="ds-0000000000000001")
    audit_log.record("signed in", "10.0.0.1", account="ada")
    assert stored == []
    full[0] = False
    audit_log.record("dataset deleted", "10.0.0.1", dataset="ds-0000000000000001")
    assert [r[0] for r in stored] == ["dataset deleted", "audit events not stored"]
    assert stored[1][2] == {"dropped": 2, "of_dataset_saved": 1, "of_signed_in": 1}
    audit_log.record("dataset saved", "10.0.0.1", dataset="ds-0000000000000002")
    assert len(stored) == 3  # reported once


def test_one_client_varying_the_details_writes_two_events_a_minute(stored):
    """A stranger who changes the refused value on every request (another Host name, Origin or path each time)
    is still one client: its first refusal is written, the rest of the minute is one event with their count
    and how many distinct details they had."""
    for i in range(500):
        audit_log.record("refused host", "10.0.0.9", host=f"evil{i}.example", method="GET", path=f"/p{i}")
    assert len(stored) == 1 and stored[0][2]["host"] == "evil0.example"
    audit_log.REPEATS.flush()
    assert len(stored) == 2
    action, address, ids = stored[1]
    assert (action, address, ids["repeats"], ids["variants"]) == ("refused host", "10.0.0.9", 499, 500)


def test_other_clients_and_other_kinds_are_still_apart(stored):
    audit_log.record("refused host", "10.0.0.9", host="a.example")
    audit_log.record("refused host", "10.0.0.8", host="a.example")
    audit_log.record("refused origin", "10.0.0.9", origin="http://a.example")
    assert len(stored) == 3


@pytest.mark.parametrize("action, ids", [("refused: role", {"needed": "editor", "role": "none", "tried": "upload"}),
                                         ("project switch refused", {})])
def test_an_account_in_no_project_repeating_a_refused_change_writes_two_events(stored, action, ids):
    """Any account, even one in no project (a single sign-on account is made in none), could write a row per
    forged upload or switch: 100 refused uploads wrote 100 rows. Counted like the refusals of strangers."""
    for _ in range(100):
        audit_log.record(action, "10.0.0.7", **ids)
    assert len(stored) == 1
    audit_log.REPEATS.flush()
    assert len(stored) == 2 and stored[1][2]["repeats"] == 99
