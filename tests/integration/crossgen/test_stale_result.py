"""Between Run and the new result, the result on screen is the previous settings' one: /scenario dims it, says
so, and holds its downloads (the report button and the grids' CSV exports) until the run ends; Cancel lifts
the mark (the result shown is again simply the one its provenance names)."""

from selenium.webdriver.support.ui import WebDriverWait

from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.ui.url_state import to_query
from long_job import save_long_job_dataset
from pc_browser import start, wait_text


def _settings() -> dict:
    """A run computed into the cache, then the same with 20 folds: a job that runs long enough to be seen and
    cancelled on any machine (tests/integration/long_job.py; the shipped Rodinia one can end first)."""
    return {**save_long_job_dataset(), "folds": "2", "seed": "23"}


def _held(driver) -> list[bool]:
    return driver.execute_script(
        "return [...document.querySelectorAll('[id^=\"scenario-download\"], [id^=\"scenario-\"][id$=\"-csv\"]')]"
        ".map(b => b.disabled);")


def test_the_previous_result_is_marked_out_of_date_and_its_downloads_wait(dash_duo, perfcast_app):
    params = SCENARIO.request(_settings())["params"]
    cached(SCENARIO, params)
    start(dash_duo, perfcast_app, f"/scenario{to_query(params)}")
    wait_text(dash_duo, "#scenario-best-eout", timeout=60)
    driver = dash_duo.driver
    assert _held(driver) and not any(_held(driver))
    assert not driver.find_elements("css selector", "#scenario-stale .stale-note")

    folds = dash_duo.find_element("#scenario-folds")
    folds.clear()
    folds.send_keys("20")
    dash_duo.find_element("#scenario-run").click()
    dash_duo.wait_for_contains_text("#scenario-stale", "Out of date: anything shown below is the previous "
                                    "run's result", timeout=30)
    assert all(_held(driver)) and "pc-stale" in driver.find_element("css selector", "body").get_attribute("class")

    dash_duo.find_element("#scenario-cancel").click()
    dash_duo.wait_for_contains_text("#scenario-job-status", "Cancelled", timeout=15)
    WebDriverWait(driver, 10).until(lambda d: not d.find_elements("css selector", "#scenario-stale .stale-note"))
    assert not any(_held(driver))
    assert "pc-stale" not in driver.find_element("css selector", "body").get_attribute("class")
