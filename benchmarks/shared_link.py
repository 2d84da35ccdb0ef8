"""Time from opening a shared link (result cached) to the numbers and the chart, in headless Chromium.

Starts the server with the project's gunicorn settings on loopback, caches the
default scenario, then opens its link in Chromium: first in a new browser
profile (the JavaScript bundles are fetched cold), then again in the same
browser (bundles in the browser's cache, as for a colleague who has used the
tool before). Times are taken inside the page (from navigation start to the
moment the best E_out, and the first trace of the per-workload chart, appear).
Reports medians in seconds and the chart's ratio to the 1 s budget.

    .venv/bin/python benchmarks/shared_link.py [--opens 5]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BUDGET_S = 1.0


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options

    o = Options()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        o.add_argument(a)
    return webdriver.Chrome(options=o)


MARKS = """
window.__marks = {};
new MutationObserver(() => {
  const m = window.__marks, e = document.querySelector('#scenario-best-eout');
  if (!m.numbers && e && e.textContent.trim()) m.numbers = performance.now();
  if (!m.chart && document.querySelector('#scenario-workload-graph .scatterlayer .trace')) m.chart = performance.now();
}).observe(document, {childList: true, subtree: true, characterData: true});
"""


def _watch(driver) -> None:
    """Record, inside the page, when the numbers and the chart first appear (ms from navigation start)."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": MARKS})


def _open(driver, url) -> tuple[float, float]:
    """Seconds from navigation start to the numbers and to the chart, as the page saw them."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    marks = WebDriverWait(driver, 60, poll_frequency=0.05).until(
        lambda d: d.execute_script("const m = window.__marks; return m && m.numbers && m.chart ? m : null"))
    return marks["numbers"] / 1000, marks["chart"] / 1000


def run(opens: int = 5) -> dict:
    var = tempfile.mkdtemp(prefix="perfcast-link-")
    os.environ["PERFCAST_VAR_DIR"] = var
    from benchmarks.load import _free_port, _gunicorn, _wait_up
    from dashboard.crossgen.kinds import SCENARIO, cached
    from dashboard.ui.url_state import to_query

    params = SCENARIO.request({})["params"]
    cached(SCENARIO, params)
    port = _free_port()
    server = _gunicorn(port, {**os.environ, "PERFCAST_VAR_DIR": var}, 4)
    url = f"http://127.0.0.1:{port}/scenario{to_query(params)}"
    try:
        _wait_up(f"http://127.0.0.1:{port}")
        cold, warm = [], []
        for _ in range(max(1, opens // 2)):
            d = _browser()
            _watch(d)
            try:
                cold.append(_open(d, url))
                for _ in range(opens):
                    d.get("about:blank")
                    warm.append(_open(d, url))
            finally:
                d.quit()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)

    def summary(xs):
        num = statistics.median(x[0] for x in xs)
        chart = statistics.median(x[1] for x in xs)
        return {"opens": len(xs), "numbers_s": round(num, 3), "chart_s": round(chart, 3),
                "numbers_over_budget": round(num / BUDGET_S, 2), "chart_over_budget": round(chart / BUDGET_S, 2)}
    return {"new_browser_profile": summary(cold), "browser_used_before": summary(warm)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--opens", type=int, default=5)
    print(json.dumps(run(ap.parse_args().opens), indent=2))


if __name__ == "__main__":
    main()
