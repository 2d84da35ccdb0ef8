"""A request naming a foreign Host is refused (DNS rebinding); a state-changing request from another origin
is refused (CSRF); saves, deletes and refusals are in the server's log with the client's address, and the
server writes an access log."""

import base64
import io
import json
import logging
import re

import pytest
import requests
from werkzeug.test import Client

from testkit.dash_client import DashClient
from dashboard.request_checks import AllowedHosts, RequestChecks, origin_of, split_host
from dashboard.state import datasets, files

from conftest import gunicorn_server

REFUSED_HOST = "Bad Request: this server does not answer to that host name.\n"
REFUSED_ORIGIN = "Forbidden: this request comes from another site.\n"
ROUTER_BODY = {"output": ".._pages_content.children..._pages_store.data..",
               "outputs": [{"id": "_pages_content", "property": "children"},
                           {"id": "_pages_store", "property": "data"}],
               "inputs": [{"id": "_pages_location", "property": "pathname", "value": "/"},
                          {"id": "_pages_location", "property": "search", "value": ""}],
               "changedPropIds": ["_pages_location.pathname"]}


def test_host_and_origin_parsing():
    assert split_host("LocalHost:8050") == ("localhost", "8050")
    assert split_host("[::1]:8050") == ("[::1]", "8050") and split_host("[::1]") == ("[::1]", None)
    for malformed in ("::1", "localhost:", "localhost:80x", "[::1]x", "a:1:2"):
        assert split_host(malformed)[1] is None and split_host(malformed)[0] != "localhost", malformed
    assert origin_of("http://LOCALHOST:80/data?x=1") == "http://localhost"
    assert origin_of("https://u:p@perfcast.example.com:8443/") == "https://perfcast.example.com:8443"
    assert origin_of("http://[::1]:8050") == "http://[::1]:8050"
    assert origin_of("null") is None and origin_of("file:///x") is None and origin_of("javascript:x") is None

    default = AllowedHosts(["127.0.0.1", "localhost", "[::1]"])
    for ok in ("127.0.0.1", "localhost:8050", "[::1]:1", "LOCALHOST"):
        assert ok in default, ok
    for foreign in ("evil.example", "localhost.evil.example", "evil.example:8050", "127.0.0.1.nip.io", "",
                    "::1", "127.0.0.1:abc"):
        assert foreign not in default, foreign
    named = AllowedHosts(["perfcast.example.com:8443", "intranet"], "https://site.example.org")
    assert "perfcast.example.com:8443" in named and "perfcast.example.com" not in named
    assert "intranet:9999" in named and "site.example.org" in named and "site.example.org:443" in named
    assert "localhost" not in named
    assert "anything.example" in AllowedHosts(["*"])


@pytest.mark.parametrize("allowed, site, expected", [
    (["127.0.0.1", "localhost", "[::1]"], None, "127.0.0.1"), (["*"], None, "localhost"),
    (["*", "perfcast.internal:8123"], None, "perfcast.internal:8123"),
    (["intranet"], "https://perfcast.example.com:8443/", "perfcast.example.com:8443")])
def test_the_warm_up_asks_for_an_allowed_host(monkeypatch, allowed, site, expected):
    """gunicorn.conf.py and the bundle compression request pages from the worker itself, as ``local_host()``."""
    from dashboard.request_checks import local_host

    monkeypatch.setattr("dashboard.settings.ALLOWED_HOSTS", allowed)
    monkeypatch.setattr("dashboard.settings.SITE_URL", site)
    assert local_host() == expected and expected in AllowedHosts(allowed, site)


def _client(perfcast_app):
    return perfcast_app.server.test_client()


@pytest.mark.parametrize("method, path", [("GET", "/"), ("GET", "/_dash-layout"), ("GET", "/_dash-dependencies"),
                                          ("POST", "/_dash-update-component"), ("GET", "/assets/style.css"),
                                          ("GET", "/no-such-page")])
