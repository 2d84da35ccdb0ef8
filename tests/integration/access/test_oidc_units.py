"""OpenID Connect sign-in in-process: accounts are found by the issuer-qualified subject only (never by name),
created without any project membership (or refused when creation is off), a disabled account is refused; the
flow cookie cannot be forged or outlive its limit; the sign-in page offers the provider and can hide the
password form; an unreachable or misconfigured provider is a clear message, not a traceback."""

import time

import pytest
from flask.testing import FlaskClient
from sqlalchemy import select

from dashboard.access import accounts, database, oidc
from dashboard.access.models import AuditEvent, User

ISS = "http://127.0.0.1:9/issuer"


@pytest.fixture()
def configured(monkeypatch):
    monkeypatch.setattr("dashboard.settings.OIDC_ISSUER", ISS)
    monkeypatch.setattr("dashboard.settings.OIDC_CLIENT_ID", "perfcast")
    monkeypatch.setattr("dashboard.settings.OIDC_CLIENT_SECRET", "secret")
    monkeypatch.setattr("dashboard.settings.OIDC_NAME", "Corp SSO")
    oidc.reset()
    yield
    oidc.reset()


def anonymous(app):
    c = FlaskClient(app.server, use_cookies=True)
    c.environ_base["REMOTE_ADDR"] = "127.0.0.1"
    return c


def unique(prefix="u") -> str:
    return f"{prefix}{time.time_ns() % 10**10}"


def test_the_subject_is_issuer_qualified_and_fits_the_column():
    assert oidc.subject_of("https://idp.example/", "abc") == "https://idp.example#abc"
    long = oidc.subject_of("https://idp.example", "x" * 300)
    assert long.startswith("sha256:") and len(long) <= 255
    assert oidc.subject_of("https://a.example", "b") != oidc.subject_of("https://b.example", "b")


def test_names_come_from_the_configured_claim_then_email_then_sub(monkeypatch):
    assert oidc._name_from({"preferred_username": "ann.lee", "email": "x@y", "sub": "1"}) == "ann.lee"
    assert oidc._name_from({"email": "bo b@corp.example", "sub": "1"}) == "bo-b@corp.example"
    assert oidc._name_from({"sub": "a/b:c"}) == "a-b-c"
    assert oidc._name_from({"preferred_username": "  ", "sub": "---"}) == "user"
    monkeypatch.setattr("dashboard.settings.OIDC_USERNAME_CLAIM", "upn")
    assert oidc._name_from({"upn": "carl@corp", "preferred_username": "c"}) == "carl@corp"
    assert accounts.NAME.match(oidc._name_from({"sub": "é" * 100}))


def test_an_account_is_found_by_subject_never_by_name(configured):
    local = unique("local")
    accounts.add_user(local, "correct horse battery")
    claims = {"sub": unique("s"), "preferred_username": local, "name": "Someone Else"}
    user_id, name, created = oidc.user_for(claims, ISS)
    assert created and name == f"{local}-2"  # the password account of that name is not taken over
    assert accounts.memberships(name) == {}  # a member of no project until an owner adds them
    with database.session() as db:
        user = db.get(User, user_id)
        assert user.password_hash is None and user.oidc_subject == f"{ISS}#{claims['sub']}"
        assert user.display_name == "Someone Else"
    again = oidc.user_for({**claims, "preferred_username": "renamed", "name": "New Name"}, ISS)
    assert again == (user_id, name, False)  # the same account (the subject), its name kept
    with database.session() as db:
        assert db.get(User, user_id).display_name == "New Name"
    other_issuer = oidc.user_for(claims, "https://other.example")
    assert other_issuer[0] != user_id  # the same sub at another issuer is someone else


def test_unknown_subjects_are_refused_when_creation_is_off_and_can_be_linked(configured, monkeypatch):
    monkeypatch.setattr("dashboard.settings.OIDC_CREATE_USERS", False)
    sub = unique("s")
    with pytest.raises(oidc.SignInError) as e:
        oidc.user_for({"sub": sub}, ISS)
    assert e.value.status == 403 and e.value.detail["subject"] == f"{ISS}#{sub}"
    name = unique("linked")
    accounts.add_user(name, "correct horse battery")
    assert oidc.main(["link", name, f"{ISS}#{sub}"]) == 0
    assert oidc.user_for({"sub": sub}, ISS)[1:] == (name, False)
    accounts.set_disabled(name)
    with pytest.raises(oidc.SignInError, match="disabled"):
        oidc.user_for({"sub": sub}, ISS)


