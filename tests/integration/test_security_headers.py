"""Every page renders under the Content-Security-Policy, with no violation reported in the console."""

import pytest

from pc_browser import present, start

PAGES = [("/", "#home-devices-table"), ("/scenario", "#scenario-run"), ("/features", "#features-run"),
         ("/generations", "#generations-run"), ("/repeats", "#repeats-graph .main-svg"),
         ("/apply", "#apply-run"), ("/data", "#data-upload"), ("/logca", "#logca-speedup-graph .main-svg"),
         ("/accelerometer", "#accel-bounds-graph .main-svg")]


def test_headers_on_pages_assets_and_callbacks(perfcast_app):
    client = perfcast_app.server.test_client()
    for url in ("/", "/scenario", "/_dash-layout", "/_dash-dependencies", "/assets/style.css", "/no-such-page"):
        r = client.get(url)
        csp = r.headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in csp and "script-src 'self' 'sha256-" in csp, url
        assert "'unsafe-inline'" not in csp.split("script-src", 1)[1].split(";")[0], url
        assert "unsafe-eval" not in csp, url
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["X-Frame-Options"] == "DENY"
        assert r.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.parametrize("path, ready", PAGES)
def test_pages_render_without_csp_violations(dash_duo, perfcast_app, path, ready):
    start(dash_duo, perfcast_app, path)
    present(dash_duo.driver, ready, timeout=30)
    logs = [entry["message"] for entry in dash_duo.get_logs() or []]
    assert not [m for m in logs if "Content Security Policy" in m or "Refused to" in m], logs
