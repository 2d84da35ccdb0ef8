"""/operators in headless Chromium: a listed GPU's spec sheet edited (A100-80GB with 1.5x the bandwidth) and
estimated; the page's numbers are the library's to the digit; an absurd spec value is refused by name with the
last result kept."""

import pytest
from selenium.webdriver.common.keys import Keys

from dashboard.operators.work import QUICK
from modeling.operators.model import DEFAULT_TRAIN, operators_on_gpu
from modeling.operators.specs import edit_spec, load_devices
from pc_browser import choose, component_prop, present, share_link, start, text_with, until


def type_into(dash_duo, selector, text):
    box = dash_duo.wait_for_element(selector, timeout=15)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(str(text), Keys.ENTER)


def test_an_edited_gpu_is_estimated_and_a_bad_spec_refused(dash_duo, perfcast_app):
    base = load_devices()["A100-80GB"]
    start(dash_duo, perfcast_app, "/operators")  # no link: nothing runs before the form is filled
    choose(dash_duo, "#operators-fit", f"quick: {QUICK} operators per training GPU and kind")
    choose(dash_duo, "#operators-gpu", "A100-80GB")
    # the listed GPU's spec sheet fills the fields
    until(dash_duo.driver, lambda: float(dash_duo.find_element("#operators-bw").get_attribute("value") or 0)
          == pytest.approx(base.memory_bandwidth_gbs))
    type_into(dash_duo, "#operators-bw", base.memory_bandwidth_gbs * 1.5)
    present(dash_duo.driver, "#operators-run")[0].click()
    name = text_with(dash_duo.driver, "#operators-gpu-name", "A100-80GB", timeout=600)
    assert name == "A100-80GB, edited: memory_bandwidth_gbs x1.5", name
    text_with(dash_duo.driver, "#operators-summary", "the roofline is closer")
    dash_duo.wait_for_contains_text("#operators-models", "layer b8 s512 h1024 heads16", timeout=30)
    rows = until(dash_duo.driver, lambda: component_prop(dash_duo.driver, "operators-models", "rowData"))
    page = {r["name"]: r for r in rows}
    # the library, on the same spec sheet and fit, gives the same numbers to the digit
    spec = edit_spec(base, ["bandwidth=1.5x"])
    lib = operators_on_gpu(spec, DEFAULT_TRAIN, QUICK, 0.9, (8, 512, 1024, 16))
    for m in lib.models:
        assert page[m.name]["latency_ms"] == m.latency_ms
        assert page[m.name]["roofline_ms"] == m.roofline_ms
    assert "bw=" in share_link(dash_duo, "operators", containing="bw=")
    # an absurd value: refused by name on the server, the result shown stays
    type_into(dash_duo, "#operators-sms", 0)
    present(dash_duo.driver, "#operators-run")[0].click()
    text_with(dash_duo.driver, "#operators-status", "sms = 0", timeout=30)
    assert "memory_bandwidth_gbs x1.5" in dash_duo.find_element("#operators-gpu-name").text
