"""/new-app in headless Chromium: estimate a held-out application, read its warnings, calibrate with one input
and see the error drop, open the share link in a fresh browser; /scenario says which situation it describes."""

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.ui.url_state import to_query
from modeling.newapp.application import estimate_application
from modeling.newapp.data import shipped_table
from pc_browser import click_settled as click, fresh_browser, screenshot, share_link, start, text_in, wait_text


def pick_option(dash_duo, selector, starts):
    dash_duo.wait_for_element(selector, timeout=15).click()
    dash_duo.wait_for_element(".dash-dropdown-search").send_keys(starts)

    def option(_):
        for o in dash_duo.driver.find_elements("css selector", ".dash-dropdown-option"):
            if o.text.startswith(starts):
                return o
        return False
    WebDriverWait(dash_duo.driver, 10).until(option).click()


def pct(text):
    return float(text.split(":")[-1].strip().rstrip("%").strip())


def test_estimate_warn_calibrate_and_share(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/new-app")
    click(dash_duo, "#newapp-run")
    best = wait_text(dash_duo, "#newapp-best", timeout=120)
    api = estimate_application(shipped_table("GTX-680", "GTX-980"), "heartwall",
                               models=["RandomForest", "GradientBoosting"])
    naive = api.method("naive-pooled")
    assert dash_duo.find_element("#newapp-naive").text == f"{naive.mean_ape:.1f} %"
    assert best.startswith("roofline")  # nothing calibrated yet: the spec roofline is the best guess here
    warnings = dash_duo.find_element("#newapp-warnings").text
    assert "different architecture generations" in warnings and "Kepler" in warnings
    assert "dominates the pooled ratio" in warnings
    dash_duo.wait_for_contains_text("#newapp-methods", "choose a calibrating input", timeout=10)
    before = pct(best)

    pick_option(dash_duo, "#newapp-cal", "heartwall_kernel:23x0")
    status = text_in(dash_duo.driver, "#newapp-cal-status", 30)
    assert "Calibrated with heartwall_kernel:23x0" in status
    dash_duo.wait_for_contains_text("#newapp-best", "one-run", timeout=30)
    after = pct(dash_duo.find_element("#newapp-best").text)
    assert after < before / 5  # one measured input beats every estimate by far on heartwall
    screenshot(dash_duo.driver, "new-app")

    # a time typed by the user: twice the measured time doubles the one-run estimates' error scale
    box = dash_duo.find_element("#newapp-cal_time")
    box.send_keys("0.1", Keys.ENTER)
    dash_duo.wait_for_contains_text("#newapp-cal-status", "Calibrated with", timeout=30)
    WebDriverWait(dash_duo.driver, 30).until(
        lambda d: "one-run" not in d.find_element("css selector", "#newapp-best").text)
    link = share_link(dash_duo, "newapp")
    assert "cal=heartwall_kernel%3A23x0" in link and "cal_time=0.1" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert "Calibrated with heartwall_kernel:23x0" in text_in(other, "#newapp-cal-status", 60)
        assert text_in(other, "#newapp-naive") == f"{naive.mean_ape:.1f} %"
    finally:
        other.quit()


def test_a_bad_typed_time_gets_a_message_and_keeps_the_view(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/new-app?application=lud&cal=lud_diagonal:512x0&cal_time=-3")
    click(dash_duo, "#newapp-run")
    wait_text(dash_duo, "#newapp-best", timeout=120)
    dash_duo.wait_for_contains_text("#newapp-cal-status", "positive number", timeout=30)
    dash_duo.wait_for_contains_text("#newapp-warnings", "fewer thread blocks", timeout=30)


@pytest.mark.parametrize("cv,says", [("kfold", "a new input size"), ("logo", "never run on the target")])
def test_scenario_leaderboard_says_which_situation_and_links_here(dash_duo, perfcast_app, cv, says):
    params = SCENARIO.request({"cv": cv, "preset": "halwpe", "transform": "none"})["params"]
    cached(SCENARIO, params)
    start(dash_duo, perfcast_app, f"/scenario{to_query(params)}")
    dash_duo.wait_for_contains_text("#scenario-situation", says, timeout=30)
    link = dash_duo.find_element("#scenario-newapp-link")
    assert "/new-app" in link.get_attribute("href") and "target=GTX-980" in link.get_attribute("href")


def test_an_uploaded_dataset_brings_its_own_device_specs(dash_duo, perfcast_app, tmp_path):
    from dashboard.state import datasets
    from modeling import shipped
    from tests.shared_data import shipped_as_upload

    up, mapping = shipped_as_upload()
    meta = datasets.save_dataset(up, "lab GPUs", mapping)
    specs = shipped.devices().copy()
    specs["device"] = ["lab-" + d for d in specs["device"]]
    path = tmp_path / "lab_devices.csv"
    specs.to_csv(path, index=False)
    start(dash_duo, perfcast_app, f"/new-app?dataset={meta['id']}&application=heartwall&models=none")
    dash_duo.wait_for_element("#newapp-devices-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#newapp-devices-status", "Device table stored", timeout=20)
    pick_option(dash_duo, "#newapp-host_device", "lab-GTX-680")
    pick_option(dash_duo, "#newapp-target_device", "lab-GTX-980")
    click(dash_duo, "#newapp-run")
    wait_text(dash_duo, "#newapp-best", timeout=120)
    dash_duo.wait_for_contains_text("#newapp-methods", "latency-bound", timeout=30)
    assert "lab-GTX-980" in share_link(dash_duo, "newapp")


def type_into(dash_duo, selector, text):
    box = dash_duo.wait_for_element(selector, timeout=15)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(str(text), Keys.ENTER)


def test_a_gpu_never_built_typed_in_estimated_labelled_and_shared(dash_duo, perfcast_app, tmp_path):
    from modeling.newapp.hypothetical import shipped_hypothetical, typed_device

    start(dash_duo, perfcast_app, "/new-app")
    pick_option(dash_duo, "#newapp-mode", "a GPU never built or measured: type")
    specs = {"gpu_name": "H100-ish", "gpu_arch": "Hopper", "gpu_sms": 132, "gpu_cores": 16896, "gpu_clock": 1980,
             "gpu_bw": 3350}
    for name, value in specs.items():
        type_into(dash_duo, f"#newapp-{name}", value)

    def typed_in(_):
        return "gpu_bw=3350" in share_link(dash_duo, "newapp") and "gpu_name=H100-ish" in share_link(dash_duo,
                                                                                                      "newapp")

    try:
        WebDriverWait(dash_duo.driver, 20).until(typed_in)
    except TimeoutException:  # what the form holds and what the link says, for the failure's reader
        get = dash_duo.driver.find_element
        raise AssertionError({**{n: get("id", f"newapp-{n}").get_attribute("value") for n in specs},
                              "share": get("id", "newapp-share").get_attribute("value")}) from None
    click(dash_duo, "#newapp-run")
    median = wait_text(dash_duo, "#newapp-hypo-median", timeout=120)
    api = shipped_hypothetical("GTX-680", typed_device("H100-ish", "Hopper", 132, 16896, 1980, 3350)).to_dict()
    pooled = api["track"]["pooled"]
    assert median == f"{pooled['median_ape']:.1f} %"
    assert dash_duo.find_element("#newapp-hypo-inrange").text == f"{pooled['in_class_range']:.1f} %"
    assert dash_duo.find_element("#newapp-hypo-device").text == "H100-ish"
    # a Hopper GPU is a new architecture here: the page says so and shows that split's figures, the library's
    from modeling.newapp.splits import shipped_validation

    arch = shipped_validation("GTX-680").split("architecture")
    said = dash_duo.find_element("#newapp-hypo-split-text").text
    assert arch.label in said and f"at least {arch.min_coverage:.1f} %" in said
    p100 = arch.gpu("Tesla-P100")
    assert f"Tesla-P100 Pascal 2016-06 {p100.mean_ape:.1f} {p100.median_ape:.1f} {p100.factor:.2f} " \
           f"{p100.coverage:.1f}" in dash_duo.find_element("#newapp-hypo-split").text
    assert "chronological" in dash_duo.find_element("#newapp-hypo-splits").text
    temp = " ".join(f"{g.per_kernel['calculate_temp']:.1f}" for g in arch.gpus)
    assert f"calculate_temp {temp}" in dash_duo.find_element("#newapp-hypo-kernels").text
    assert dash_duo.find_element("#newapp-hypo-verdict").text == "extrapolation"
    assert "another architecture generation" in dash_duo.find_element("#newapp-hypo-warnings").text
    assert "Tesla-P100" in text_in(dash_duo.driver, "#newapp-track", 30)
    assert dash_duo.find_element("#newapp-measured-view").value_of_css_property("display") == "none"
    # the first workload's estimate in the grid is the modeling library's, in its units
    first = min(api["rows"], key=lambda r: r["id"])
    dash_duo.wait_for_contains_text("#newapp-hypo-workloads", first["class"], timeout=30)
    screenshot(dash_duo.driver, "new-app-never-measured")

    # the review report of the unbuilt GPU: the same record, opened with no server, its chart drawn
    import time

    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    click(dash_duo, "#newapp-download-report")
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob("perfcast_unbuilt_gpu_*.html")):
        time.sleep(0.2)
    report = next(tmp_path.glob("perfcast_unbuilt_gpu_*.html"))
    assert "H100-ish" in report.read_text() and f"{pooled['median_ape']:.1f} %" in report.read_text()
    assert "four splits" in report.read_text() and arch.label in report.read_text()
    offline = fresh_browser(signed_in=False)
    try:
        offline.get(report.as_uri())
        WebDriverWait(offline, 30).until(lambda d: d.find_elements("css selector", "#chart-0 .scatterlayer .trace"))
    finally:
        offline.quit()

    link = share_link(dash_duo, "newapp")
    assert "mode=typed" in link and "gpu_sms=132" in link and "gpu_arch=Hopper" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#newapp-hypo-median", 60) == median
        assert text_in(other, "#newapp-hypo-device") == "H100-ish"
        assert text_in(other, "#newapp-hypo-inrange") == f"{pooled['in_class_range']:.1f} %"
    finally:
        other.quit()


def test_a_bad_typed_spec_in_a_link_is_named_and_markup_stays_text(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/new-app?mode=typed&gpu_sms=80&gpu_cores=10")
    dash_duo.wait_for_contains_text(".alert", "fewer than sms", timeout=30)
    start(dash_duo, perfcast_app, "/new-app?mode=typed&gpu_name=%3Cb%3Ebold%3C%2Fb%3E")
    click(dash_duo, "#newapp-run")
    assert text_in(dash_duo.driver, "#newapp-hypo-device", 120) == "<b>bold</b>"
