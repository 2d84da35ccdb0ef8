"""LogCA and Accelerometer pages in headless Chromium, checked against the modeling API."""

import math
from pathlib import Path

from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from modeling.accelerators.accelerometer import optimization_regions
from modeling.accelerators.logca import LogCAParams, g1, speedup
from modeling.accelerators.presets import preset
from pc_browser import fresh_browser, screenshot, share_link, start, text_in

SHIPPED_TIMING = Path(__file__).resolve().parents[3] / "data" / "openssl_offload_timing.csv"
CUSTOM = "acc=custom&focus=custom&L=1500&o=29000&C=90&A=19&beta=1.01&latency=independent"


def _trace_x(driver, graph_id, name):
    """x of the first point of the trace called ``name`` in a rendered plotly graph (None if absent)."""
    return driver.execute_script(
        "const g = document.querySelector(arguments[0] + ' .js-plotly-plot');"
        "if (!g || !g.data) return null;"
        "const t = g.data.find(d => d.name === arguments[1]); return t ? t.x[0] : null;", f"#{graph_id}", name)


def _set_number(dash_duo, input_id, value):
    el = dash_duo.find_element(f"#{input_id}")
    el.send_keys(Keys.CONTROL, "a")
    el.send_keys(str(value), Keys.ENTER)


