"""Browser test of the home page in headless Chromium (dash_duo)."""

import importlib

from modeling import shipped


def test_home_lists_devices_and_attribution(dash_duo):
    app = importlib.import_module("app").app
    dash_duo.start_server(app)
    dash_duo.wait_for_text_to_equal("h1", "How fast will the next GPU generation be on our workloads?", timeout=10)
    dash_duo.wait_for_contains_text("#home-devices-table", "GTX-680", timeout=10)
    table = dash_duo.find_element("#home-devices-table")
    for name in shipped.devices()["device"]:
        assert name in table.text
    # the grid the rest of the app uses, not the deprecated DataTable (Dash always serves its small
    # loader; the table itself, async-table.js, is fetched only when a DataTable renders)
    assert dash_duo.driver.find_elements("css selector", "#home-devices-table .ag-row")
    scripts = dash_duo.driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert not [s for s in scripts if "async-table" in s]
    assert "CC BY 4.0" in dash_duo.find_element(".attribution").text
    assert dash_duo.get_logs() == []
