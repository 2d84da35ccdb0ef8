"""/scenario's Download report: the file a design review gets opens in a browser with no server and draws the
leaderboard's charts; its numbers are the result's."""

import re
import time

from selenium.webdriver.support.ui import WebDriverWait

from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.ui.url_state import to_query
from pc_browser import fresh_browser, present, start


def test_the_scenario_report_opens_offline_with_its_charts(dash_duo, perfcast_app, tmp_path):
    params = SCENARIO.request({"target": "GTX-970", "transform": "logratio"})["params"]
    _, res = cached(SCENARIO, params)
    start(dash_duo, perfcast_app, f"/scenario{to_query(params)}")
    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    present(dash_duo.driver, "#scenario-download-report", 60)[0].click()
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob("perfcast_scenario_*.html")):
        time.sleep(0.2)
    text = next(tmp_path.glob("perfcast_scenario_*.html")).read_text()
    best, e_best = res.best.model, res.best.e_out
    assert f"{best}: {e_best:.2f} %" in text and "Leaderboard" in text and "code version" in text
    assert "GTX-970" in text and "fit s (summed over folds)" in text
    markup = re.sub(r"<script>.*?</script>", "", text, count=1, flags=re.S)  # all but the inlined plotly.js
    assert not re.search(r"""(src|href)=['"]?(https?:)?//(?!127\.0\.0\.1|localhost)""", markup)
    report = next(tmp_path.glob("perfcast_scenario_*.html"))
    offline = fresh_browser(signed_in=False)
    try:
        offline.get(report.as_uri())
        WebDriverWait(offline, 30).until(lambda d: d.find_elements("css selector", "#chart-0 .scatterlayer .trace")
                                         and d.find_elements("css selector", "#chart-1 .scatterlayer .trace"))
    finally:
        offline.quit()