def test_logca_parameter_moves_curve_and_marker_and_link_reproduces(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca?" + CUSTOM)
    p = LogCAParams(L=1500, o=29000, C=90, A=19, beta=1.01)
    dash_duo.wait_for_contains_text("#logca-grid", f"{g1(p):,.1f}", timeout=30)
    drv = dash_duo.driver
    WebDriverWait(drv, 20).until(lambda d: _trace_x(d, "logca-speedup-graph", "g1 custom") is not None)
    assert math.isclose(_trace_x(drv, "logca-speedup-graph", "g1 custom"), g1(p), rel_tol=1e-9)

    _set_number(dash_duo, "logca-C", 180)  # implication 2: doubling C divides g1 by 2^(1/beta)
    q = p.with_(C=180.0)
    dash_duo.wait_for_contains_text("#logca-grid", f"{g1(q):,.1f}", timeout=20)
    WebDriverWait(drv, 20).until(
        lambda d: math.isclose(_trace_x(d, "logca-speedup-graph", "g1 custom") or 0, g1(q), rel_tol=1e-9))
    first_y = drv.execute_script("return document.querySelector('#logca-speedup-graph .js-plotly-plot')"
                                 ".data[0].y[0]")
    assert math.isclose(first_y, float(speedup(q, 16.0)), rel_tol=1e-9)
    assert "computed on the server in" in dash_duo.find_element("#logca-time").text
    screenshot(drv, "logca")

    link = share_link(dash_duo, "logca")
    assert "C=180" in link
    other = fresh_browser()
    try:
        other.get(link)
        WebDriverWait(other, 30).until(
            lambda d: math.isclose(_trace_x(d, "logca-speedup-graph", "g1 custom") or 0, g1(q), rel_tol=1e-9))
    finally:
        other.quit()


def test_logca_tabs_multi_fit_and_bad_link(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca?acc=openssl-x86:aes-128-ctr,ultrasparc-t2:aes&focus=ultrasparc-t2:aes"
                                  "&tab=multi&mode=parallel-equal&n=1,2")
    dash_duo.wait_for_contains_text("#logca-multi-graph", "Table 4.4", timeout=30)
    names = dash_duo.driver.execute_script(
        "return document.querySelector('#logca-multi-graph .js-plotly-plot').data.map(d => d.name)")
    assert {"n = 1", "n = 2", "n = 1 observed", "n = 2 observed"} <= set(names)
    dash_duo.find_element("#logca-tab .tab:nth-child(3)").click()  # fitted parameters
    dash_duo.wait_for_contains_text("#logca-fit-note", "not fitted", timeout=10)
    dash_duo.driver.get(dash_duo.server_url + "/logca?gmin=abc")
    dash_duo.wait_for_contains_text(".alert-error", "invalid parameter gmin", timeout=20)
    dash_duo.driver.get(dash_duo.server_url + "/logca?timing=tt-0123456789abcdef")
    dash_duo.wait_for_contains_text(".alert-error", "not found", timeout=20)


def test_logca_upload_timing_table_fits_and_bad_table_is_refused(dash_duo, perfcast_app, tmp_path):
    start(dash_duo, perfcast_app, "/logca?tab=fit")
    dash_duo.wait_for_element("#logca-upload input[type=file]").send_keys(str(SHIPPED_TIMING))
    dash_duo.wait_for_contains_text("#logca-upload-status", "fitted and added", timeout=30)
    dash_duo.wait_for_contains_text("#logca-grid", "uploaded sha-256", timeout=20)
    assert "tt-" in share_link(dash_duo, "logca")
    bad = tmp_path / "bad.csv"
    bad.write_text("kernel,granularity_bytes,host_s\naes,16,1e-7\n")
    dash_duo.find_element("#logca-upload input[type=file]").send_keys(str(bad))
    dash_duo.wait_for_contains_text("#logca-upload-status", "lacks column", timeout=20)


def test_accelerometer_regions_advice_and_link(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/accelerometer?acc=ultrasparc-t2:aes&target=12&g0=4096")
    assert text_in(dash_duo.driver, "#accel-region-now") == "oCA"
    t2 = preset("ultrasparc-t2:aes")
    res = optimization_regions(t2, 16, 32 * 2**20)
    dash_duo.wait_for_contains_text("#accel-cutoffs-grid", "no gain", timeout=20)
    dash_duo.wait_for_contains_text("#accel-regions-grid", f"{res.regions[0].end:,.1f}", timeout=20)
    assert dash_duo.find_element("#accel-speedup-now").text == f"{float(speedup(t2, 4096)):.3g}"
    assert "Offload more data" in dash_duo.find_element("#accel-programmer").text

    _set_number(dash_duo, "accel-target", 5)
    dash_duo.wait_for_contains_text("#accel-programmer", "meets the target 5", timeout=20)
    _set_number(dash_duo, "accel-factor", 2)
    dash_duo.wait_for_contains_text("#accel-regions-graph", "2× improvement", timeout=20)
    screenshot(dash_duo.driver, "accelerometer")
    link = share_link(dash_duo, "accel")
    assert "factor=2" in link and "target=5" in link
    other = fresh_browser()
    try:
        other.get(link)
        WebDriverWait(other, 30).until(lambda d: "meets the target 5" in d.find_element("id", "accel-programmer").text)
    finally:
        other.quit()
    dash_duo.driver.get(dash_duo.server_url + "/accelerometer?acc=nope:aes")
    dash_duo.wait_for_contains_text(".alert-error", "invalid parameter acc", timeout=20)


def test_an_uploaded_timing_table_is_offered_on_accelerometer_without_a_link(dash_duo, perfcast_app):
    """A table uploaded on /logca: /accelerometer, opened from the menu (no timing id in the address), lists
    its kernels and draws the chosen one from its fit."""
    import pandas as pd

    from dashboard.accelerators import sources
    from modeling.accelerators.calibrate import fit_table

    frame = pd.read_csv(SHIPPED_TIMING)
    meta = sources.save_timing_upload(frame, "lab timings")
    kernel = meta["kernels"][0]
    fit = fit_table(frame, kernel)
    start(dash_duo, perfcast_app, "/accelerometer")
    from pc_browser import choose

    choose(dash_duo, "#accel-acc", f"uploaded lab timings: {kernel} (fitted)")
    link = share_link(dash_duo, "accel")
    assert f"upload%3A{meta['id']}%3A{kernel}" in link or f"upload:{meta['id']}:{kernel}" in link
    # the bounds chart is the uploaded fit's: its title names the limit the fitted parameters give
    from modeling.accelerators.logca import large_g_limit

    dash_duo.wait_for_contains_text("#accel-bounds-graph", f"{large_g_limit(fit.params):.3g}", timeout=20)
