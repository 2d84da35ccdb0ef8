"""/plan in headless Chromium, two rounds the way a team uses it: a small uploaded table (60 workloads of 3
applications, 30 of them simulated, a column of simulator hours), plan a batch of 8, download the list for
the simulation farm, upload the batch's simulated values, plan again and read what they changed. The table,
the replay chart and the export are checked against the library called here on the same table."""


import pandas as pd
import pytest
from selenium.webdriver.support.ui import WebDriverWait

from modeling.plan.inputs import merge_results, parse_budget, read_plan_table
from modeling.plan.planner import plan
from pc_browser import (callbacks_settled, click_settled as click, download_report, fresh_browser, screenshot,
                        share_link, start, text_in, wait_text)
from tests.dashboard.plan.plan_table import plan_frame, save

FEATURES = ["host_s", "inst", "c1", "c2", "c3"]  # the dataset's counters but the cost column


def library_plan(frame):
    table = read_plan_table(frame, "sim_cycles", "workload", host_col="host_s", group_col="application",
                            cost_col="sim_hours", features=FEATURES)
    return plan(table, parse_budget("8"), strategy="auto", situation="new-inputs", level=0.9, seed=0)


def shown_batch(driver):
    """The batch grid's (rank, workload) pairs as displayed, in row order."""
    def rows(_):
        cells = driver.find_elements("css selector", "#plan-batch .ag-pinned-left-cols-container .ag-row")
        got = []
        for r in cells:
            parts = r.text.split("\n")
            if len(parts) < 2:
                return False
            got.append((int(r.get_attribute("row-index")), int(parts[0]), parts[1]))
        return sorted(got) if got else False
    return [(rank, wid) for _, rank, wid in WebDriverWait(driver, 30).until(rows)]


def replay_traces(driver):
    return driver.execute_script(
        "const g = document.querySelector('#plan-replay .js-plotly-plot');"
        "return g ? g.data.map(t => ({name: t.name, x: Array.from(t.x), y: Array.from(t.y),"
        " sd: Array.from(t.error_y.array)})) : null;")


def check_against_library(dash_duo, lib, tmp_path, stem):
    assert shown_batch(dash_duo.driver) == [(b.rank, b.id) for b in lib.batch]
    traces = replay_traces(dash_duo.driver)
    assert traces and {t["name"].replace(" (chosen)", "") for t in traces} == {c.strategy for c in lib.replay}
    for t in traces:
        c = next(c for c in lib.replay if c.strategy == t["name"].replace(" (chosen)", ""))
        assert t["x"] == pytest.approx(c.hours) and t["y"] == pytest.approx(c.error)
        assert t["sd"] == pytest.approx(c.error_sd)
    assert [t["name"] for t in traces if t["name"].endswith("(chosen)")] == [f"{lib.strategy} (chosen)"]
    assert text_in(dash_duo.driver, "#plan-batch-size").startswith(f"{len(lib.batch)} workloads, ")
    # the list the simulation farm runs, as the server writes it
    folder = tmp_path / stem
    folder.mkdir()
    got = pd.read_csv(download_report(dash_duo.driver, "#plan-download-csv", "plan_*.csv", folder))
    assert got["id"].tolist() == [b.id for b in lib.batch] and got["rank"].tolist() == [b.rank for b in lib.batch]
    assert got["cost_hours"].tolist() == pytest.approx([b.cost for b in lib.batch])
    assert got["why"].tolist() == [b.why for b in lib.batch]
    assert set(got["strategy"]) == {lib.strategy} and got["code_version"].notna().all()
    return got


def test_two_rounds_plan_upload_the_values_and_plan_again(dash_duo, perfcast_app, tmp_path):
    full = plan_frame()
    frame = full.drop(columns=["truth"])
    meta = save(full, "lab table")
    start(dash_duo, perfcast_app, f"/plan?dataset={meta['id']}&cost=sim_hours&budget=8")
    click(dash_duo, "#plan-run")
    wait_text(dash_duo, "#plan-strategy-used", timeout=240)
    lib = library_plan(frame)
    assert text_in(dash_duo.driver, "#plan-counts") == "30 / 30"
    assert not dash_duo.find_element("#plan-slowdown").is_enabled()  # the cost is a column: no slowdown used
    first = check_against_library(dash_duo, lib, tmp_path, "round1")
    effect = dash_duo.find_element("#plan-meaning").text
    assert f"Simulating these {len(lib.batch)} workloads costs" in effect and "mean |log error| goes from" in effect
    link = share_link(dash_duo, "plan", containing=meta["id"])
    assert "cost=sim_hours" in link and "budget=8" in link
    other = fresh_browser()  # a colleague opens the link: the same batch, from the cache, without a run
    try:
        other.get(link)
        assert text_in(other, "#plan-counts", 60) == "30 / 30"
        assert shown_batch(other) == [(b.rank, b.id) for b in lib.batch]
    finally:
        other.quit()
    screenshot(dash_duo.driver, "plan-round1")

    # the farm ran the batch: its values come back as a table of id and value
    results = pd.DataFrame({"workload": first["id"], "sim_cycles": full.set_index("workload").loc[first["id"],
                                                                                               "truth"].to_numpy()})
    path = tmp_path / "batch_results.csv"
    results.to_csv(path, index=False)
    dash_duo.wait_for_element("#plan-results-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#plan-results-status", "Merged 8 simulated value(s)", timeout=30)
    dash_duo.wait_for_contains_text("#plan-dataset", "lab table, round 2", timeout=20)
    callbacks_settled(dash_duo.driver)  # the cost choice follows the new dataset version
    click(dash_duo, "#plan-run")
    dash_duo.wait_for_contains_text("#plan-facts", "Round 2: 8 simulated values were merged", timeout=240)
    lib2 = library_plan(merge_results(frame, results, "workload", "sim_cycles"))
    assert text_in(dash_duo.driver, "#plan-counts") == "38 / 22"
    check_against_library(dash_duo, lib2, tmp_path, "round2")
    said = dash_duo.find_element("#plan-facts").text
    assert f"{lib.expected.error_now:.4g}" in said and f"{lib2.expected.error_now:.4g}" in said
    moved = dash_duo.driver.find_elements("css selector", "#plan-round .ag-center-cols-container .ag-row")
    assert len(moved) == 8
    screenshot(dash_duo.driver, "plan-round2")
    report = download_report(dash_duo.driver, "#plan-download-report", "perfcast_plan_*.html", tmp_path)
    text = report.read_text()
    assert all(b.id in text for b in lib2.batch) and "simulations changed" in text
    assert "Round 2: 8 simulated values" in text


def test_bad_input_says_what_is_wrong(dash_duo, perfcast_app, tmp_path):
    full = plan_frame()
    meta = save(full, "typo table")
    start(dash_duo, perfcast_app, f"/plan?dataset={meta['id']}&cost=sim_hours&budget_kind=hours&budget=0.01")
    dash_duo.wait_for_contains_text("#plan-link-error", "below the cheapest candidate's cost", timeout=30)
    path = tmp_path / "typo.csv"
    pd.DataFrame({"workload": ["alpha-0", "alhpa-1"], "sim_cycles": [1e6, 2e6]}).to_csv(path, index=False)
    dash_duo.wait_for_element("#plan-results-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#plan-results-status", "not workloads of the dataset: alhpa-1", timeout=30)
    from dashboard.state import datasets

    assert [m["id"] for m in datasets.list_datasets() if m["name"].startswith("typo table")] == [meta["id"]]
