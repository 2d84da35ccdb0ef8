"""The benchmarks and the browser tests sign in as a person does: an account in the server's database, then
``POST /login``.

:func:`create_account` adds a throwaway account (random password) to the database a server started with
``env`` uses (``PERFCAST_DATABASE_URL``, else ``PERFCAST_VAR_DIR/perfcast.db``); :class:`DashClient` signs in
with :data:`DEFAULT_ACCOUNT` unless given another (the test suite sets it to its own account).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass


@dataclass(frozen=True)
class Account:
    name: str
    password: str


#: the account a DashClient signs in with when it is given none (None: it does not sign in)
DEFAULT_ACCOUNT: Account | None = None


def create_account(env: dict, name: str | None = None) -> Account:
    """A new account in the database of a server started with environment ``env``, owner of the project
    ``default`` (:func:`work_in_project` makes the benchmark process compute there too)."""
    from dashboard.access import accounts, database
    from dashboard.settings import database_url

    url = database_url(env)
    database.migrate(url)
    account = Account(name or f"bench-{secrets.token_hex(4)}", secrets.token_urlsafe(18))
    accounts.add_user(account.name, account.password, "benchmark", url=url)
    project_id(env)
    accounts.set_member(accounts.DEFAULT_PROJECT, account.name, "owner", url=url)
    return account


def project_id(env: dict) -> int:
    """The id of the benchmark accounts' project (``default``, created when missing)."""
    from dashboard.access import accounts, database
    from dashboard.settings import database_url

    url = database_url(env)
    database.migrate(url)
    with database.locked(url), database.session(url) as db:
        return accounts.ensure_project(db, accounts.DEFAULT_PROJECT).id


def work_in_project(env: dict) -> int:
    """For the rest of this benchmark process, work in the accounts' project: results it computes beforehand
    are then the ones its signed-in users find in the cache. Returns the project's id."""
    from dashboard.access import projects

    pid = project_id(env)
    scope = projects.scope(pid)
    scope.__enter__()  # left open for the rest of the process (kept referenced: collecting it would close it)
    _OPEN_SCOPES.append(scope)
    return pid


_OPEN_SCOPES: list = []


def sign_in(http, base: str, account: Account, timeout: float = 60.0) -> None:
    """Sign ``http`` (a requests session) in at ``base``; raises when the server does not accept it."""
    r = http.post(base.rstrip("/") + "/login", data={"name": account.name, "password": account.password,
                                                     "next": "/"}, allow_redirects=False, timeout=timeout)
    if r.status_code != 303:
        raise RuntimeError(f"sign-in as {account.name} refused: HTTP {r.status_code}")


def session_cookie(base: str, account: Account) -> tuple[str, str]:
    """Sign in at ``base`` and return the session cookie's name and value (for a browser that should start
    signed in without loading the sign-in page, e.g. to measure a first visit)."""
    import requests

    http = requests.Session()
    sign_in(http, base, account)
    (cookie,) = [c for c in http.cookies if c.name.endswith("session")]
    return cookie.name, cookie.value


def set_browser_cookie(driver, base: str, cookie: tuple[str, str]) -> None:
    """Give a Chromium driver the session cookie of ``base`` before it opens anything (DevTools protocol)."""
    driver.execute_cdp_cmd("Network.setCookie", {"name": cookie[0], "value": cookie[1], "url": base.rstrip("/") + "/",
                                                 "path": "/", "httpOnly": True, "sameSite": "Lax"})


def sign_in_browser(driver, base: str, account: Account) -> None:
    """Sign a Selenium driver in through the sign-in form."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(base.rstrip("/") + "/login")
    driver.find_element("id", "signin-name").send_keys(account.name)
    driver.find_element("id", "signin-password").send_keys(account.password)
    driver.find_element("id", "signin-submit").click()
    WebDriverWait(driver, 30).until(lambda d: "/login" not in d.current_url)
