"""A page's charts are drawn one after another (assets/chart-order.js): the first is on the page before
the second is drawn, every chart is drawn in the end, and a chart redrawn by a callback still updates."""

from selenium.webdriver.support.ui import WebDriverWait

from pc_browser import present, start

# each chart's first drawing: the number of the MutationObserver delivery that saw it (a new task or
# frame gets a new number; charts drawn in one task arrive in one delivery)
WATCH = """
window.__drawn = {}; window.__deliveries = 0;
new MutationObserver(() => {
  window.__deliveries += 1;
  for (const g of document.querySelectorAll('.dash-graph')) {
    if (!(g.id in window.__drawn) && g.querySelector('.main-svg')) window.__drawn[g.id] = window.__deliveries;
  }
}).observe(document, {childList: true, subtree: true});
"""


def test_the_charts_of_a_page_are_drawn_one_after_another(dash_duo, perfcast_app):
    dash_duo.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": WATCH})
    start(dash_duo, perfcast_app, "/accelerometer")
    driver = dash_duo.driver
    ids = ["accel-bounds-graph", "accel-regions-graph", "accel-totem-graph"]
    drawn = WebDriverWait(driver, 30, poll_frequency=0.05).until(
        lambda d: (lambda m: m if all(i in m for i in ids) else False)(d.execute_script("return window.__drawn")))
    order = [drawn[i] for i in ids]
    assert order == sorted(order) and len(set(order)) == len(order), drawn  # in page order, each on its own
    assert driver.execute_script("return window.Plotly.__perfcastOrdered === true")


X_MAX = ("return [...document.querySelectorAll('.dash-graph')].map(g => g.querySelector('.js-plotly-plot'))"
         ".map(gd => gd && gd.data && gd.data.length ? Math.max(...gd.data.flatMap(t => t.x || [])) : null)")


def test_a_callback_still_redraws_every_chart_it_returns(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/accelerometer")
    driver = dash_duo.driver
    present(driver, "#accel-totem-graph .main-svg")
    before = driver.execute_script(X_MAX)
    field = driver.find_element("id", "accel-gmax")
    field.clear()
    field.send_keys("65536\n")  # one callback returns the three figures: each is drawn, one after another
    after = WebDriverWait(driver, 20, poll_frequency=0.1).until(
        lambda d: (lambda x: x if x[0] != before[0] else False)(d.execute_script(X_MAX)))
    assert after[0] <= 65536 < before[0], (before, after)
    assert driver.execute_script("const g = [...document.querySelectorAll('.dash-graph')]; "
                                 "return g.length === 3 && g.every(x => x.querySelector('.main-svg'))")
