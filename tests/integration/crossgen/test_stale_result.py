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


def test_a_first_run_says_no_previous_result_and_changed_inputs_mark_the_result(dash_duo, perfcast_app):
    """With nothing on screen, a running job's line does not speak of a previous run's result; once a result is
    shown, changing an input marks it as computed for other inputs until Run draws the new one."""
    params = SCENARIO.request({**save_long_job_dataset(2000), "folds": "2", "seed": "31"})["params"]
    start(dash_duo, perfcast_app, f"/scenario{to_query(params)}")  # a link not computed yet: its job starts
    dash_duo.wait_for_contains_text("#scenario-stale", "the result appears below when this run finishes",
                                    timeout=30)
    assert "previous run" not in dash_duo.find_element("#scenario-stale").text
    wait_text(dash_duo, "#scenario-best-eout", timeout=120)
    assert not dash_duo.driver.find_elements("css selector", "#scenario-changed .alert")

    seed = dash_duo.find_element("#scenario-seed")
    seed.clear()
    seed.send_keys("32")
    dash_duo.wait_for_contains_text("#scenario-changed", "Computed for other inputs", timeout=20)
    seed.clear()
    seed.send_keys("31")  # back to the inputs of the result on screen: the mark goes
    WebDriverWait(dash_duo.driver, 20).until(
        lambda d: not d.find_elements("css selector", "#scenario-changed .alert"))
