"""The access database on SQLite and on a real PostgreSQL: migrations, accounts, sessions, the sign-in
limiter, setup tokens and the audit trail."""

from datetime import timedelta

import pytest
from sqlalchemy import inspect, select, update

from dashboard.access import accounts, database, first_start, limiter, sessions
from dashboard.access.models import AuditEvent, Session, utcnow

TABLES = {"users", "projects", "memberships", "sessions", "audit_events", "setup_tokens", "login_failures",
          "audit_head", "invitations", "known_clients"}


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'perfcast.db'}"
    return request.getfixturevalue("postgres_url")


def test_migrations_create_every_table_and_run_again_harmlessly(url):
    database.migrate(url)
    database.migrate(url)
    assert database.current_revision(url) == "0007"
    found = set(inspect(database.engine(url)).get_table_names())
    assert TABLES <= found and "alembic_version" in found
    columns = {c["name"] for c in inspect(database.engine(url)).get_columns("users")}
    assert {"name", "display_name", "password_hash", "oidc_subject", "disabled", "created",
            "last_project_id"} <= columns
    for table in ("sessions", "audit_events"):
        assert "project_id" in {c["name"] for c in inspect(database.engine(url)).get_columns(table)}


def test_migrations_go_down_and_up_again(url):
    from alembic import command

    database.migrate(url)
    command.downgrade(database.alembic_config(url), "base")
    assert not TABLES & set(inspect(database.engine(url)).get_table_names())
    database.migrate(url)
    assert TABLES <= set(inspect(database.engine(url)).get_table_names())


def test_accounts_projects_and_roles(url):
    database.migrate(url)
    assert not accounts.has_users(url)
    accounts.add_user("ada", "correct horse battery", url=url)
    with pytest.raises(accounts.AccessError, match="already"):
        accounts.add_user("ada", "another long password", url=url)
    with pytest.raises(accounts.AccessError, match="at least"):
        accounts.add_user("bob", "short", url=url)
    with pytest.raises(accounts.AccessError, match="user name"):
        accounts.add_user("../x", "long enough password", url=url)
    accounts.add_project("gpu-next", url=url)
    accounts.set_member("gpu-next", "ada", "editor", url=url)
    accounts.set_member("gpu-next", "ada", "owner", url=url)
    with pytest.raises(accounts.AccessError, match="role"):
        accounts.set_member("gpu-next", "ada", "admin", url=url)
    assert accounts.memberships("ada", url=url) == {"gpu-next": "owner"}


def test_sessions_expire_are_revoked_and_die_with_a_disabled_account(url):
    database.migrate(url)
    user = accounts.add_user("ada", "correct horse battery", url=url)
    with database.session(url) as db:
        sid = sessions.create(db, user.id, 12)
        other = sessions.create(db, user.id, 12)
    assert sessions.lookup(sid, url).name == "ada"
    with database.session(url) as db:  # the row holds the digest only
        assert db.scalar(select(Session.digest).where(Session.digest == sessions.digest(sid)))
        assert not db.scalar(select(Session.id).where(Session.digest == sid))
    with database.session(url) as db:
        db.execute(update(Session).where(Session.digest == sessions.digest(sid))
                   .values(expires=utcnow() - timedelta(seconds=1)))
    assert sessions.lookup(sid, url) is None
    assert sessions.lookup(sid, url, valid_only=False).name == "ada"  # whose it was, for the audit trail
    accounts.set_disabled("ada", True, url=url)
    assert sessions.lookup(other, url) is None
    accounts.set_disabled("ada", False, url=url)
    assert sessions.lookup(other, url) is not None
    assert sessions.revoke_user("ada", url) == 1
    assert sessions.lookup(other, url) is None


def test_the_cookie_is_signed():
    value = sessions.cookie_value("abc", "k1")
    assert sessions.session_id_of(value, "k1") == "abc"
    assert sessions.session_id_of(value, "k2") is None
    assert sessions.session_id_of("abd." + value.split(".")[1], "k1") is None
    assert sessions.session_id_of(None, "k1") is None and sessions.session_id_of("x" * 500, "k1") is None


