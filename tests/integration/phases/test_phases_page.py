"""/phases in headless Chromium: run held-out programs, read the models against the modeling API, pick a
program's trace, open the share link in a fresh browser; a granularity below one sample gets its reason."""

import re

import pytest

from modeling.phases.data import shipped_pair
from modeling.phases.evaluate import evaluate
from pc_browser import fresh_browser, present, screenshot, share_link, start, text_in, wait_text

LINK = "/phases?host_freq=1500&target_freq=2000&target=cycles&features=counters&norm=z&eps=100&T=1&folds=5&seed=0"


def test_run_read_trace_and_share(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, LINK)
    present(dash_duo.driver, "#phases-run")[0].click()
    got = wait_text(dash_duo, "#phases-lacross", timeout=600)  # a loaded 2-core machine
    api = evaluate(shipped_pair(1500, 2000), "cycles", "counters", "z", 100.0, 1.0, 5, 0)
    assert float(got.removesuffix(" %")) == pytest.approx(api.score("lacross").per_phase_mape, abs=0.005)
    ratio = text_in(dash_duo.driver, "#phases-ratio")
    assert float(ratio.removesuffix(" %")) == pytest.approx(api.score("ratio-baseline").per_phase_mape, abs=0.005)
    dash_duo.wait_for_element("#phases-trace .scatterlayer .trace", timeout=30)
    dash_duo.wait_for_contains_text("#phases-programs", "automotive_bitcount", timeout=30)
    screenshot(dash_duo.driver, "phases")
    link = share_link(dash_duo, "phases")
    assert "program=" in link and "eps=100" in link
    present(dash_duo.driver, "#phases-sweep-run")[0].click()  # the granularity sweep, a background job
    dash_duo.wait_for_contains_text("#phases-sweep-grid", "971", timeout=180)  # phases of 2e9 at 1500 -> 2000
    dash_duo.wait_for_element("#phases-sweep-graph .scatterlayer .trace", timeout=30)
    import re

    other = fresh_browser()
    try:
        other.get(re.sub(r"program=[^&]*", "program=security_sha", link))
        assert text_in(other, "#phases-lacross", 60) == got
        assert text_in(other, "#phases-trace .gtitle", 30).startswith("security_sha")  # the link's program kept
    finally:
        other.quit()


def test_a_granularity_finer_than_a_sample_is_refused(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, LINK + "&granularity=1e9")
    dash_duo.wait_for_contains_text(".alert-error", "granularity", timeout=15)


def test_an_uploaded_trace_is_stored_and_predicted(dash_duo, perfcast_app, tmp_path):
    from tests.shared_data import constructed_trace

    path = tmp_path / "lab_trace.tsv"
    path.write_bytes(constructed_trace(programs=5, seed=3, short_run=2))  # prog2's run 2 at 800 MHz: half a run
    start(dash_duo, perfcast_app, "/phases")
    dash_duo.wait_for_element("#phases-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#phases-upload-status", "5 programs at 800, 1600 MHz", timeout=30)
    # the run quality control left out is named, with how far it is from its program's median
    status = text_in(dash_duo.driver, "#phases-upload-status")
    assert re.search(r"excluded by quality control \(1,.*\): prog2 run 2 at 800 MHz \(-5\d\.\d % from the "
                     r"program's median\)", status), status
    dash_duo.wait_for_contains_text("#phases-host_freq", "800 MHz", timeout=15)
    eps = dash_duo.find_element("#phases-eps")
    eps.clear()
    eps.send_keys("100")
    present(dash_duo.driver, "#phases-run")[0].click()
    wait_text(dash_duo, "#phases-lacross", timeout=120)
    dash_duo.wait_for_contains_text("#phases-summary", "lab_trace.tsv (uploaded): 800 → 1600 MHz", timeout=10)
    assert "prog2 run 2 at 800 MHz" in text_in(dash_duo.driver, "#phases-summary")
    link = share_link(dash_duo, "phases")
    assert "source=pd-" in link
    dash_duo.driver.get(link)  # the link names its data by the file, in the intro too (not "cBench", not the id)
    dash_duo.wait_for_contains_text("#phases-summary", "lab_trace.tsv (uploaded)", timeout=30)
    assert "5 programs of lab_trace.tsv (uploaded)" in text_in(dash_duo.driver, "p.lead")


def test_a_file_that_is_neither_gets_its_reason(dash_duo, perfcast_app, tmp_path):
    path = tmp_path / "notes.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    start(dash_duo, perfcast_app, "/phases")
    dash_duo.wait_for_element("#phases-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#phases-upload-status", "lacks column", timeout=30)
