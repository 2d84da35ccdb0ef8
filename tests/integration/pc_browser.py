"""Shared helpers of the browser tests (dash_duo, headless Chromium)."""

import os
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.support.ui import WebDriverWait

SHOTS = Path(os.environ.get("PERFCAST_SCREENSHOT_DIR", Path(__file__).resolve().parents[2] / "screenshots"))


def start(dash_duo, app, path="/"):
    dash_duo.driver.set_window_size(1280, 800)
    dash_duo.start_server(app)
    if path != "/":
        dash_duo.driver.get(dash_duo.server_url + path)
    return dash_duo


def wait_text(dash_duo, selector, timeout=60):
    """Wait until ``selector`` has non-empty text in the dash_duo browser; returns it."""
    return text_in(dash_duo.driver, selector, timeout)


def share_link(dash_duo, prefix, timeout=20, containing="?"):
    """The page's share link once it holds ``containing`` (a link drawn before the page caught up with the
    last change is waited past, not returned)."""
    def link(_):
        v = dash_duo.driver.find_element("id", f"{prefix}-share").get_attribute("value")
        return v if v and "?" in v and containing in v else False
    return WebDriverWait(dash_duo.driver, timeout).until(link)


def fresh_browser(signed_in=True):
    """A second, separate headless Chromium: the colleague who opens a shared link (signed in as the test
    session's user, tests/signed_in.py, unless ``signed_in=False``)."""
    from tests.signed_in import sign_in_browser

    o = Options()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        o.add_argument(a)
    driver = webdriver.Chrome(options=o)
    if signed_in:
        sign_in_browser(driver)
    return driver


def replaced(e: WebDriverException) -> bool:
    """Whether ``e`` says the element was re-rendered between finding it and using it. Chromedriver reports
    that as a stale reference, or (when the node goes while it is being read) as an "unknown error" that the
    node "does not belong to the document"; either way the caller should look again."""
    return isinstance(e, StaleElementReferenceException) or "does not belong to the document" in str(e.msg)


def text_in(driver, selector, timeout=30):
    def has(_):
        try:
            els = driver.find_elements("css selector", selector)
            return els[0].text.strip() if els and els[0].text.strip() else False
        except WebDriverException as e:
            if replaced(e):
                return False
            raise
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(has)


def text_with(driver, selector, words, timeout=120):
    """The text of ``selector`` once it contains ``words`` (the page says what happened; the deadline is
    generous, for a loaded machine)."""
    def has(_):
        try:
            els = driver.find_elements("css selector", selector)
            return els[0].text if els and words in els[0].text else False
        except WebDriverException as e:
            if replaced(e):
                return False
            raise
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(has)


def until(driver, cond, timeout=120):
    """Wait until ``cond()`` is true in ``driver``'s page (a generous deadline: a loaded machine is slow, not
    wrong); returns its value."""
    def check(_):
        try:
            return cond()
        except WebDriverException as e:
            if replaced(e):
                return False
            raise
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(check)


def component_prop(driver, component_id, prop):
    """``prop`` of the Dash component ``component_id`` as the page's renderer holds it (its store), e.g. a
    dcc.Interval's ``n_intervals``: what the page did, read without a DOM element; None when not laid out."""
    return driver.execute_script("""
        const s = window.store && window.store.getState();
        const path = s && s.paths && s.paths.strs[arguments[0]];
        if (!path) return null;
        let node = s.layout;
        for (const k of path) node = node[k];
        return node && node.props ? (node.props[arguments[1]] ?? null) : null;""", component_id, prop)


def callbacks_settled(driver, timeout=120):
    """Wait until the page's renderer has no callback requested, running or waiting to apply (what
    dash.testing's ``wait_for_callbacks`` reads), so that an assertion of absence reads the finished page."""
    def idle(_):
        return driver.execute_script("""
            const s = window.store && window.store.getState();
            if (!s || !s.callbacks) return false;
            const {stored, completed, ...queues} = s.callbacks;
            return Object.values(queues).every(q => !q || q.length === 0);""")
    WebDriverWait(driver, timeout, poll_frequency=0.1).until(idle)


def click_settled(dash_duo, selector, timeout=15):
    """Click once the page has settled (the first render can replace the element under the cursor)."""
    def clicked(_):
        try:
            dash_duo.find_element(selector).click()
            return True
        except WebDriverException as e:
            if replaced(e):
                return False
            raise
    WebDriverWait(dash_duo.driver, timeout).until(clicked)


def _settled_height(driver, timeout=10) -> int:
    """The page's height once two looks 0.1 s apart agree (the layout has stopped growing)."""
    last = []

    def stable(d):
        last.append(d.execute_script("return document.body.scrollHeight"))
        return last[-1] if len(last) > 1 and last[-1] == last[-2] else False
    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(stable)


def screenshot(driver, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    h = max(800, min(_settled_height(driver), 5000))
    driver.set_window_size(1280, h)
    WebDriverWait(driver, 10, poll_frequency=0.05).until(
        lambda d: d.execute_script("return window.outerHeight") == h)
    _settled_height(driver)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))
    driver.set_window_size(1280, 800)


def choose(dash_duo, selector, text, timeout=10):
    """Pick ``text`` in a dcc.Dropdown the way a user does: open, type, click (the option waited for up to
    ``timeout`` seconds: options a callback adds arrive later on a loaded machine)."""
    dash_duo.wait_for_element(selector, timeout=15).click()
    search = dash_duo.wait_for_element(".dash-dropdown-search")
    search.send_keys(text)

    def option(_):
        for o in dash_duo.driver.find_elements("css selector", ".dash-dropdown-option"):
            if o.text == text:
                return o
        return False
    WebDriverWait(dash_duo.driver, timeout).until(option).click()
    dash_duo.wait_for_contains_text(selector, text, timeout=10)


def present(driver, selector, timeout=30):
    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: d.find_elements("css selector", selector) or False)


def download_report(driver, button: str, pattern: str, folder, timeout=60):
    """Click ``button`` (a "Download report" selector) and return the file matching ``pattern`` in ``folder``."""
    driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)})
    present(driver, button, timeout)[0].click()
    deadline = time.time() + timeout
    while time.time() < deadline and not list(folder.glob(pattern)):
        time.sleep(0.2)
    return next(folder.glob(pattern))


def report_opens_offline(report, ready_selectors) -> None:
    """The report's markup names no other host, and a browser that never talked to the server draws every
    selector of ``ready_selectors`` from the file alone."""
    import re

    markup = re.sub(r"<script>.*?</script>", "", report.read_text(), count=1, flags=re.S)  # all but plotly.js
    assert not re.search(r"""(src|href)=['"]?(https?:)?//(?!127\.0\.0\.1|localhost)""", markup)
    offline = fresh_browser(signed_in=False)
    try:
        offline.get(report.as_uri())
        WebDriverWait(offline, 30).until(lambda d: all(d.find_elements("css selector", s) for s in ready_selectors))
    finally:
        offline.quit()
