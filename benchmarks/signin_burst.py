"""A stranger's burst of wrong sign-ins against a member at work (QUALITY.md, "Access"; not a test).

Starts ``gunicorn -c gunicorn.conf.py`` (2 workers, ``--threads`` threads each, default the project's) on
loopback with the real argon2 cost and the server's own sign-in settings, behind a "proxy"
(``PERFCAST_TRUSTED_PROXIES=127.0.0.1``: the stranger's address is the ``X-Forwarded-For`` it sends, so it can
rotate addresses). A member signs in once (their browser keeps the
device cookie), then:

1. **quiet**: the member opens a view (the home page as the browser does: page, layout, callback graph, router)
   over and over for ``--quiet`` seconds, and signs in again every 2 s;
2. **one address**: ``--guesses`` wrong sign-ins from one address by ``--stranger-threads`` threads, half for
   the member's own name and half for names that do not exist, while the member keeps opening the view and
   signs in again every 2 s from the same browser;
3. **rotating**: the same from a new address per guess (the member's browser is the same throughout);
4. **rotating, new browser**: the same again, but every 2 s the member signs in from a *new browser* (no device
   cookie) at the place they signed in from before (their own address), as after clearing cookies or on a
   second browser at their desk;
5. **rotating, new browser at a new place** (``--new-place``): the same, every sign-in from a new browser at an
   address the account never used: throttled with everyone else's failures for the account by design
   (docs/access.md), measured to show what such a member meets.

Prints JSON: per phase the member's view p50/p95 and their ratio to the quiet phase, the member's sign-ins
(all must be 303), and the stranger's answers by status. Loops are bounded by count and time.

    .venv/bin/python benchmarks/signin_burst.py --guesses 1000 --json
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.load import _free_port, _gunicorn, _pct, _stop_group, _wait_up  # noqa: E402


def _member_loop(base, member, client, stop, views, signins, browser="same"):
    """``browser``: ``same`` (the member's browser with its device cookie), ``new`` (a new browser at the
    member's own address) or ``new-place`` (a new browser at a new address each time)."""
    import requests

    from testkit.signin import sign_in

    next_signin = time.monotonic() + 2
    places = iter(range(1, 10**6))
    while not stop.is_set():
        t = time.perf_counter()
        try:
            client.open("/")
            views.append(time.perf_counter() - t)
        except Exception as e:  # noqa: BLE001 (a refused view is a figure, not a crash)
            views.append(float("inf"))
            print("member view failed:", e, file=sys.stderr)
        if signins is not None and time.monotonic() >= next_signin:
            next_signin = time.monotonic() + 2
            t = time.perf_counter()
            http = client.http if browser == "same" else requests.Session()
            i = next(places)
            headers = {"X-Forwarded-For": f"10.250.{i >> 8 & 255}.{i & 255}"} if browser == "new-place" else {}
            try:
                r = http.post(base + "/login", data={"name": member.name, "password": member.password,
                                                     "next": "/"}, headers=headers, allow_redirects=False,
                              timeout=60)
                status = r.status_code
            except requests.RequestException:
                status = 0  # no answer within 60 s
            signins.append((status, time.perf_counter() - t))
            if browser != "same":  # the new browser signs out (the account keeps a bounded number of sessions)
                if status == 303:
                    http.post(base + "/logout", allow_redirects=False, timeout=60)
                continue
            if status == 303:
                continue
            try:
                sign_in(client.http, base, member)
            except (RuntimeError, requests.RequestException):
                pass


def _stranger(base, member_name, guesses, threads, rotate):
    import requests

    answers: Counter = Counter()
    lock = threading.Lock()
    todo = iter(range(guesses))

    def work():
        http = requests.Session()
        while True:
            with lock:
                i = next(todo, None)
            if i is None:
                return
            address = f"10.{66 + (i >> 16) % 100}.{(i >> 8) & 255}.{i & 255}" if rotate else "10.66.0.1"
            name = member_name if i % 2 == 0 else f"nobody-{random.randrange(10**9)}"
            try:
                r = http.post(base + "/login", data={"name": name, "password": "wrong password 123"},
                              headers={"X-Forwarded-For": address}, allow_redirects=False, timeout=120)
                status = r.status_code
            except requests.RequestException:
                status = 0
            with lock:
                answers[status] += 1

    pool = [threading.Thread(target=work) for _ in range(threads)]
    t0 = time.perf_counter()
    for t in pool:
        t.start()
    for t in pool:
        t.join(900)
    return dict(sorted(answers.items())), time.perf_counter() - t0


def _phase(base, member, client, seconds=None, burst=None, browser="same"):
    stop, views, signins = threading.Event(), [], []
    loop = threading.Thread(target=_member_loop, args=(base, member, client, stop, views, signins, browser))
    loop.start()
    out = {}
    if burst is None:
        time.sleep(seconds)
    else:
        answers, wall = _stranger(base, member.name, **burst)
        out.update(stranger_answers=answers, stranger_seconds=round(wall, 1))
    stop.set()
    loop.join(120)
    finite = [v for v in views if v != float("inf")]
    out.update(views=len(views), failed_views=len(views) - len(finite),
               view_p50_s=round(_pct(finite, 50), 3) if finite else None,
               view_p95_s=round(_pct(finite, 95), 3) if finite else None)
    if signins is not None:
        out["member_signins"] = dict(Counter(s for s, _ in signins))
        out["member_signin_p95_s"] = round(_pct([t for _, t in signins], 95), 3) if signins else None
        out["member_signins_accepted"] = (f"{sum(s == 303 for s, _ in signins)} of {len(signins)}"
                                          if signins else None)
    return out


def run(guesses=1000, stranger_threads=16, quiet=10.0, threads=None, new_place=False) -> dict:
    var = tempfile.mkdtemp(prefix="perfcast-signin-burst-")
    env = {**os.environ, "PERFCAST_VAR_DIR": var, "PERFCAST_TRUSTED_PROXIES": "127.0.0.1"}
    env.pop("PERFCAST_REDIS_URL", None)
    env.pop("PERFCAST_ARGON2_PROFILE", None)  # the real cost
    env.pop("PERFCAST_LOGIN_FAILURE_DELAY", None)
    from testkit.signin import create_account

    member = create_account(env)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = _gunicorn(port, env, threads)
    if threads is None:
        from dashboard.settings import WEB_THREADS as threads
    out: dict = {"server": f"gunicorn -c gunicorn.conf.py: 2 workers x {threads} threads (loopback), real argon2 "
                           "cost, default sign-in settings", "guesses": guesses, "stranger_threads": stranger_threads}
    try:
        _wait_up(base, 300)  # a busy machine may take minutes to start 2 workers
        from testkit.dash_client import DashClient

        client = DashClient(base, account=member)  # signs in: this browser now holds the device cookie
        assert any(c.name == "perfcast_device" for c in client.http.cookies), "no device cookie after sign-in"
        out["quiet"] = _phase(base, member, client, seconds=quiet)
        phases = [("one_address", False, "same"), ("rotating_addresses", True, "same"),
                  ("rotating_addresses_new_browser", True, "new")]
        if new_place:
            phases.append(("rotating_addresses_new_browser_new_place", True, "new-place"))
        for name, rotate, browser in phases:
            out[name] = _phase(base, member, client, burst={"guesses": guesses, "threads": stranger_threads,
                                                    "rotate": rotate}, browser=browser)
            q = out["quiet"]["view_p95_s"]
            if q and out[name]["view_p95_s"]:
                out[name]["view_p95_ratio_to_quiet"] = round(out[name]["view_p95_s"] / q, 2)
    finally:
        _stop_group(server)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--guesses", type=int, default=1000)
    ap.add_argument("--stranger-threads", type=int, default=16)
    ap.add_argument("--quiet", type=float, default=10.0)
    ap.add_argument("--threads", type=int, default=None, help="web threads per worker (default: the project's)")
    ap.add_argument("--new-place", action="store_true",
                    help="also measure a member's new browser at a new address during the rotating burst")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = run(a.guesses, a.stranger_threads, a.quiet, a.threads, a.new_place)
    print(json.dumps(out, indent=None if a.json else 2))


if __name__ == "__main__":
    main()
