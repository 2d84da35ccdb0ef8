"""Against real gunicorn servers: sign-out on one server ends the session on another (shared database),
the first-start link creates the first owner once, and a browser signs in through the form, sees /scenario,
signs out, and is sent back to the sign-in page when its session is ended behind its back."""

import re
import time

import pytest
import requests

from testkit.signin import Account, sign_in
from dashboard.access import accounts, sessions

from tests.integration.conftest import gunicorn_server
from pc_browser import fresh_browser, present, text_in


def test_sign_out_on_one_server_ends_the_session_on_every_server(tmp_path_factory):
    name = f"two-{time.time_ns() % 10**9}"
    accounts.add_user(name, "correct horse battery")
    with gunicorn_server(tmp_path_factory.mktemp("web-a"), PERFCAST_WORKERS="2") as (a, _, _log_a), \
            gunicorn_server(tmp_path_factory.mktemp("web-b"), PERFCAST_WORKERS="2") as (b, _, _log_b):
        http = requests.Session()
        sign_in(http, a, Account(name, "correct horse battery"))
        for base in (a, b) * 4:  # both servers, both workers of each
            assert http.get(base + "/_dash-layout", timeout=30).status_code == 200
        kept = requests.Session()  # the same cookie, kept (a copy the browser's sign-out does not reach)
        kept.cookies.update(http.cookies)
        assert http.post(a + "/logout", timeout=30, allow_redirects=False).status_code == 303
        for base in (a, b) * 4:
            assert kept.get(base + "/_dash-layout", timeout=30).status_code == 401, base


def test_the_first_start_link_is_printed_once_and_makes_one_owner(tmp_path_factory):
    var = tmp_path_factory.mktemp("first-start")
    db = f"sqlite:///{var / 'perfcast.db'}"
    with gunicorn_server(var, PERFCAST_DATABASE_URL=db, PERFCAST_WORKERS="2") as (base, _, log):
        text = log.read_text()
        links = re.findall(r"(http://\S+/setup\?token=[\w-]+)", text)
        assert len(links) == 1, text  # once, not once per worker
        link = links[0]
        assert link.startswith(base)
        assert "no user yet" in requests.get(base + "/login", timeout=30).text
        assert requests.get(base + "/setup?token=wrong", timeout=30).status_code == 403
        form = requests.get(link, timeout=30)
        assert form.status_code == 200 and 'name="token"' in form.text and "<script" not in form.text
        token = link.split("token=", 1)[1]
        http = requests.Session()
        r = http.post(base + "/setup", data={"token": token, "name": "first", "password": "correct horse battery",
                                            "again": "correct horse batteryX"}, timeout=30)
        assert r.status_code == 400 and "differ" in r.text
        r = http.post(base + "/setup", data={"token": token, "name": "first", "password": "correct horse battery",
                                            "again": "correct horse battery"}, allow_redirects=False, timeout=30)
        assert r.status_code == 303 and r.headers["Location"] == "/"
        assert http.get(base + "/_dash-layout", timeout=30).status_code == 200  # signed in as the owner
        again = requests.post(base + "/setup", data={"token": token, "name": "second", "again": "correct horse "
                              "battery", "password": "correct horse battery"}, timeout=30)
        assert again.status_code == 410 and "set up already" in again.text
        assert requests.get(link, timeout=30).status_code == 410
        assert accounts.memberships("first", db) == {"default": "owner"}
        assert not accounts.memberships("second", db)
    with gunicorn_server(var, PERFCAST_DATABASE_URL=db) as (_base, _, log):  # a restart with a user: no link
        assert "setup?token=" not in log.read_text()


@pytest.fixture()
def browser_user():
    name = f"browser-{time.time_ns() % 10**9}"
    accounts.add_user(name, "correct horse battery", "Browser User")
    return name


def test_a_browser_signs_in_sees_the_scenario_page_and_signs_out(live_server, browser_user):
    base = live_server[0]
    d = fresh_browser(signed_in=False)
    try:
        d.get(base + "/scenario")
        present(d, "#signin-name")
        assert "/login?next=/scenario" in d.current_url
        d.save_screenshot("/tmp/login.png")
        d.find_element("id", "signin-name").send_keys(browser_user)
        d.find_element("id", "signin-password").send_keys("correct horse battery")
        d.find_element("id", "signin-submit").click()
        present(d, "#scenario-run", 60)
        assert d.current_url.startswith(base + "/scenario")
        assert text_in(d, "#signed-in-user") == "Browser User"
        d.find_element("id", "signout-button").click()
        present(d, "#signin-name")
        assert d.current_url.startswith(base + "/login")
        d.get(base + "/scenario")
        present(d, "#signin-name")  # the session is gone: back to the sign-in page

        # signed in again, then the session is ended behind the page's back: its next request gets 401 and
        # assets/session-expired.js sends it to the sign-in page instead of leaving it stale
        d.find_element("id", "signin-name").send_keys(browser_user)
        d.find_element("id", "signin-password").send_keys("correct horse battery")
        d.find_element("id", "signin-submit").click()
        present(d, "#scenario-run", 60)
        sessions.revoke_user(browser_user)
        nav = d.find_elements("css selector", "#nav-features")  # (a request of the page may have been refused
        if nav:                                                  # already, and the page left for /login)
            try:
                nav[0].click()  # the router's callback: answered 401
            except Exception:  # noqa: BLE001 - the page is leaving for /login under the click
                pass
        present(d, "#signin-name", 30)
        assert "/login?next=" in d.current_url
    finally:
        d.quit()