def test_the_limiter_counts_failures_per_account_per_client_and_per_device(url, monkeypatch):
    database.migrate(url)
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURES_PER_ACCOUNT", 3)
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURES_PER_ADDRESS", 5)
    monkeypatch.setattr("dashboard.settings.LOGIN_FAILURES_PER_DEVICE", 2)

    def fail(account, client, device=None):
        attempt = limiter.begin(account, client, device, url)
        assert attempt is not None
        limiter.failed(attempt, url)

    for _ in range(3):
        fail("ada", "10.0.0.1")
    assert limiter.begin("ada", "10.0.0.2", url=url) is None  # the account, from anywhere
    ada_device = limiter.begin("ada", "10.0.0.2", "d" * 24, url)  # ... but not from ada's own browser
    assert ada_device is not None
    limiter.succeeded(ada_device, url)
    assert limiter.begin("ada", "10.0.0.2", url=url) is None  # a member's sign-in keeps the stranger's count
    fail("bob", "10.0.0.1")
    fail("cy", "10.0.0.1")
    assert limiter.begin("dan", "10.0.0.1", url=url) is None  # the client, for any account
    assert limiter.begin("dan", "10.0.0.1", "e" * 24, url) is not None  # not for dan's browser
    fail("ada", "10.0.0.9", "f" * 24)
    fail("ada", "10.0.0.9", "f" * 24)
    assert limiter.begin("ada", "10.0.0.9", "f" * 24, url) is None  # a device's own failures count
    monkeypatch.setattr("dashboard.settings.LOGIN_WINDOW_SECONDS", 0)
    assert limiter.begin("dan", "10.0.0.1", url=url) is not None  # the window has passed


def test_the_client_is_the_forwarded_address_behind_a_trusted_proxy_and_an_ipv6_slash_64(monkeypatch):
    monkeypatch.setattr("dashboard.settings.TRUSTED_PROXIES", ["127.0.0.1"])
    assert limiter.client_key("127.0.0.1", "10.9.9.9, 10.1.2.3") == "10.1.2.3"
    assert limiter.client_key("127.0.0.1", "10.1.2.3, 127.0.0.1") == "10.1.2.3"  # a chain of trusted hops
    assert limiter.client_key("10.0.0.7", "10.1.2.3") == "10.0.0.7"  # forwarded by someone untrusted: ignored
    assert limiter.client_key("127.0.0.1", None) == "127.0.0.1"
    assert limiter.client_key("2001:db8:1:2:aaaa::1") == limiter.client_key("2001:db8:1:2:ffff::9") \
        == "2001:db8:1:2::/64"
    assert limiter.client_key("::ffff:10.0.0.5") == "10.0.0.5"
    assert limiter.client_key("not an address") == "not an address"
    # an entry with a port is the same client as without it, whatever the port
    assert {limiter.client_key("127.0.0.1", f"10.1.2.3:{port}") for port in (1, 5678, 65535)} == {"10.1.2.3"}
    assert limiter.client_key("127.0.0.1", "[2001:db8:1:2::7]:443") == "2001:db8:1:2::/64"
    assert limiter.client_key("127.0.0.1", "2001:db8:1:2::7") == "2001:db8:1:2::/64"  # colons of its own
    # text that is no address: all such entries are one client, not one each
    assert {limiter.client_key("127.0.0.1", f"junk-{i}") for i in range(5)} == {"forwarded:unparsed"}


def test_a_device_cookie_is_signed_and_names_its_account():
    cookie = limiter.device_cookie("ada.lovelace", "k" * 32)
    device = limiter.device_of(cookie, "ada.lovelace", "k" * 32)
    assert device is not None and len(device) == 24
    assert limiter.device_of(cookie, "bob", "k" * 32) is None
    assert limiter.device_of(cookie, "ada.lovelace", "other secret" * 3) is None
    assert limiter.device_of(cookie[:-2] + "xx", "ada.lovelace", "k" * 32) is None
    assert limiter.device_of("garbage", "ada", "k" * 32) is None and limiter.device_of(None, "ada", "k") is None


def test_a_setup_token_makes_the_first_owner_once(url):
    database.migrate(url)
    token = first_start.issue_token(url)
    assert first_start.token_state("nope", url) == "invalid"
    assert first_start.token_state(token, url) == "ok"
    owner = first_start.create_first_owner(token, "root-owner", "correct horse battery", url=url)
    assert owner.name == "root-owner"
    assert accounts.memberships("root-owner", url) == {"default": "owner"}
    assert first_start.token_state(token, url) == "done"
    with pytest.raises(accounts.AccessError, match="set up already"):
        first_start.create_first_owner(token, "second", "correct horse battery", url=url)


def test_an_unused_token_expires(url):
    from dashboard.access.models import SetupToken

    database.migrate(url)
    token = first_start.issue_token(url)
    with database.session(url) as db:
        db.execute(update(SetupToken).values(expires=utcnow() - timedelta(seconds=1)))
    assert first_start.token_state(token, url) == "invalid"
    with pytest.raises(accounts.AccessError, match="not valid"):
        first_start.create_first_owner(token, "ada", "correct horse battery", url=url)


def test_audit_events_are_rows(url, monkeypatch):
    from dashboard import audit_log, settings

    database.migrate(url)
    monkeypatch.setattr(settings, "DATABASE_URL", url)
    audit_log.record("dataset saved", "10.1.2.3", dataset="ds-0", name="x\ny")
    with database.session(url) as db:
        (event,) = db.scalars(select(AuditEvent)).all()
    assert (event.action, event.address, event.user_name) == ("dataset saved", "10.1.2.3", None)
    assert event.detail == {"dataset": "ds-0", "name": "x\ny"}
