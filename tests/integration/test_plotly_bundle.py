"""The partial plotly.js bundle: every trace type the pages draw is in it, and pages load it, not the full one."""

import re

import pytest
from selenium.webdriver.support.ui import WebDriverWait

from dashboard.ui import plotly_bundle
from pc_browser import present, start


def test_the_vendored_bundle_has_the_trace_types_it_claims():
    text = plotly_bundle.bundle_file().read_text(errors="ignore")
    found = set(re.findall(r'moduleType:"trace",name:"([a-z0-9]+)"', text))
    assert found == plotly_bundle.TRACES


def test_the_graph_code_comes_with_the_page_not_on_demand(perfcast_app):
    html = perfcast_app.server.test_client().get("/scenario").get_data(as_text=True)
    assert re.search(r'<script src="[^"]*async-graph[^"]*\.js', html)
    assert "plotly-cartesian" in html and "plotly.min.js" not in html


PAGES = [("/scenario?target=Tesla-K40&preset=halwpe&seed=3", "#scenario-workload-graph"),
         ("/repeats", "#repeats-graph"), ("/logca", "#logca-speedup-graph"),
         ("/accelerometer", "#accel-bounds-graph")]


@pytest.mark.parametrize("path, graph", PAGES)
def test_pages_draw_with_the_partial_bundle_only(dash_duo, perfcast_app, path, graph):
    if path.startswith("/scenario"):
        from dashboard.crossgen.kinds import SCENARIO, cached

        cached(SCENARIO, SCENARIO.request({"target": "Tesla-K40", "preset": "halwpe", "seed": "3"})["params"])
    start(dash_duo, perfcast_app, path)
    present(dash_duo.driver, f"{graph} .main-svg", timeout=30)
    # an empty chart can be drawn before the page's figure arrives: wait for the figure's traces
    WebDriverWait(dash_duo.driver, 30, poll_frequency=0.1).until(lambda d: d.execute_script(
        "const g = document.querySelector(arguments[0] + ' .js-plotly-plot');"
        "return !!(g && g.data && g.data.length);", graph))
    names = dash_duo.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert [n for n in names if "plotly-cartesian" in n]
    assert not [n for n in names if n.split("?")[0].endswith("/plotly.min.js")]
    types = dash_duo.driver.execute_script(
        "return [...document.querySelectorAll('.js-plotly-plot')].flatMap(g => (g.data || []).map(t => t.type))")
    assert types and set(types) <= plotly_bundle.TRACES, types
    # the margins fit the labels, so plotly's automargin did not widen them and draw the chart a second time
    pushed = dash_duo.driver.execute_script("""return [...document.querySelectorAll('.js-plotly-plot')]
      .filter(g => g._fullLayout).map(g => { const m = g._fullLayout.margin, s = g._fullLayout._size;
        return [g.parentNode.id, [m.l, m.r, m.t, m.b], [s.l, s.r, s.t, s.b].map(Math.round)]; })
      .filter(([, m, s]) => m.join() !== s.join())""")
    assert not pushed, pushed
    logs = [e["message"] for e in dash_duo.get_logs() or []]
    assert not [m for m in logs if "not registered" in m or "plotly" in m.lower()], logs


def test_the_vendored_bundle_has_its_factory_parenthesized():
    """Compiled eagerly, off the main thread (plotly_bundle.eager_factory); otherwise the file is plotly's."""
    text = plotly_bundle.bundle_file().read_text()
    assert text.count(plotly_bundle.EAGER_CALL) == 1 and text.rstrip().endswith(plotly_bundle.EAGER_END)
    assert plotly_bundle.eager_factory(text) == text
    shipped = text.replace(plotly_bundle.EAGER_CALL, plotly_bundle.UMD_CALL).rstrip()
    shipped = shipped[:-len(plotly_bundle.EAGER_END)] + plotly_bundle.UMD_END
    assert plotly_bundle.UMD_CALL in shipped and plotly_bundle.eager_factory(shipped).rstrip() == text.rstrip()
    with pytest.raises(ValueError, match="UMD wrapper"):
        plotly_bundle.eager_factory("window.Plotly = {};")