def test_the_flow_cookie_cannot_be_forged_or_outlive_its_limit(perfcast_app, configured, monkeypatch):
    with perfcast_app.server.test_request_context():
        good = oidc._serializer().dumps([{"state": "s1", "nonce": "n", "code_verifier": "v"}])
        assert [f["state"] for f in oidc.pending(good)] == ["s1"]
        assert oidc.pending(good[:-2] + "xx") == []
        assert oidc.pending("not a cookie") == [] and oidc.pending(None) == [] and oidc.pending("x" * 5000) == []
        from itsdangerous import URLSafeTimedSerializer

        other_key = URLSafeTimedSerializer("another key", salt="perfcast-oidc-flow").dumps([{"state": "s1"}])
        assert oidc.pending(other_key) == []
        from itsdangerous.timed import TimestampSigner

        monkeypatch.setattr("dashboard.settings.OIDC_FLOW_SECONDS", 1)
        signed_at = TimestampSigner.get_timestamp
        monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: signed_at(self) + 3)  # 3 s later
        assert oidc.pending(good) == []


def test_the_sign_in_page_offers_the_provider_and_can_hide_passwords(perfcast_app, configured, monkeypatch):
    page = anonymous(perfcast_app).get("/login?next=/data").get_data(as_text=True)
    assert "Sign in with Corp SSO" in page and 'href="/oidc/login?next=/data"' in page
    assert 'id="signin-password"' in page
    monkeypatch.setattr("dashboard.settings.PASSWORD_SIGNIN", False)
    page = anonymous(perfcast_app).get("/login").get_data(as_text=True)
    assert "Sign in with Corp SSO" in page and 'id="signin-password"' not in page
    r = anonymous(perfcast_app).post("/login", data={"name": "tester", "password": "whatever"},
                                     headers={"Origin": "http://localhost"})
    assert r.status_code == 403 and "switched off" in r.get_data(as_text=True)
    assert "perfcast_session=" not in r.headers.get("Set-Cookie", "")


def test_single_sign_on_routes_when_it_is_not_configured(perfcast_app):
    assert anonymous(perfcast_app).get("/oidc/login").status_code == 404
    assert anonymous(perfcast_app).get("/oidc/callback?code=a&state=b").status_code == 404
    assert "Sign in with" not in anonymous(perfcast_app).get("/login").get_data(as_text=True)


def test_an_unreachable_or_misconfigured_provider_is_a_clear_message(perfcast_app, configured, monkeypatch):
    r = anonymous(perfcast_app).get("/oidc/login?next=/data")  # nothing listens on port 9
    assert r.status_code == 502 and "cannot be reached now" in r.get_data(as_text=True)

    class Liar:
        def load_server_metadata(self):
            return {"issuer": "https://evil.example", "authorization_endpoint": "https://evil.example/auth"}

    monkeypatch.setattr(oidc, "client", lambda: Liar())
    r = anonymous(perfcast_app).get("/oidc/login")
    assert r.status_code == 502 and "another issuer" in r.get_data(as_text=True)
    assert "evil.example" not in r.headers.get("Location", "")
    with database.session() as db:
        failed = db.scalars(select(AuditEvent).where(AuditEvent.action == "sign-in failed"))
        whys = [e.detail.get("why") for e in failed]
    assert "provider unreachable" in whys and "issuer mismatch" in whys


def test_a_forged_callback_is_refused_before_the_provider_is_asked(perfcast_app, configured, monkeypatch):
    def no_network():
        raise AssertionError("the provider was asked")

    monkeypatch.setattr(oidc, "metadata", no_network)
    r = anonymous(perfcast_app).get("/oidc/callback?code=stolen&state=guess")
    assert r.status_code == 400 and "not started in this browser" in r.get_data(as_text=True)
    r = anonymous(perfcast_app).get("/oidc/callback?error=access_denied")
    assert r.status_code == 400


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'perfcast.db'}" if request.param == "sqlite" else request.getfixturevalue(
        "postgres_url")
    database.migrate(url)
    return url


def test_first_sign_ins_of_one_person_at_once_make_one_account(db_url):
    """Several workers finishing the same person's first sign-in together: one account, every one finds it
    (SQLite and PostgreSQL)."""
    from concurrent.futures import ThreadPoolExecutor

    claims = {"sub": unique("s"), "preferred_username": "twin"}
    with ThreadPoolExecutor(6) as pool:
        results = list(pool.map(lambda _i: oidc.user_for(claims, ISS, True, db_url), range(6)))
    assert len({r[0] for r in results}) == 1 and {r[1] for r in results} == {"twin"}
    assert sum(r[2] for r in results) == 1
    other = oidc.user_for({"sub": unique("s"), "preferred_username": "twin"}, ISS, True, db_url)
    assert other[1] == "twin-2"
    with database.session(db_url) as db:
        assert len(db.scalars(select(User)).all()) == 2
