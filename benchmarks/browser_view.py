"""What a browser sends when it opens a page: recorded once from headless Chromium, replayed by scripted users.

The load benchmark's scripted view (``benchmarks/load.py``, mix ``script``) fires the callbacks a test author
chose. A real page sends what the Dash renderer decides: the layout, the callback graph, the router, then
every callback whose inputs are on the page and that runs at load (and those their outputs trigger). Mix
``browser`` records that sequence here, from Chromium's network log, on the server under test, so the replay
sends exactly the requests of a real page load: same callbacks, same bodies, in the order the browser sent
them (one after another: a conservative replay, since the browser sends some at once).

Static files (the JavaScript bundles, CSS) are left out: a browser that opened the page before has them.
"""

from __future__ import annotations

import json
import time


def record(base: str, path: str, cookies: dict, ready_selector: str, settle: float = 2.0,
           timeout: float = 60.0) -> list[dict]:
    """The bodies of the ``/_dash-update-component`` requests Chromium sends when it opens ``base + path``
    with the session ``cookies`` (name -> value), waiting until ``ready_selector`` has text and then until no
    request came for ``settle`` seconds. Raises ``RuntimeError`` when the page does not get ready."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.support.ui import WebDriverWait

    options = Options()
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        for name, value in cookies.items():
            driver.execute_cdp_cmd("Network.setCookie", {"name": name, "value": value, "url": base + "/",
                                                         "path": "/", "httpOnly": True, "sameSite": "Lax"})
        driver.get(base + path)

        def ready(_):
            found = driver.find_elements("css selector", ready_selector)
            return bool(found and found[0].text.strip())
        try:
            WebDriverWait(driver, timeout, poll_frequency=0.1).until(ready)
        except Exception as exc:
            raise RuntimeError(f"{path} did not show {ready_selector} within {timeout:.0f} s") from exc
        bodies: list[dict] = []
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < settle:
            new = _callback_bodies(driver.get_log("performance"))
            if new:
                bodies += new
                quiet_since = time.monotonic()
            time.sleep(0.2)
        return bodies
    finally:
        driver.quit()


def _callback_bodies(entries: list) -> list[dict]:
    out = []
    for entry in entries:
        message = json.loads(entry["message"])["message"]
        if message.get("method") != "Network.requestWillBeSent":
            continue
        request = message["params"]["request"]
        if "/_dash-update-component" in request["url"] and request.get("method") == "POST":
            post = request.get("postData")
            if post:
                out.append(json.loads(post))
    return out
