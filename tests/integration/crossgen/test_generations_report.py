"""/generations' Download report: opens with no server, its speedup chart drawn, and carries the best model per
target as the result has it, with the note that two targets were scored on different workload sets."""

import re
import time

from selenium.webdriver.support.ui import WebDriverWait

from dashboard.crossgen.kinds import GENERATIONS, cached
from dashboard.ui.url_state import to_query
from pc_browser import fresh_browser, present, start


def test_the_generations_report_opens_offline_with_each_targets_best(dash_duo, perfcast_app, tmp_path):
    params = GENERATIONS.request({"host": "GTX-680", "targets": "GTX-980,GTX-970", "preset": "rastsim",
                                  "transform": "log"})["params"]
    _, res = cached(GENERATIONS, params)
    start(dash_duo, perfcast_app, f"/generations{to_query(params)}")
    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    present(dash_duo.driver, "#generations-download-report", 60)[0].click()
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob("perfcast_generations_*.html")):
        time.sleep(0.2)
    report = next(tmp_path.glob("perfcast_generations_*.html"))
    text = report.read_text()
    for row in res["summary"]:
        assert f"<td>{row['target']}</td><td>{row['best_model']}</td><td>{row['e_out']:.4g}</td>" in text
    assert "251" in text and "283" in text  # GTX-970 ran fewer workloads: the report says the sets differ
    assert "code version" in text
    markup = re.sub(r"<script>.*?</script>", "", text, count=1, flags=re.S)
    assert not re.search(r"""(src|href)=['"]?(https?:)?//(?!127\.0\.0\.1|localhost)""", markup)
    offline = fresh_browser(signed_in=False)
    try:
        offline.get(report.as_uri())
        WebDriverWait(offline, 30).until(lambda d: d.find_elements("css selector", "#chart-0 .scatterlayer .trace"))
    finally:
        offline.quit()