def test_a_foreign_host_gets_400_and_nothing_else(perfcast_app, caplog, method, path):
    client = _client(perfcast_app)
    with caplog.at_level(logging.INFO, logger="perfcast.audit"):
        r = client.open(path, method=method, json=ROUTER_BODY if method == "POST" else None,
                        headers={"Host": "evil.example:8050", "Origin": "http://evil.example:8050"})
    assert r.status_code == 400 and r.get_data(as_text=True) == REFUSED_HOST
    assert r.headers["Content-Type"].startswith("text/plain")
    assert any("refused host from=127.0.0.1 host=evil.example:8050" in m for m in caplog.messages), caplog.messages
    # the same request to an allowed host is answered
    r = client.open(path, method=method, json=ROUTER_BODY if method == "POST" else None,
                    headers={"Host": "localhost:8050", "Origin": "http://localhost:8050"})
    assert r.status_code == 200, (path, r.status_code)  # (Dash pages answer an unknown page with its 404 page)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1:8050", "[::1]:8050", "LOCALHOST:1"])
def test_the_loopback_hosts_are_allowed_by_default(perfcast_app, host):
    r = _client(perfcast_app).get("/_dash-layout", headers={"Host": host})
    assert r.status_code == 200 and r.is_json


def test_a_callback_from_another_origin_is_refused_and_from_the_site_answered(perfcast_app):
    client = _client(perfcast_app)
    site = {"Host": "localhost:8050"}
    for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"}, {"Origin": "http://localhost:8051"},
                    {"Origin": "https://localhost:8050"}, {"Referer": "http://evil.example/page"},
                    {"Origin": "http://evil.example", "Referer": "http://localhost:8050/data"}):
        r = client.post("/_dash-update-component", json=ROUTER_BODY, headers={**site, **headers})
        assert r.status_code == 403 and r.get_data(as_text=True) == REFUSED_ORIGIN, headers
    for headers in ({"Origin": "http://localhost:8050"}, {"Origin": "http://LOCALHOST:8050"},
                    {"Referer": "http://localhost:8050/data?x=1"}, {}):
        r = client.post("/_dash-update-component", json=ROUTER_BODY, headers={**site, **headers})
        assert r.status_code == 200 and "response" in r.get_json(), headers
    # a read is never refused for its origin (a link from another site opens the page)
    assert client.get("/", headers={**site, "Referer": "http://evil.example/"}).status_code == 200


def _signed_client(wsgi):
    """A werkzeug test client of ``wsgi`` with the test session's sign-in cookie for the names used below."""
    from tests.signed_in import cookie

    client = Client(wsgi)
    for domain in ("perfcast.example.com", "intranet", "localhost", "perfcast.internal"):
        client.set_cookie(*cookie(), domain=domain)
    return client


def test_site_url_allowed_hosts_and_require_origin(perfcast_app):
    flask_app = perfcast_app.server.wsgi_app.app  # the app inside the installed checks
    behind_proxy = _signed_client(RequestChecks(flask_app, ["intranet:8050"], "https://perfcast.example.com"))
    host = {"Host": "perfcast.example.com"}  # the proxy forwards plain http with the public Host
    assert behind_proxy.get("/_dash-layout", headers=host).status_code == 200
    assert behind_proxy.get("/_dash-layout", headers={"Host": "intranet:8050"}).status_code == 200
    assert behind_proxy.get("/_dash-layout", headers={"Host": "intranet:8051"}).status_code == 400
    assert behind_proxy.get("/_dash-layout", headers={"Host": "localhost"}).status_code == 400
    ok = behind_proxy.post("/_dash-update-component", json=ROUTER_BODY,
                           headers={**host, "Origin": "https://perfcast.example.com"})
    assert ok.status_code == 200
    # the site is PERFCAST_SITE_URL, not the request's own scheme and host
    assert behind_proxy.post("/_dash-update-component", json=ROUTER_BODY,
                             headers={**host, "Origin": "http://perfcast.example.com"}).status_code == 403

    strict = _signed_client(RequestChecks(flask_app, ["localhost"], require_origin=True))
    assert strict.post("/_dash-update-component", json=ROUTER_BODY, headers={"Host": "localhost"}).status_code == 403
    assert strict.post("/_dash-update-component", json=ROUTER_BODY,
                       headers={"Host": "localhost", "Origin": "http://localhost"}).status_code == 200
    assert strict.get("/_dash-layout", headers={"Host": "localhost"}).status_code == 200

    anything = _signed_client(RequestChecks(flask_app, ["*"]))
    assert anything.get("/_dash-layout", headers={"Host": "perfcast.internal:1"}).status_code == 200
    assert anything.post("/_dash-update-component", json=ROUTER_BODY,
                         headers={"Host": "perfcast.internal:1", "Origin": "http://evil.example"}).status_code == 403


