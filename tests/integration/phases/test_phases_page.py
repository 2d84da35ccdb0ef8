"""/phases in headless Chromium: run held-out programs, read the models against the modeling API, pick a
program's trace, open the share link in a fresh browser; a granularity below one sample gets its reason."""

from modeling.phases.data import shipped_pair
from modeling.phases.evaluate import evaluate
from pc_browser import fresh_browser, present, screenshot, share_link, start, text_in, wait_text

LINK = "/phases?host_freq=1500&target_freq=2000&target=cycles&features=counters&norm=z&eps=100&T=1&folds=5&seed=0"


def test_run_read_trace_and_share(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, LINK)
    present(dash_duo.driver, "#phases-run")[0].click()
    got = wait_text(dash_duo, "#phases-lacross", timeout=240)
    api = evaluate(shipped_pair(1500, 2000), "cycles", "counters", "z", 100.0, 1.0, 5, 0)
    m = {r["model"]: r for r in api["models"]}
    assert got == f"{m['lacross']['per_phase_mape']:.2f} %"
    assert text_in(dash_duo.driver, "#phases-ratio") == f"{m['ratio-baseline']['per_phase_mape']:.2f} %"
    dash_duo.wait_for_element("#phases-trace .scatterlayer .trace", timeout=30)
    dash_duo.wait_for_contains_text("#phases-programs", "automotive_bitcount", timeout=30)
    screenshot(dash_duo.driver, "phases")
    link = share_link(dash_duo, "phases")
    assert "program=" in link and "eps=100" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#phases-lacross", 60) == got
    finally:
        other.quit()


def test_a_granularity_finer_than_a_sample_is_refused(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, LINK + "&granularity=1e9")
    dash_duo.wait_for_contains_text(".alert-error", "granularity", timeout=15)
