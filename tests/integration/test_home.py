"""Browser test of the home page in headless Chromium (dash_duo)."""

import importlib

from modeling import shipped


def test_home_lists_devices_and_attribution(dash_duo):
    app = importlib.import_module("app").app
    dash_duo.start_server(app)
    dash_duo.wait_for_text_to_equal("h1", "How fast will the next GPU generation be on our workloads?", timeout=10)
    table = dash_duo.find_element("#home-devices-table")
    for name in shipped.devices()["device"]:
        assert name in table.text
    assert "CC BY 4.0" in dash_duo.find_element(".attribution").text
    assert dash_duo.get_logs() == []