def test_a_process_runs_few_requests_at_once_but_sign_ins_wait_on_threads_of_their_own():
    """AtOnce: with its one permit held by a slow request, another request waits for it; a sign-in post does not
    (it waits for a password-check slot of its own, on the threads beyond the permits)."""
    import threading

    from dashboard.request_checks import AtOnce

    entered, go = [], threading.Event()

    def app(environ, start_response):
        entered.append(environ["PATH_INFO"])
        if environ["PATH_INFO"] == "/slow":
            go.wait(60)
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    at_once = AtOnce(app, 1)
    slow = threading.Thread(target=Client(at_once).get, args=("/slow",))
    slow.start()
    while not entered:
        go.wait(0.01)
    assert not at_once.permits.acquire(blocking=False)  # the slow request holds the permit: others wait
    assert Client(at_once).post("/login").status_code == 200 and entered == ["/slow", "/login"]
    go.set()
    slow.join(60)
    assert Client(at_once).get("/").status_code == 200 and at_once.permits.acquire(blocking=False)


# ------------------------------------------------------------------------------------- request bodies
def _in_no_project(perfcast_app):
    """A test client signed in as a new account that is a member of no project (a new single sign-on user)."""
    import os
    import secrets

    from flask.testing import FlaskClient

    from dashboard.access import accounts, database, sessions
    from dashboard.settings import SESSION_COOKIE

    name = f"nobody-{secrets.token_hex(3)}"
    accounts.add_user(name, "correct horse battery")
    session_id = secrets.token_urlsafe(32)
    with database.session() as db:
        sessions.create(db, accounts.find_user(db, name).id, 1, "tests", session_id=session_id)
    client = FlaskClient(perfcast_app.server, use_cookies=True)
    client.set_cookie(SESSION_COOKIE, sessions.cookie_value(session_id, os.environ["PERFCAST_SECRET_KEY"]),
                      domain="localhost")
    return client


def _padded(n: int) -> dict:
    """The router's callback with ``n`` characters more (as a large stored value or an upload would add)."""
    return {**ROUTER_BODY, "padding": "x" * n}


