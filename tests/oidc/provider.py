"""The real OpenID Connect provider of the sign-in tests: panva's certified ``oidc-provider`` (npm, pinned in
package.json / package-lock.json beside this file; ./test.sh runs ``npm ci`` here) run by provider.js on a
free loopback port, and helpers that drive its development sign-in form over plain HTTP."""

from __future__ import annotations

import contextlib
import html
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urljoin

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Provider:
    issuer: str
    client_id: str
    client_secret: str
    log: Path

    def env(self) -> dict:
        """The perfcast server's settings for this provider."""
        return {"PERFCAST_OIDC_ISSUER": self.issuer, "PERFCAST_OIDC_CLIENT_ID": self.client_id,
                "PERFCAST_OIDC_CLIENT_SECRET": self.client_secret, "PERFCAST_OIDC_NAME": "Test IdP"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_installed() -> None:
    """node_modules from the lock file (./test.sh does this; here for a test run on its own)."""
    assert shutil.which("node") and shutil.which("npm"), "node and npm are needed (Debian: apt-get install nodejs npm)"
    if not (HERE / "node_modules" / "oidc-provider" / "package.json").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True, capture_output=True)


@contextlib.contextmanager
def running(site: str, log: Path):
    """The provider, with one client whose redirect URI is ``site/oidc/callback`` and whose post-logout
    redirect URI is ``site/login``; stopped (by its PID) at the end, its port closed."""
    ensure_installed()
    port = free_port()
    client_id, client_secret = "perfcast-test", secrets.token_urlsafe(24)
    with open(log, "w") as fh:
        proc = subprocess.Popen(["node", str(HERE / "provider.js"), str(port), client_id, client_secret,
                                 f"{site}/oidc/callback", f"{site}/login"], cwd=HERE, stdout=fh,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 30
        while "ready http" not in log.read_text():
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("the OpenID Connect provider did not start:\n" + log.read_text())
            time.sleep(0.05)
        yield Provider(f"http://127.0.0.1:{port}", client_id, client_secret, log)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        deadline = time.time() + 10
        while time.time() < deadline:  # the port closed
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) != 0:
                    break
            time.sleep(0.05)


def sign_in_at_provider(http, start_url: str, stop_prefix: str, login: str, timeout: float = 30) -> str:
    """Follow ``start_url`` (perfcast's /oidc/login) through the provider's sign-in form as ``login`` with the
    ``requests`` session ``http``, and return the first redirect to ``stop_prefix`` (perfcast's callback URL
    with code and state), without following it."""
    url = start_url
    for _ in range(20):
        if url.startswith(stop_prefix):
            return url
        r = http.get(url, allow_redirects=False, timeout=timeout)
        if r.status_code in (302, 303):
            url = urljoin(url, r.headers["Location"])
            continue
        m = re.search(r'<form[^>]*action="([^"]+)"', r.text)
        assert r.status_code == 200 and m and 'name="login"' in r.text, (r.status_code, r.text[:500])
        r = http.post(urljoin(url, html.unescape(m.group(1))), allow_redirects=False, timeout=timeout,
                      data={"prompt": "login", "login": login, "password": "any"})
        assert r.status_code in (302, 303), (r.status_code, r.text[:500])
        url = urljoin(url, r.headers["Location"])
    raise AssertionError(f"no redirect to {stop_prefix}: at {url}")
