"""/plan in headless Chromium with the farm's own output: a dataset whose workloads are named by their key,
a round planned, a zip of GPGPU-Sim logs for the batch uploaded (one run missing), the join report and the
missing run on the page, the second round's plan saying what the simulations changed, and the missing run put
first in the next batch by 'run again first'."""


from pc_browser import click_settled as click
from pc_browser import callbacks_settled, start, text_in, wait_text
from tests.dashboard.plan.test_plan_sim_upload import farm_zip, keyed_frame
from tests.dashboard.plan.plan_table import save


def test_a_zip_of_simulator_logs_closes_the_round_on_the_page(dash_duo, perfcast_app, tmp_path):
    full = keyed_frame()
    meta = save(full, "keyed table")
    start(dash_duo, perfcast_app, f"/plan?dataset={meta['id']}&cost=sim_hours&budget=6&strategy=diversity")
    click(dash_duo, "#plan-run")
    wait_text(dash_duo, "#plan-strategy-used", timeout=240)
    assert text_in(dash_duo.driver, "#plan-counts") == "30 / 30"
    rows = dash_duo.driver.find_elements("css selector", "#plan-batch .ag-pinned-left-cols-container .ag-row")
    ids = []
    for r in sorted(rows, key=lambda r: int(r.get_attribute("row-index"))):
        ids.append(r.text.split("\n")[1])
    assert len(ids) == 6
    truth = full.set_index("workload")["truth"]
    path = tmp_path / "farm_round1.zip"
    path.write_bytes(farm_zip(ids[:-1], truth))
    dash_duo.wait_for_element("#plan-results-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#plan-results-status", "Merged 5 simulated value(s)", timeout=60)
    report = text_in(dash_duo.driver, "#plan-join-report")
    assert "Joined on the workload key: 5 matched, 0 simulated record(s) not in the dataset" in report
    assert f"Missing from the batch: {ids[-1]}: no simulator output for it" in report
    dash_duo.wait_for_contains_text("#plan-dataset", "keyed table, round 2", timeout=20)
    callbacks_settled(dash_duo.driver)  # the cost choice follows the new dataset version
    click(dash_duo, "#plan-run")
    dash_duo.wait_for_contains_text("#plan-facts", "Round 2: 5 simulated values were merged", timeout=240)
    assert text_in(dash_duo.driver, "#plan-counts") == "35 / 25"
    moved = dash_duo.driver.find_elements("css selector", "#plan-round .ag-center-cols-container .ag-row")
    assert len(moved) == 5
    # the run that did not come back heads the next batch when asked, as plan --retry-missing puts it
    assert "Tick 'run again first' above" in report
    click(dash_duo, "#plan-retry input[type=checkbox]")
    click(dash_duo, "#plan-run")
    dash_duo.wait_for_contains_text("#plan-warnings", "whose simulation failed or did not come back head the batch",
                                    timeout=240)
    first = dash_duo.driver.find_element("css selector",
                                         "#plan-batch .ag-pinned-left-cols-container .ag-row[row-index='0']")
    assert first.text.split("\n")[1] == ids[-1]
    assert "retry=missing" in dash_duo.driver.current_url
