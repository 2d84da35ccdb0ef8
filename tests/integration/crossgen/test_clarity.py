"""What a new user tripped over on the cross-generation pages, checked in headless Chromium."""

import time

import numpy as np
import pandas as pd
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.state import datasets
from dashboard.ui.url_state import to_query
from pc_browser import choose, present, screenshot, start, wait_text


def test_dotted_bracketed_and_unicode_column_names_show_their_values(dash_duo, perfcast_app, tmp_path):
    rng = np.random.default_rng(0)
    names = ["Branch.Efficiency", "l1[hit]", "warp exec", "Δcycles", "requested_global_load_throughput@GTX-680"]
    df = pd.DataFrame({"workload": [f"bpnn_adjust_weights_cuda:{8192 + i}x0" for i in range(12)],
                       **{n: np.round(rng.uniform(1, 9, 12), 3) for n in names}, "t": rng.uniform(1, 2, 12)})
    path = tmp_path / "dotted.csv"
    df.to_csv(path, index=False)
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(path))
    dash_duo.wait_for_contains_text("#data-preview", "bpnn_adjust_weights_cuda:8192x0", timeout=20)
    for n in names:
        cell = dash_duo.driver.find_elements("css selector", f'#data-preview .ag-row[row-index="0"] [col-id="{n}"]')
        assert cell and cell[0].text == f"{df.loc[0, n]:g}", n
    # every header and value shows whole (the columns were 80 px: "wo…", "bpnn…", "0.00…")
    cut = dash_duo.driver.execute_script(
        "return [...document.querySelectorAll('#data-preview .ag-header-cell-text, #data-preview .ag-cell')]"
        ".filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText);")
    assert cut == [], cut
    screenshot(dash_duo.driver, "data-dotted-columns")


def test_a_link_with_the_host_as_target_is_refused_and_the_host_is_not_offered(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/scenario?host=GTX-680&target=GTX-680")
    dash_duo.wait_for_contains_text(".alert-error", "GTX-680 is the host", timeout=15)
    dash_duo.find_element("#scenario-target").click()
    options = [o.text for o in dash_duo.driver.find_elements("css selector", ".dash-dropdown-option")]
    assert options and "GTX-680" not in options


def test_save_lists_the_scenario_at_once(dash_duo, perfcast_app):
    params = SCENARIO.request({"target": "Tesla-K40", "preset": "halwpe", "seed": "3"})["params"]
    cached(SCENARIO, params)
    start(dash_duo, perfcast_app, f"/scenario{to_query(params)}")
    wait_text(dash_duo, "#scenario-best-eout", timeout=30)
    name = f"K40 for the review {time.time_ns()}"
    dash_duo.find_element("#scenario-save-name").send_keys(name)
    dash_duo.find_element("#scenario-save").click()
    dash_duo.wait_for_contains_text("#scenario-save-status", "Saved as", timeout=15)
    dash_duo.wait_for_contains_text("#scenario-saved-list", name, timeout=10)


def test_deleting_a_dataset_asks_first(dash_duo, perfcast_app):
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(6)], "a": np.arange(6.0), "b": np.arange(6.0) ** 2,
                       "t": np.arange(1.0, 7.0)})
    meta = datasets.save_dataset(df, "shared with the team", {
        "id_col": "workload", "group_col": None, "targets": ["t"], "features": ["a", "b"], "host_col": None,
        "repeat_col": None})
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_contains_text("#data-datasets", meta["id"], timeout=15)
    button = present(dash_duo.driver, f'button[id*="{meta["id"]}"]')[0]
    button.click()
    alert = WebDriverWait(dash_duo.driver, 10).until(expected_conditions.alert_is_present())
    assert "for everyone" in alert.text and "shared with the team" in alert.text
    alert.dismiss()
    assert datasets.dataset_meta(meta["id"])["id"] == meta["id"]  # kept
    present(dash_duo.driver, f'button[id*="{meta["id"]}"]')[0].click()
    WebDriverWait(dash_duo.driver, 10).until(expected_conditions.alert_is_present()).accept()
    deadline = time.time() + 10
    while meta["id"] in dash_duo.find_element("#data-datasets").text and time.time() < deadline:
        time.sleep(0.1)
    assert meta["id"] not in dash_duo.find_element("#data-datasets").text
    assert meta["id"] not in [m["id"] for m in datasets.list_datasets()]