def test_a_callback_body_is_limited_by_who_sends_it_before_it_is_parsed(perfcast_app, monkeypatch):
    """An account in no project cannot make a worker parse megabytes (before: a 60-70 MB body was parsed, 6 s of
    CPU and +680 MB, then refused); a member's body is limited to one upload's base64 and is refused before it
    is read; the sign-in form takes kilobytes. Each refusal is 413 with a message, not a parse."""
    from flask import Request

    from dashboard.access import body_limit

    parsed = []
    real_get_json = Request.get_json

    def counted(self, *a, **k):
        parsed.append(self.path)
        return real_get_json(self, *a, **k)

    monkeypatch.setattr(Request, "get_json", counted)
    site = {"Host": "localhost", "Origin": "http://localhost"}
    stranger = _in_no_project(perfcast_app)
    r = stranger.post("/_dash-update-component", json=_padded(2 * 2**20), headers=site)
    assert r.status_code == 413 and "ask an owner of a project for an invitation link to it" in r.get_json()["message"]
    assert parsed == []
    assert stranger.post("/_dash-update-component", json=ROUTER_BODY, headers=site).status_code == 200
    # a body of undeclared size (chunked) stops at the same limit while it is read
    big = json.dumps(_padded(2 * 2**20)).encode()
    r = stranger.post("/_dash-update-component", input_stream=io.BytesIO(big), content_type="application/json",
                      headers=site, environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 413 and "1 MB" in r.get_json()["message"]

    member = _client(perfcast_app)
    parsed.clear()
    r = member.post("/_dash-update-component", json=_padded(2 * 2**20), headers=site)
    assert r.status_code == 200 and parsed  # a member's large callback (an upload) is read
    parsed.clear()
    over = body_limit.member_bytes() + 1  # declared, not sent: refused before a byte is read
    r = member.post("/_dash-update-component", data=b"{}", content_type="application/json", headers=site,
                    environ_overrides={"CONTENT_LENGTH": str(over)})
    assert r.status_code == 413 and "Upload a smaller file" in r.get_json()["message"] and parsed == []
    r = _client(perfcast_app).post("/login", data={"name": "x", "password": "y" * (100 * 1024)}, headers=site)
    assert r.status_code == 413


def test_the_member_limit_fits_the_largest_upload():
    """One file of the upload limit, as the base64 data URL dcc.Upload sends, fits a member's body limit."""
    from dashboard.access import body_limit
    from dashboard.settings import MAX_UPLOAD_BYTES

    url = "data:application/vnd.apache.parquet;base64," + "A" * (4 * -(-MAX_UPLOAD_BYTES // 3))
    body = json.dumps({**ROUTER_BODY, "inputs": [{"id": "data-upload", "property": "contents", "value": url}]})
    assert len(body) <= body_limit.member_bytes() < len(body) + 2 * 2**20


# ------------------------------------------------------------------------------------- a live gunicorn
@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """This module's server writes its access log to a file of its own (PERFCAST_ACCESS_LOG)."""
    var = tmp_path_factory.mktemp("server-var")
    with gunicorn_server(var, PERFCAST_ACCESS_LOG=str(var.parent / "access.log")) as server:
        yield server


def _save_dataset(client) -> str:
    csv = "workload,application,a,b,t\n" + "".join(f"w{i},app{i % 3},{i},{i * i % 7},{1 + i}\n" for i in range(12))
    out = client.call("data-upload-status.children", {
        ("data-upload", "contents"): "data:text/csv;base64," + base64.b64encode(csv.encode()).decode(),
        ("data-upload", "filename"): "audit.csv"})
    token = out["data-token"]["data"]
    saved = client.call("data-save-status.children", {
        ("data-save", "n_clicks"): 1, ("data-token", "data"): token, ("data-name", "value"): "audit me",
        ("data-id-col", "value"): "workload", ("data-group-col", "value"): "application",
        ("data-targets", "value"): ["t"], ("data-missing", "value"): "rows",
        ("data-form-project", "data"): client.layout_value("data-form-project")})
    return re.search(r"ds-[0-9a-f]{16}", str(saved["data-save-status"]["children"])).group(0)


def _delete(client, ds_id, headers):
    """The delete callback's POST, as the page sends it after the confirmation, with ``headers``."""
    spec = next(s for s, d in client.deps.items() if "data-datasets.children@" in s
                and d["inputs"][0]["id"] == "data-confirm-delete")
    body = client._body(client.deps[spec], {("data-confirm-delete", "submit_n_clicks"): 1,
                                            ("data-delete-id", "data"): ds_id})
    # with the signed-in user's cookie (a forged request from another site would carry it), only ``headers``
    return requests.post(f"{client.base}/_dash-update-component?endId={client.end_id}", json=body,
                         headers=headers, cookies=client.http.cookies, timeout=60)


def test_a_forged_delete_from_another_origin_is_refused_and_logged(server_state):
    base, _var, log = server_state
    site = {"Origin": base}
    client = DashClient(base)
    client.http.headers.update(site)  # the page's own requests: same-origin, with Origin as browsers send it
    client.open("/data")
    ds_id = _save_dataset(client)
    assert datasets.dataset_meta(ds_id)["name"] == "audit me"

    for forged in ({"Origin": "http://evil.example"}, {"Referer": "http://evil.example/cats.html"},
                   {"Origin": "null"}):
        r = _delete(client, ds_id, forged)
        assert r.status_code == 403 and r.text == REFUSED_ORIGIN, forged
        assert datasets.dataset_meta(ds_id)["id"] == ds_id  # still there
    r = requests.get(f"{base}/data", headers={"Host": "evil.example"}, timeout=30)
    assert r.status_code == 400 and r.text == REFUSED_HOST

    r = _delete(client, ds_id, {**site, "Referer": f"{base}/data"})
    assert r.status_code == 200 and ds_id not in r.text
    with pytest.raises(files.NotFound):
        datasets.dataset_meta(ds_id)

    text = log.read_text()
    assert re.search(rf"audit: dataset saved from=127\.0\.0\.1 dataset={ds_id} rows=12 name=audit\?me", text)
    assert re.search(rf"audit: dataset deleted from=127\.0\.0\.1 dataset={ds_id}\b", text)
    assert len(re.findall(rf"audit: dataset deleted .*{ds_id}", text)) == 1
    assert "audit: refused origin from=127.0.0.1 origin=http://evil.example site=" + base in text
    # the same client's next refused origins in the minute (the Referer, "null") are counted, not written apiece
    assert "audit: refused origin from=127.0.0.1 origin=null" not in text
    assert "audit: refused host from=127.0.0.1 host=evil.example method=GET path=/data" in text


def test_the_server_writes_an_access_log(server_state):
    base, var, log = server_state
    DashClient(base).open("/logca")
    access = (var.parent / "access.log").read_text().splitlines()
    assert any(line.startswith("127.0.0.1 ") and '"GET /logca HTTP/1.1" 200' in line for line in access), access[-5:]
    assert any(line.startswith("127.0.0.1 ") and '"POST /_dash-update-component' in line for line in access)
    assert "GET /logca" not in log.read_text()  # the access log went to its own file, not to stderr


def test_a_job_run_and_a_saved_scenario_are_in_the_log_with_the_address(server_state):
    from dashboard.crossgen.kinds import SCENARIO

    base, _var, log = server_state
    client = DashClient(base)
    client.http.headers["Origin"] = base
    client.open("/scenario")
    pending = {**SCENARIO.request({"target": "GTX-970", "preset": "rastsim", "folds": "5"}), "attempt": 1,
               "cancels": 0}

    def watchdog():
        client.call("scenario-failed.data", {("scenario-watchdog", "n_intervals"): 1,
                                             ("scenario-pending", "data"): pending})
    done = client.run_background("scenario-job-result.data", {("scenario-pending", "data"): pending},
                                 poll=0.3, limit=300, tick=watchdog)
    assert done["scenario-job-result"]["data"] == {"key": pending["key"]}
    saved = client.call("scenario-save-status.children", {("scenario-save", "n_clicks"): 1,
                                                          ("scenario-ready", "data"): {"key": pending["key"]},
                                                          ("scenario-save-name", "value"): "audit"})
    sc_id = re.search(r"sc-[0-9a-f]{16}", str(saved["scenario-save-status"]["children"])).group(0)
    text = log.read_text()
    assert f"audit: job run from=127.0.0.1 key={pending['key']} kind=scenario" in text
    assert f"audit: scenario saved from=127.0.0.1 scenario={sc_id} page=scenario" in text


def test_an_audit_line_cannot_be_forged_by_a_name(caplog):
    from dashboard import audit_log

    with caplog.at_level(logging.INFO, logger="perfcast.audit"):
        forged = "x\n2026 audit: dataset deleted from=1.2.3.4 " + "y" * 300
        audit_log.record("dataset saved", dataset="ds-0", name=forged)
    assert caplog.messages[-1].startswith("audit: dataset saved from=- dataset=ds-0 name=x?2026?audit:?dataset?deleted")
    assert "\n" not in caplog.messages[-1] and len(caplog.messages[-1]) < 300
