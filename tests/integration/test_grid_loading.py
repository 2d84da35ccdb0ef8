"""AG Grid's code runs after a page's first chart (assets/grid-later.js, dashboard/ui/grid_loading.py): the
page carries its script as a tag browsers do not run, the first chart is on screen before that script is
fetched, every grid then renders with its rows, and a callback still updates a grid."""

import dash_ag_grid
from selenium.webdriver.support.ui import WebDriverWait

from dashboard.ui import grid_loading
from pc_browser import present, start

# when the first chart's svg appeared (ms from navigation start), recorded inside the page
WATCH = """
window.__perfcastGridWaitMs = 120000;  // the script waits for the chart however slow the machine
window.__chartAt = null;
new MutationObserver(() => {
  const drawn = document.querySelector('.dash-graph .main-svg');
  if (window.__chartAt === null && drawn) window.__chartAt = performance.now();
}).observe(document, {childList: true, subtree: true});
"""
GRID_FETCH = ("const e = performance.getEntriesByType('resource').filter(r => r.name.includes('/dash_ag_grid.'));"
              "return e.map(r => r.startTime);")


def test_the_page_carries_the_grid_script_inert(perfcast_app):
    html = perfcast_app.server.test_client().get("/logca").get_data(as_text=True)
    assert 'type="perfcast/later" data-perfcast-later="dash_ag_grid"' in html
    assert "grid-later.js" in html
    tags = [t for t in html.split("<script") if "src=" in t.split(">")[0] and "dash_ag_grid" in t.split(">")[0]]
    assert len(tags) == 1 and "perfcast/later" in tags[0]  # the one tag there is, is not run with the page


def test_the_first_chart_comes_before_the_grid_script_and_the_grids_fill(dash_duo, perfcast_app):
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
    start(dash_duo, perfcast_app, "/logca")
    driver = dash_duo.driver
    present(driver, "#logca-grid .ag-cell", timeout=30)
    chart_at = driver.execute_script("return window.__chartAt")
    fetched = driver.execute_script(GRID_FETCH)
    assert chart_at is not None and len(fetched) == 1, (chart_at, fetched)  # fetched once, for every grid
    assert chart_at <= fetched[0], (chart_at, fetched)
    assert driver.execute_script("return window.__perfcastGridLoad") == "chart"  # it waited for the chart
    assert not driver.find_elements("css selector", "[data-perfcast-grid]")  # no stand-in box is left
    rows = driver.execute_script("return document.querySelectorAll('#logca-grid .ag-row').length")
    assert rows >= 2


CUTOFFS = "return [...document.querySelectorAll('#accel-cutoffs-grid .ag-row')].map(r => r.textContent).join('|')"


def test_a_page_without_charts_fetches_the_grid_script_at_once(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/data")
    present(dash_duo.driver, "#data-columns .ag-header-cell", timeout=30)
    assert dash_duo.driver.execute_script("return window.__perfcastGridLoad") == "no-chart"


def test_a_callback_still_updates_a_grid(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/accelerometer")
    driver = dash_duo.driver
    present(driver, "#accel-cutoffs-grid .ag-cell", timeout=30)
    before = driver.execute_script(CUTOFFS)
    field = driver.find_element("id", "accel-gmax")
    field.clear()
    field.send_keys("65536\n")  # one callback returns the figures and both grids' rows
    after = WebDriverWait(driver, 20, poll_frequency=0.1).until(
        lambda d: (lambda t: t if t and t != before else False)(d.execute_script(CUTOFFS)))
    assert before and after != before


def test_eager_loading_leaves_dash_alone(monkeypatch):
    main = [r for r in dash_ag_grid._js_dist if r.get("relative_package_path") == grid_loading.MAIN]
    saved = dict(main[0])
    try:
        main[0].pop("attributes", None)
        monkeypatch.setattr(grid_loading, "GRID_LOADING", "eager")
        grid_loading.install()
        assert "attributes" not in main[0]
        assert grid_loading.assets_ignore() == r"^grid\-later\.js$"
        monkeypatch.setattr(grid_loading, "GRID_LOADING", "after-chart")
        grid_loading.install()
        assert main[0]["attributes"] == grid_loading.LATER and grid_loading.assets_ignore() == ""
    finally:
        main[0].clear()
        main[0].update(saved)