def test_before_a_run_the_page_says_what_it_will_show_not_empty_panels(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/scenario")
    dash_duo.wait_for_contains_text("#scenario-before", "Run the scenario to see", timeout=15)
    assert not dash_duo.find_element("#scenario-results").is_displayed()
    height = dash_duo.driver.execute_script("return document.body.scrollHeight")
    assert height < 2000, height  # was ~3,000 px of empty panels
    screenshot(dash_duo.driver, "scenario-before-run")
    params = SCENARIO.request({"target": "Tesla-K40", "preset": "halwpe", "seed": "3"})["params"]
    cached(SCENARIO, params)
    dash_duo.driver.get(dash_duo.server_url + f"/scenario{to_query(params)}")
    dash_duo.wait_for_contains_text("#scenario-leaderboard", "Baseline", timeout=30)
    assert not dash_duo.find_element("#scenario-before").is_displayed()
    width = dash_duo.driver.execute_script(
        "return document.querySelector('#scenario-workload-graph .main-svg').getBoundingClientRect().width")
    assert width > 900  # drawn at the card's width, not a hidden container's default


def test_repeats_names_a_level_shift_and_shows_units(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/repeats?dataset=rodinia&workload=calculate_temp:1024x1024&measure=duration")
    dash_duo.wait_for_contains_text("#repeats-summary", "Two levels, not outliers", timeout=30)
    text = dash_duo.find_element("#repeats-summary").text
    assert "Runs 1–162" in text and "level shift" in text
    assert "µs" in text or "ms" in text
    dash_duo.wait_for_contains_text("#repeats-grid", "calculate_temp", timeout=15)
    cells = [c.text for c in dash_duo.driver.find_elements("css selector", '#repeats-grid [col-id="median"]')][1:]
    assert cells and all(c.endswith("s") and not c.startswith("0.000") for c in cells), cells[:5]
    screenshot(dash_duo.driver, "repeats-level-shift")


def test_numbers_read_the_same_everywhere(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca")
    present(dash_duo.driver, "#logca-speedup-graph .xtick text", timeout=30)
    xt = [t.text for t in dash_duo.driver.find_elements("css selector", "#logca-speedup-graph .xtick text")]
    yt = [t.text for t in dash_duo.driver.find_elements("css selector", "#logca-speedup-graph .ytick text")]
    assert any("KiB" in t for t in xt) and not any(t.endswith("k") for t in xt), xt
    assert yt and all(set(t.replace("0.", "").replace("−", "")) <= {"0", "1"} for t in yt), yt  # decades only
    start_seed = "/scenario?seed=99999999999"
    dash_duo.driver.get(dash_duo.server_url + start_seed)
    dash_duo.wait_for_contains_text(".alert-error", "2,147,483,647", timeout=15)


def test_workloads_with_missing_values_are_named_handled_as_chosen_and_reported(dash_duo, perfcast_app, tmp_path):
    rng = np.random.default_rng(5)
    n = 40
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "a": rng.uniform(1, 9, n), "b": rng.uniform(1, 9, n),
                       "c.sparse": rng.uniform(1, 9, n)})
    df["t"] = 2 * df["a"] + df["b"] + rng.normal(0, 0.01, n)
    df.loc[[2, 9, 17, 30], "c.sparse"] = np.nan
    path = tmp_path / "gaps.csv"
    df.to_csv(path, index=False)
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(path))
    dash_duo.wait_for_contains_text("#data-missing-info", "4 of 40 workloads miss a value", timeout=20)
    assert "w2, w9, w17, w30" in dash_duo.find_element("#data-missing-info").text
    from pc_browser import choose

    choose(dash_duo, "#data-targets", "t")
    # no rule is chosen for the user: Save asks for one and keeps nothing
    kept_before = [d["id"] for d in datasets.list_datasets()]
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "4 of 40 workloads miss a feature value: choose",
                                    timeout=20)
    assert [d["id"] for d in datasets.list_datasets()] == kept_before
    dash_duo.driver.find_element("css selector", "#data-missing input[value='columns']").click()
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 40 workloads", timeout=20)
    assert "feature columns with missing values dropped: c.sparse" in dash_duo.find_element("#data-save-status").text
    meta = datasets.list_datasets()[0]
    assert meta["mapping"]["features"] == ["a", "b"]
    # the scenario names the host as the dataset and says what the upload left out
    dash_duo.driver.get(dash_duo.server_url + f"/scenario?dataset={meta['id']}&folds=5")
    present(dash_duo.driver, "#scenario-run")[0].click()
    wait_text(dash_duo, "#scenario-best-eout", timeout=120)
    text = dash_duo.find_element("#scenario-summary").text
    assert "gaps (its host) → t, the t column" in text
    assert "feature columns dropped at upload for missing values: 1" in text


def test_the_folds_field_says_what_it_means_under_each_cross_validation(dash_duo, perfcast_app):
    from modeling import shipped

    apps = shipped.workloads()["application"].nunique()
    start(dash_duo, perfcast_app, "/scenario")
    assert dash_duo.wait_for_element("#scenario-folds").is_enabled()
    choose(dash_duo, "#scenario-cv", "leave one application out")
    dash_duo.wait_for_contains_text("#scenario-folds-hint", f"one fold per application ({apps} here)", timeout=10)
    assert not dash_duo.find_element("#scenario-folds").is_enabled()
    choose(dash_duo, "#scenario-cv", "grouped K-fold by application")
    dash_duo.wait_for_contains_text("#scenario-folds-hint", f"at most {apps}", timeout=10)
    assert dash_duo.find_element("#scenario-folds").is_enabled()
