"""Round trips from Run to the first chart, counted in Chromium's network log: on a cached result, Run's own
answer carries every view of the page (one round trip; four before: Run, the lookup, the ready store, then the
views; two with the ready store in Run's answer)."""

import json
import time

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.support.ui import WebDriverWait

from pc_browser import present, text_in
from tests.signed_in import sign_in_browser

VIEWS = ("scenario-summary.children", "scenario-workload-graph.figure", "scenario-ir-graph.figure",
         "scenario-steps-grid.rowData")


def _callbacks(entries: list) -> list[dict]:
    """The callback requests in Chromium's performance log, in order: their bodies, with the answer's status."""
    bodies, status = [], {}
    for entry in entries:
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message.get("method") == "Network.requestWillBeSent":
            request = params["request"]
            if "/_dash-update-component" in request["url"] and request.get("postData"):
                bodies.append((params["requestId"], json.loads(request["postData"])))
        elif message.get("method") == "Network.responseReceived":
            status[params["requestId"]] = params["response"]["status"]
    return [{**body, "status": status.get(rid)} for rid, body in bodies]


def _logging_browser():
    o = Options()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=o)
    driver.execute_cdp_cmd("Network.enable", {})
    sign_in_browser(driver)
    return driver


def _scenario_page(driver, base: str) -> None:
    """/scenario without a link (nothing drawn until Run), settled: its share link carries the form."""
    driver.get(base + "/scenario")
    present(driver, "#scenario-run")
    WebDriverWait(driver, 30).until(lambda d: "?" in (d.find_element("id", "scenario-share")
                                                      .get_attribute("value") or ""))


def _run_and_record(driver, wait: float) -> list[dict]:
    """Click Run, wait for the first numbers and for the callbacks after them; the requests since the click."""
    driver.get_log("performance")  # what came before: not counted
    present(driver, "#scenario-run")[0].click()
    assert text_in(driver, "#scenario-best-eout", wait).endswith("%")
    entries = []

    def settled(_):
        """Every callback sent so far has its answer, those the ready store triggers included."""
        entries.extend(driver.get_log("performance"))
        sent = _callbacks(entries)
        by_ready = any("scenario-ready" in _triggered_by(b) for b in sent)
        return sent if by_ready and all(b["status"] is not None for b in sent) else False

    return WebDriverWait(driver, 60, poll_frequency=0.1).until(settled)


def _triggered_by(body) -> set:
    return {i["id"] for i in body["inputs"] if isinstance(i, dict) and isinstance(i.get("id"), str)}


def test_run_on_a_cached_result_draws_in_one_round_trip(dash_duo, perfcast_app):
    from dashboard.crossgen.kinds import SCENARIO, cached

    cached(SCENARIO, SCENARIO.request({})["params"])  # the form's defaults: Run finds them in the cache
    dash_duo.start_server(perfcast_app)
    driver = _logging_browser()
    try:
        _scenario_page(driver, dash_duo.server_url)
        sent = _run_and_record(driver, 60)
    finally:
        driver.quit()

    outputs = [b["output"] for b in sent]
    # round trip 1: Run, whose answer carries the ready store and every view (no lookup or ready hop)
    assert "scenario-run" in _triggered_by(sent[0]) and "scenario-ready.data" in outputs[0], outputs
    assert all(v in outputs[0] for v in VIEWS), outputs[0]
    # the page's own view callbacks, triggered by that ready store, answer nothing (no update: 204)
    later = [b for b in sent[1:] if any(v in b["output"] for v in VIEWS)]
    assert all("scenario-ready" in _triggered_by(b) for b in later), outputs
    assert all(b.get("status") == 204 for b in later), [(b["output"][:60], b.get("status")) for b in later]


def test_run_on_a_new_result_draws_in_two_round_trips(dash_duo, perfcast_app):
    """Not cached: Run starts the job, and the job's own answer (its start and polls are one background
    callback) carries every view; the ready store that follows draws nothing again."""
    from selenium.webdriver.common.keys import Keys

    dash_duo.start_server(perfcast_app)
    driver = _logging_browser()
    try:
        _scenario_page(driver, dash_duo.server_url)
        seed = driver.find_element("id", "scenario-seed")
        seed.send_keys(Keys.CONTROL, "a")
        new_seed = str(1000 + time.time_ns() % 10**6)
        seed.send_keys(new_seed, Keys.TAB)  # a seed nobody ran: not cached
        WebDriverWait(driver, 30).until(lambda d: f"seed={new_seed}" in (d.find_element("id", "scenario-share")
                                                                          .get_attribute("value") or ""))
        sent = _run_and_record(driver, 180)
    finally:
        driver.quit()

    outputs = [b["output"] for b in sent]
    assert "scenario-run" in _triggered_by(sent[0]) and "scenario-pending.data" in outputs[0], outputs
    job = [b for b in sent if "scenario-job-result.data" in b["output"]]
    assert job and all(all(v in b["output"] for v in VIEWS) for b in job), outputs
    by_ready = [b for b in sent if "scenario-ready" in _triggered_by(b) and any(v in b["output"] for v in VIEWS)]
    assert by_ready and all(b.get("status") == 204 for b in by_ready), \
        [(b["output"][:60], b.get("status")) for b in by_ready]
    # nothing else drew a view: Run, the job, and the skipped ones
    assert all(b is sent[0] or b in job or b in by_ready for b in sent if any(v in b["output"] for v in VIEWS))
