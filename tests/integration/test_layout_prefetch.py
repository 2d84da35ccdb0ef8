"""The page asks for its layout and callback graph while its scripts still run (assets/early-layout.js):
each is requested once, before the document's scripts have finished, and the renderer uses the answers;
a request that is not the renderer's first GET for them goes to the network."""

from pc_browser import present, start

from dashboard.ui import layout_prefetch

REQUESTS = """
const nav = performance.getEntriesByType('navigation')[0];
const of = name => performance.getEntriesByType('resource').filter(r => new URL(r.name).pathname.endsWith(name));
return {dcl: nav.domContentLoadedEventStart, layout: of('/_dash-layout').map(r => r.startTime),
        deps: of('/_dash-dependencies').map(r => r.startTime)};
"""


def test_the_layout_is_asked_for_once_before_the_scripts_end(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca")
    driver = dash_duo.driver
    present(driver, "#logca-speedup-graph .main-svg", timeout=30)  # the renderer drew the page from them
    seen = driver.execute_script(REQUESTS)
    assert len(seen["layout"]) == 1 and len(seen["deps"]) == 1, seen
    assert seen["layout"][0] < seen["dcl"] and seen["deps"][0] < seen["dcl"], seen


def test_a_second_request_goes_to_the_network(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca")
    driver = dash_duo.driver
    present(driver, "#logca-speedup-graph .main-svg", timeout=30)
    status = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/_dash-layout').then(r => r.json().then(j => done([r.status, !!j.props])), e => done(String(e)));")
    assert status == [200, True]
    seen = driver.execute_script(REQUESTS)
    assert len(seen["layout"]) == 2, seen


def test_the_renderer_asks_itself_when_told(monkeypatch):
    monkeypatch.setattr(layout_prefetch, "LAYOUT_REQUEST", "renderer")
    assert layout_prefetch.assets_ignore() == r"^early\-layout\.js$"
    monkeypatch.setattr(layout_prefetch, "LAYOUT_REQUEST", "early")
    assert layout_prefetch.assets_ignore() == ""
