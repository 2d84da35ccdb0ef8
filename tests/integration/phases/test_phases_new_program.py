"""/phases "Predict a new program" in headless Chromium: upload a host-only run (one shipped program at
1000 MHz, its target run removed), predict its 2000 MHz power trace, read the total against the library,
download the CSV and the Parquet (content and provenance checked), and a colleague opens the share link in a
fresh browser: the same numbers, drawn from the cache in the first layout."""

import time

import pandas as pd
import pytest

from dashboard.phases.figures import NAMES
from modeling.phases import data
from modeling.phases.predict import predict_trace
from pc_browser import choose, fresh_browser, present, screenshot, share_link, start, text_in, wait_text

PROG = "automotive_susan_e"


def click(dash_duo, selector):
    el = dash_duo.wait_for_element(selector, timeout=30)
    dash_duo.driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)
    el.click()


def _download(dash_duo, tmp_path, button, pattern):
    click(dash_duo, button)
    deadline = time.time() + 30
    while time.time() < deadline and not list(tmp_path.glob(pattern)):
        time.sleep(0.2)
    return next(tmp_path.glob(pattern))


def test_upload_predict_export_and_share(dash_duo, perfcast_app, tmp_path):
    s = data.shipped_samples()
    host = s[(s["program"] == PROG) & (s["freq_mhz"] == 1000) & (s["run"] == 1)].reset_index(drop=True)
    path = tmp_path / "susan_host_only.csv"
    host.to_csv(path, index=False)  # the host run alone: no sample at 2000 MHz, nothing of the target
    start(dash_duo, perfcast_app, "/phases?np_target=power")
    dash_duo.wait_for_element("#phases-new-upload input[type=file]", timeout=30).send_keys(str(path))
    dash_duo.wait_for_contains_text("#phases-new-upload-status", "per-sample trace of automotive_susan_e", timeout=30)
    click(dash_duo, "#phases-new-run")
    total = wait_text(dash_duo, "#phases-new-total", timeout=240)
    lib = predict_trace(host, 1000, 2000, "power").cli_json()
    t = lib["total"]
    assert total == f"{t['predicted']:.3f} W"
    assert text_in(dash_duo.driver, "#phases-new-interval") == f"{t['lower']:.3f} – {t['upper']:.3f} W"
    assert text_in(dash_duo.driver, "#phases-new-model-used") == NAMES[lib["model"]]
    dash_duo.wait_for_element("#phases-new-graph .scatterlayer .trace", timeout=30)
    names = [e.text for e in dash_duo.driver.find_elements("css selector", "#phases-new-graph .legendtext")]
    assert not any("measured" in n for n in names) and any("interval" in n for n in names)
    screenshot(dash_duo.driver, "phases-new-program")

    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    got = pd.read_csv(_download(dash_duo, tmp_path, "#phases-new-download-csv", "phases_*.csv"))
    assert len(got) == len(lib["phases"]) + 1 and got["id"].iloc[-1] == f"{PROG}/total"
    assert got["predicted"].iloc[-1] == pytest.approx(t["predicted"])
    assert got["predicted"].iloc[:-1].tolist() == pytest.approx([p["predicted"] for p in lib["phases"]])
    assert (got["lower"] <= got["predicted"]).all() and (got["predicted"] <= got["upper"]).all()
    assert set(got["unit"]) == {"W"} and got["trace"].str.startswith("ht-").all()
    assert got["code_version"].nunique() == 1 and got["date"].str.startswith("20").all()
    pq = pd.read_parquet(_download(dash_duo, tmp_path, "#phases-new-download-parquet", "phases_*.parquet"))
    assert pq["predicted"].tolist() == pytest.approx(got["predicted"].tolist())

    report = _download(dash_duo, tmp_path, "#phases-new-download-report", "perfcast_phases_*.html")
    assert total in report.read_text() and "never run on the target" in report.read_text()
    offline = fresh_browser(signed_in=False)
    try:  # the review report, in a browser with no server
        offline.get(report.as_uri())
        present(offline, "#chart-0 .scatterlayer .trace")
    finally:
        offline.quit()

    click(dash_duo, "#phases-new-save")
    dash_duo.wait_for_contains_text("#phases-new-save-status", f"Saved as {PROG} power", timeout=20)

    link = share_link(dash_duo, "phases-new")
    assert "np_trace=ht-" in link and "np_target=power" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#phases-new-total", 60) == total
        assert text_in(other, "#phases-new-interval", 30) == f"{t['lower']:.3f} – {t['upper']:.3f} W"
        present(other, "#phases-new-graph .scatterlayer .trace")
    finally:
        other.quit()
    start(dash_duo, perfcast_app, "/predict")  # listed with every saved prediction, linked back to /phases
    dash_duo.wait_for_contains_text("#predict-saved-list", f"{PROG} power", timeout=30)
    item = next(li for li in dash_duo.driver.find_elements("css selector", "#predict-saved-list li")
                if f"{PROG} power" in li.text)
    assert "a new program's target trace" in item.text and "1000 → 2000 MHz" in item.text
    assert "/phases?" in item.find_element("css selector", "a").get_attribute("href")


def test_the_card_trains_on_a_trace_uploaded_as_the_pages_data(dash_duo, perfcast_app, tmp_path):
    """A PARSEC-like trace (each run on 1 and on 2 cores) uploaded as the page's data: the upload says the runs
    were kept apart, the card offers its frequencies, trains on its 6 programs, drops the event the new
    program's host run lacks with a note, and says that 6 programs cannot support a 90 % total interval."""
    from modeling.build import armpm
    from tests.shared_data import parsec_like

    src = tmp_path / "parsec_like.data"
    # its own content (seed): uploads are stored by content, and a unit test stores the default one under
    # another name, which this page would then show
    src.write_bytes(parsec_like(tuple(f"parsec.p{i}" for i in range(6)), seed=23))
    s, _ = armpm.samples(armpm.read_trace(parsec_like(("parsec.new",), seed=7)))
    host = s[(s["freq_mhz"] == 1000) & (s["run"] == 1)].drop(columns=["L1D_CACHE_ACCESS", "cores"])
    host_path = tmp_path / "new_host.csv"
    host.to_csv(host_path, index=False)
    start(dash_duo, perfcast_app, "/phases")
    dash_duo.wait_for_element("#phases-upload input[type=file]", timeout=30).send_keys(str(src))
    dash_duo.wait_for_contains_text("#phases-upload-status", "6 programs at 1000, 1800 MHz", timeout=90)
    assert "kept apart" in text_in(dash_duo.driver, "#phases-upload-status")
    choose(dash_duo, "#phases-new-source", "parsec_like.data (trace, 6 programs)", timeout=60)
    dash_duo.wait_for_contains_text("#phases-new-target_freq", "1800 MHz", timeout=60)
    dash_duo.wait_for_element("#phases-new-upload input[type=file]", timeout=30).send_keys(str(host_path))
    dash_duo.wait_for_contains_text("#phases-new-upload-status", "per-sample trace of parsec.new", timeout=60)
    click(dash_duo, "#phases-new-run")
    wait_text(dash_duo, "#phases-new-total", timeout=240)
    assert text_in(dash_duo.driver, "#phases-new-interval").startswith("not supported")
    summary = text_in(dash_duo.driver, "#phases-new-summary")
    assert "6 programs of parsec_like.data (uploaded)" in summary and "L1D_CACHE_ACCESS" in summary
    assert "no interval on the total" in summary
    screenshot(dash_duo.driver, "phases-new-program-uploaded-source")
