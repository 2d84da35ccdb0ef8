"""Round trips from Run to the first chart, counted in Chromium's network log: on a cached result, Run's own
answer carries the result's key, and the page's views come in the next round trip (two in all; four before:
Run, the lookup, the ready store, then the views)."""

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.support.ui import WebDriverWait

from benchmarks.browser_view import _callback_bodies
from pc_browser import present, text_in
from tests.signed_in import sign_in_browser

VIEWS = ("scenario-summary.children", "scenario-workload-graph.figure", "scenario-ir-graph.figure",
         "scenario-steps-grid.rowData")


def _logging_browser():
    o = Options()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(options=o)
    driver.execute_cdp_cmd("Network.enable", {})
    sign_in_browser(driver)
    return driver


def test_run_on_a_cached_result_draws_in_two_round_trips(dash_duo, perfcast_app):
    from dashboard.crossgen.kinds import SCENARIO, cached

    cached(SCENARIO, SCENARIO.request({})["params"])  # the form's defaults: Run finds them in the cache
    dash_duo.start_server(perfcast_app)
    driver = _logging_browser()
    try:
        driver.get(dash_duo.server_url + "/scenario")  # no link: nothing drawn until Run
        present(driver, "#scenario-run")
        WebDriverWait(driver, 30).until(lambda d: "?" in (d.find_element("id", "scenario-share")
                                                          .get_attribute("value") or ""))  # the page has settled
        driver.get_log("performance")  # what the page load sent: not counted
        present(driver, "#scenario-run")[0].click()
        assert text_in(driver, "#scenario-best-eout", 60).endswith("%")
        sent = _callback_bodies(driver.get_log("performance"))
    finally:
        driver.quit()

    def triggered_by(body):
        return {i["id"] for i in body["inputs"] if isinstance(i, dict) and isinstance(i.get("id"), str)}

    outputs = [b["output"] for b in sent]
    # round trip 1: Run, which answers with the ready store (no lookup or ready hop in between)
    assert "scenario-run" in triggered_by(sent[0]) and "scenario-ready.data" in outputs[0], outputs
    # round trip 2: every other request is one that the ready store triggers, the views among them
    assert all("scenario-ready" in triggered_by(b) for b in sent[1:]), outputs
    assert {v for v in VIEWS for out in outputs[1:] if v in out} == set(VIEWS), outputs
