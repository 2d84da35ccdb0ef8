"""The served app (./run.sh: deploy/front.py, nginx in front of gunicorn) survives slow and idle clients: with
many more connections that trickle their headers or their body than gunicorn has threads, pages still answer,
and each trickling client is closed by the front once its time is up. The app behind the front sees each
client's own address (the forwarded one), not the front's."""

import socket
import threading
import time

import requests

from testkit.servers import front_server


def _trickle(port: int, n: int, body: bool = False, source: str = "127.0.0.2") -> list[socket.socket]:
    """``n`` connections from ``source`` (a loopback address other than the members') that start a request and
    then send one more byte of it now and then."""
    out = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
        if body:
            s.sendall(b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n"
                      b"Content-Type: application/x-www-form-urlencoded\r\n\r\nname=")
        else:
            s.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        out.append(s)
    return out


def _keep_trickling(conns, stop: threading.Event) -> None:
    while not stop.wait(1.0):
        for s in conns:
            try:
                s.sendall(b"a")
            except OSError:
                pass


def _answer(s: socket.socket, deadline: float) -> bytes | None:
    """What the server sent before it ended the connection (b"" for a plain close), or None when it still held
    the connection open at ``deadline``."""
    s.settimeout(max(0.1, deadline - time.time()))
    try:
        return s.recv(64)
    except TimeoutError:
        return None
    except OSError:
        return b""


def test_slow_clients_hold_no_thread_of_the_app_and_are_closed_or_capped(tmp_path):
    env = {"PERFCAST_WORKERS": "1", "PERFCAST_THREADS": "4", "PERFCAST_FRONT_HEADER_SECONDS": "6",
           "PERFCAST_FRONT_CONNECTIONS_PER_CLIENT": "32"}
    with front_server(tmp_path / "var", tmp_path / "front.log", **env) as base:
        port = int(base.rsplit(":", 1)[1])
        heads = _trickle(port, 40)  # 40 clients trickling their headers, 10 times the app's 4 threads
        bodies = _trickle(port, 48, body=True, source="127.0.0.3")  # 48 from one address: 32 allowed at once
        stop = threading.Event()
        dripper = threading.Thread(target=_keep_trickling, args=(heads + bodies, stop), daemon=True)
        dripper.start()
        try:
            for _ in range(5):  # pages answer meanwhile, one after another
                r = requests.get(base + "/login", timeout=60)
                assert r.status_code == 200 and "Sign in" in r.text
            deadline = time.time() + 90
            answers = [_answer(s, deadline) for s in heads]
            assert None not in answers  # every header trickler was ended by the front (408 or closed)
            assert all(a == b"" or a.startswith(b"HTTP/1.1 408") for a in answers), set(answers)
            soon = time.time() + 5  # the refused ones were answered at once; the others are still held
            refused = [a for a in (_answer(s, soon) for s in bodies) if a]
            assert len(refused) == 16 and all(a.startswith(b"HTTP/1.1 429") for a in refused)
            r = requests.get(base + "/login", timeout=60)  # still answering with 32 bodies trickling
            assert r.status_code == 200
        finally:
            stop.set()
            for s in heads + bodies:
                s.close()


def test_a_body_larger_than_the_fronts_memory_buffer_reaches_the_app(tmp_path):
    """nginx keeps a request body over 1 MB in a file of the front's directory (and an answer over its memory
    buffers likewise) before the app sees it. Started as root, nginx's workers would run as ``nobody``, which
    cannot enter the private state directory: every upload over 1 MB was answered 500 by nginx. The app
    answers it instead (here: a signed-out 2 MB post, refused by the app's body limit)."""
    env = {"PERFCAST_WORKERS": "1", "PERFCAST_THREADS": "4"}
    with front_server(tmp_path / "var", tmp_path / "front.log", **env) as base:
        r = requests.post(base + "/login", data=b"name=" + b"a" * (2 * 1024 * 1024), timeout=60,
                          headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": base})
        assert r.status_code == 413 and "nginx" not in r.text, (r.status_code, r.text[:200])


def _oversize_posts(base: str, port: int, n: int) -> list[tuple[str, int, str]]:
    """``n`` rounds of signed-out posts to /login over its 64 KB limit (100 KB, 2 MB, 20 MB): through one kept-alive
    session, each on a new connection, and with ``Expect: 100-continue``; after each a small request on the kept
    connection. Returns (how, status, text) of every answer (status 0: no answer, text: the error)."""
    out = []
    session = requests.Session()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Origin": base}
    for _ in range(n):
        for size in (100_000, 2 * 2**20, 20 * 2**20):
            body = b"name=" + b"a" * size
            for how, send in (("kept", session.post), ("new", requests.post),
                              ("expect", lambda url, **kw: requests.post(
                                  url, **{**kw, "headers": {**kw["headers"], "Expect": "100-continue"}}))):
                try:
                    r = send(base + "/login", data=body, headers=headers, timeout=60)
                    out.append((how, r.status_code, r.text))
                except requests.RequestException as e:
                    out.append((how, 0, repr(e)))
                try:
                    r = session.get(base + "/login", timeout=60)
                    out.append(("after", r.status_code, "Sign in" if "Sign in" in r.text else r.text[:200]))
                except requests.RequestException as e:
                    out.append(("after", 0, repr(e)))
    return out


def _every_oversize_post_told(answers) -> None:
    bad = [a for a in answers if (a[0] != "after" and (a[1] != 413 or "larger than the server accepts" not in a[2]))
           or (a[0] == "after" and (a[1], a[2]) != (200, "Sign in"))]
    assert not bad, (len(bad), len(answers), bad[:5])


def test_every_oversize_body_through_the_front_gets_the_apps_words(tmp_path):
    """The app refuses a body over its sender's limit from its declared size. It used to answer without reading
    the body, and gunicorn then closed the connection the front was still sending the body on: now and then the
    front answered 502 instead of the app's words, on that post (broken pipe) or on the next request over the
    front's kept connection to the app (closed prematurely). Every such post now gets the app's 413 in words,
    and every request after it an answer."""
    env = {"PERFCAST_WORKERS": "1", "PERFCAST_THREADS": "4"}
    with front_server(tmp_path / "var", tmp_path / "front.log", **env) as base:
        _every_oversize_post_told(_oversize_posts(base, int(base.rsplit(":", 1)[1]), 8))


def test_a_body_over_the_fronts_own_limit_gets_the_same_words(tmp_path):
    """A body over every sender's limit is refused by the front itself, before the app sees it: with the app's
    words (JSON, as the app's 413), not nginx's page."""
    env = {"PERFCAST_WORKERS": "1", "PERFCAST_THREADS": "4", "PERFCAST_MAX_UPLOAD_MB": "1"}
    with front_server(tmp_path / "var", tmp_path / "front.log", **env) as base:
        for _ in range(3):
            r = requests.post(base + "/login", data=b"name=" + b"a" * (4 * 2**20), timeout=60,
                              headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": base})
            assert r.status_code == 413 and "nginx" not in r.text, (r.status_code, r.text[:200])
            assert "larger than the server accepts" in r.json()["message"]


def test_every_oversize_body_served_directly_gets_the_apps_words(tmp_path):
    """The same posts with gunicorn serving directly (no front): the same answers."""
    env = {"PERFCAST_WORKERS": "1", "PERFCAST_THREADS": "4", "PERFCAST_FRONT": "0"}
    with front_server(tmp_path / "var", tmp_path / "front.log", **env) as base:
        _every_oversize_post_told(_oversize_posts(base, int(base.rsplit(":", 1)[1]), 8))
