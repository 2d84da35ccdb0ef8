"""Nothing is lost by one click: a dataset deleted on /data (after a confirm) is gone everywhere and in the
trash; restored from /trash it is back with the same bytes, and its scenario runs."""

import time

import numpy as np
import pandas as pd
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from dashboard.state import datasets, trash
from pc_browser import choose, present, screenshot, start, wait_text


def _csv(tmp_path):
    rng = np.random.default_rng(11)
    n = 30
    a, b = rng.uniform(1, 10, n), rng.uniform(1, 5, n)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "application": [f"app{i % 5}" for i in range(n)],
                       "instructions": a, "loads": b, "host_time": 2 * a + b,
                       "target_time": 3 * a + 0.5 * b + 0.01 * rng.standard_normal(n)})
    path = tmp_path / "kept safe.csv"
    df.to_csv(path, index=False)
    return path


def _gone(dash_duo, selector, text, timeout=10):
    deadline = time.time() + timeout
    while text in dash_duo.find_element(selector).text and time.time() < deadline:
        time.sleep(0.1)
    assert text not in dash_duo.find_element(selector).text


def _confirm(driver):
    WebDriverWait(driver, 10).until(expected_conditions.alert_is_present()).accept()


def test_delete_goes_to_the_trash_and_restore_brings_it_back(dash_duo, perfcast_app, tmp_path):
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(_csv(tmp_path)))
    dash_duo.wait_for_contains_text("#data-preview", "w0", timeout=20)
    choose(dash_duo, "#data-targets", "target_time")
    choose(dash_duo, "#data-host-col", "host_time")
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 30 workloads", timeout=20)
    ds = datasets.list_datasets()[0]["id"]
    before = trash._files(trash.KINDS["dataset"].live(ds))
    table = datasets.dataset_table(ds).copy()

    # delete (asked first), and it is gone: the list, the dropdowns, a link
    dash_duo.wait_for_contains_text("#data-datasets", ds, timeout=10)
    present(dash_duo.driver, f'button[id*="{ds}"]')[0].click()
    _confirm(dash_duo.driver)
    dash_duo.wait_for_contains_text("#data-delete-status", "to the trash", timeout=10)
    _gone(dash_duo, "#data-datasets", ds)
    assert ds not in [o["value"] for o in datasets.options()]
    dash_duo.driver.get(dash_duo.server_url + f"/scenario?dataset={ds}")
    dash_duo.wait_for_contains_text(".alert", "not found", timeout=15)

    # in the trash, with who and when; restore it
    dash_duo.driver.get(dash_duo.server_url + "/trash")
    dash_duo.wait_for_contains_text("#trash-list", ds, timeout=15)
    row = next(r for r in dash_duo.driver.find_elements("css selector", ".trash-item") if ds in r.text)
    assert "kept safe" in row.text and "tester" in row.text and "30" in row.text
    screenshot(dash_duo.driver, "trash")
    row.find_element("css selector", "button").click()
    dash_duo.wait_for_contains_text("#trash-status", f"Restored the dataset kept safe ({ds})", timeout=15)
    _gone(dash_duo, "#trash-list", ds)
    assert trash._files(trash.KINDS["dataset"].live(ds)) == before and datasets.verify_dataset(ds)
    pd.testing.assert_frame_equal(datasets.dataset_table(ds), table)
    assert dash_duo.find_element("#trash-restored-link").get_attribute("href").endswith(f"/scenario?dataset={ds}")

    # back everywhere, and usable: its scenario link runs
    dash_duo.driver.get(dash_duo.server_url + "/data")
    dash_duo.wait_for_contains_text("#data-datasets", ds, timeout=15)
    dash_duo.driver.get(dash_duo.server_url + f"/scenario?dataset={ds}&target=target_time&folds=5&preset=halwpe")
    assert wait_text(dash_duo, "#scenario-best-eout", timeout=180).endswith("%")


def test_emptying_the_trash_asks_first_and_removes_for_good(dash_duo, perfcast_app):
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(6)], "a": np.arange(6.0), "t": np.arange(1.0, 7.0)})
    meta = datasets.save_dataset(df, "to be emptied", {"id_col": "workload", "group_col": None, "targets": ["t"],
                                                       "features": ["a"], "host_col": None, "repeat_col": None})
    record = datasets.delete_dataset(meta["id"])
    start(dash_duo, perfcast_app, "/trash")
    dash_duo.wait_for_contains_text("#trash-list", meta["id"], timeout=15)
    dash_duo.find_element("#trash-empty").click()
    alert = WebDriverWait(dash_duo.driver, 10).until(expected_conditions.alert_is_present())
    assert "for good" in alert.text
    alert.dismiss()
    assert meta["id"] in [r["id"] for r in trash.list_trash()]
    dash_duo.find_element("#trash-empty").click()
    _confirm(dash_duo.driver)
    dash_duo.wait_for_contains_text("#trash-status", "Emptied the trash", timeout=15)
    dash_duo.wait_for_contains_text("#trash-list", "The trash is empty", timeout=10)
    assert trash.list_trash() == [] and not (trash._root() / record["entry"]).exists()


def test_saved_scenarios_and_predictions_are_deleted_to_the_trash(dash_duo, perfcast_app):
    """/scenario's and /predict's saved lists have a delete button (asked first); both land in the trash."""
    from dashboard.state import predictions, scenarios

    sc = scenarios.save_scenario("scenario", {"dataset": "rodinia", "seed": time.time_ns()},
                                 {"best": "NNLS", "e_out": 12.5, "query": "target=GTX-970"}, "scenario to bin")["id"]
    pr = predictions.save_prediction({"params": {"host": "GTX-680", "target": "GTX-980"}, "provenance": {}},
                                     f"predict-{time.time_ns():032d}", pd.DataFrame({"id": ["w0"]}),
                                     {"model": "NNLS"}, "prediction to bin")["id"]
    start(dash_duo, perfcast_app, "/scenario")
    for page, item, name in (("scenario", sc, "scenario to bin"), ("predict", pr, "prediction to bin")):
        dash_duo.driver.get(dash_duo.server_url + f"/{page}")
        dash_duo.wait_for_contains_text(f"#{page}-saved-list", name, timeout=20)
        present(dash_duo.driver, f'button[id*="{item}"]')[0].click()
        alert = WebDriverWait(dash_duo.driver, 10).until(expected_conditions.alert_is_present())
        assert name in alert.text and "trash" in alert.text
        alert.accept()
        dash_duo.wait_for_contains_text(f"#{page}-delete-status", "to the trash", timeout=10)
        _gone(dash_duo, f"#{page}-saved-list", name)
    dash_duo.driver.get(dash_duo.server_url + "/trash")
    dash_duo.wait_for_contains_text("#trash-list", "prediction to bin", timeout=15)
    assert "scenario to bin" in dash_duo.find_element("#trash-list").text
    assert {(r["kind"], r["id"]) for r in trash.list_trash()} >= {("scenario", sc), ("prediction", pr)}
