"""Upload, map and save a dataset in the browser, then run a scenario on it; bad files are refused."""

import numpy as np
import pandas as pd
from selenium.webdriver.common.keys import Keys

from dashboard.state import datasets
from modeling.crossgen.ensemble import run_ensemble
from modeling.tables.workload import table_scenario
from pc_browser import choose, screenshot, start, wait_text


def _good_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 40
    a, b, c = rng.uniform(1, 10, n), rng.uniform(1, 5, n), rng.uniform(0, 1, n)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "application": [f"app{i % 5}" for i in range(n)],
                       "instructions": a, "loads": b, "noise": c, "host_time": 2 * a + b,
                       "target_time": 3 * a + 0.5 * b + 0.01 * rng.standard_normal(n)})
    path = tmp_path / "my workloads.csv"
    df.to_csv(path, sep=";", index=False)
    return path, df


def test_upload_map_save_and_run(dash_duo, perfcast_app, tmp_path):
    path, df = _good_csv(tmp_path)
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(path))
    dash_duo.wait_for_contains_text("#data-upload-status", "delimiter: semicolon", timeout=20)
    dash_duo.wait_for_contains_text("#data-preview", "w0", timeout=10)
    choose(dash_duo, "#data-targets", "target_time")
    choose(dash_duo, "#data-host-col", "host_time")
    # the host's own metric is also a feature: said before Save
    dash_duo.wait_for_contains_text("#data-host-info", "host_time is the host's own metric", timeout=15)
    assert "also one of the features" in dash_duo.find_element("#data-host-info").text
    # a unit that is not plain text is refused on the server, and nothing is saved or lost
    before = len(datasets.list_datasets())
    unit = dash_duo.find_element("#data-unit")
    unit.send_keys("<b>ms</b>")
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Not saved: The target unit may hold letters", timeout=20)
    assert len(datasets.list_datasets()) == before
    unit.send_keys(Keys.CONTROL, "a")
    unit.send_keys(Keys.DELETE)
    unit.send_keys("ms")
    screenshot(dash_duo.driver, "data")
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 40 workloads", timeout=20)
    assert "target values in ms" in dash_duo.find_element("#data-save-status").text
    meta = datasets.list_datasets()[0]
    assert meta["mapping"]["targets"] == ["target_time"] and meta["mapping"]["group_col"] == "application"
    assert meta["target_unit"] == "ms" and datasets.verify_dataset(meta["id"])
    dash_duo.wait_for_contains_text("#data-datasets", meta["id"])
    assert "targets: target_time in ms" in dash_duo.find_element("#data-datasets").text

    dash_duo.driver.get(dash_duo.server_url + f"/scenario?dataset={meta['id']}&target=target_time&folds=5")
    eout = wait_text(dash_duo, "#scenario-best-eout", timeout=120)
    # the values' unit on the page that shows them, never an invented one; the host time among the features
    summary = dash_duo.find_element("#scenario-summary").text
    assert "→ target_time, the target_time column (ms);" in summary
    assert "host_time, the host's own measure of the target metric" in summary
    assert wait_text(dash_duo, "#scenario-workload-graph .g-ytitle") == "target (ms, log scale)"
    assert "target units" not in dash_duo.driver.find_element("css selector", "body").text
    s = table_scenario(datasets.dataset_table(meta["id"]), "target_time", "application", "workload",
                       meta["mapping"]["features"], "host_time")
    res = run_ensemble(s["X"], s["y"], models="halwpe", folds=5, host_index=s["host_index"], seed=0,
                       groups=s["groups"], drop_constant=True)
    assert eout == f"{res.star[1]:.2f} %"  # the ★: the lowest E_out, the baseline counted


def test_bad_uploads_are_refused_with_a_message(dash_duo, perfcast_app, tmp_path):
    before = len(datasets.list_datasets())
    start(dash_duo, perfcast_app, "/data")
    cases = [
        ("latin1.csv", "a,b\n1,caf\xe9\n".encode("cp1252"), "not UTF-8"),
        ("dups.csv", b"a,a,b\n1,2,3\n", "Duplicate column names: a"),
        ("ragged.csv", b"a,b\n1,2\n3,4,5\n", "Row 3 has 3 fields"),
        ("empty.csv", b"a,b,c\n", "no data rows"),
        ("model.pkl", b"\x80\x04\x95junk", "Pickled or joblib files are never loaded"),
        ("sheet.csv", b"PK\x03\x04rest-of-a-zip", "Excel"),
    ]
    for name, content, message in cases:
        p = tmp_path / name
        p.write_bytes(content)
        dash_duo.find_element("#data-upload input[type=file]").send_keys(str(p))
        dash_duo.wait_for_contains_text("#data-upload-status", message, timeout=15)
        assert "Nothing was imported" in dash_duo.find_element("#data-upload-status").text
    assert len(datasets.list_datasets()) == before


def test_an_empty_target_is_kept_to_predict_and_text_in_a_target_is_refused(dash_duo, perfcast_app, tmp_path):
    """Empty / N/A target cells are workloads not measured there: the preview says they are kept to predict
    and Save keeps them; text that is not a number in a target is refused with its row, nothing saved."""
    before = len(datasets.list_datasets())
    p = tmp_path / "nan_target.csv"
    p.write_text("workload,x1,x2,t\nw1,1,2,3\nw2,2,3,N/A\nw3,3,1,5\nw4,4,4,6\nw5,5,2,\nw6,6,5,8\n")
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(p))
    dash_duo.wait_for_contains_text("#data-columns", "2 empty/N/A values", timeout=15)
    choose(dash_duo, "#data-targets", "t")
    dash_duo.wait_for_contains_text("#data-target-info", "2 workloads have no value for t: they are kept as "
                                    "workloads to predict (see /predict), not trained on (w2, w5)", timeout=15)
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 6 workloads", timeout=15)
    assert "2 workloads have no value for t" in dash_duo.find_element("#data-save-status").text
    meta = datasets.list_datasets()[0]
    assert meta["rows"] == 6 and len(datasets.list_datasets()) == before + 1

    bad = tmp_path / "text_target.csv"
    bad.write_text("workload,x1,x2,t\nw1,1,2,3\nw2,2,3,4\nw3,3,1,5\nw4,4,4,6\nw5,5,2,7\nw6,6,5,3.2GHz\n")
    dash_duo.driver.get(dash_duo.server_url + "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]")
    dash_duo.find_element("#data-upload input[type=file]").send_keys(str(bad))
    dash_duo.wait_for_contains_text("#data-columns", "non-numeric values dropped", timeout=15)
    choose(dash_duo, "#data-targets", "t")
    dash_duo.wait_for_contains_text("#data-target-info", "not numbers (data rows 6)", timeout=15)
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Target column 't' has 1 value(s) that are not numbers",
                                    timeout=15)
    assert "Not saved" in dash_duo.find_element("#data-save-status").text
    assert len(datasets.list_datasets()) == before + 1


def test_parquet_upload_with_hostile_names_is_shown_as_text(dash_duo, perfcast_app, tmp_path):
    rng = np.random.default_rng(5)
    n = 30
    hostile_col = '<img src=x onerror="window.__pwned=1">'
    df = pd.DataFrame({"workload": [f"k{i}" for i in range(n)], "application": [f"a{i % 3}" for i in range(n)],
                       hostile_col: rng.uniform(1, 9, n), "loads": rng.uniform(1, 3, n)})
    df["target_time"] = 2 * df[hostile_col] + df["loads"]
    path = tmp_path / "profile.parquet"
    df.to_parquet(path, index=False)
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(path))
    dash_duo.wait_for_contains_text("#data-upload-status", "Read profile.parquet", timeout=20)
    dash_duo.wait_for_contains_text("#data-preview", "k0", timeout=10)
    choose(dash_duo, "#data-targets", "target_time")
    name = dash_duo.find_element("#data-name")
    name.send_keys(Keys.CONTROL, "a")
    name.send_keys(Keys.DELETE)
    name.send_keys('<img src=x onerror="window.__pwned=1"> [x](javascript:window.__pwned=2)')
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 30 workloads", timeout=20)
    meta = next(m for m in datasets.list_datasets() if m["rows"] == 30 and "profile" not in m["name"])
    assert hostile_col in meta["mapping"]["features"]
    listing = dash_duo.find_element("#data-datasets")
    dash_duo.wait_for_contains_text("#data-datasets", "[x](javascript:", timeout=10)
    assert '<img src=x onerror="window.__pwned=1">' in listing.text  # the name as literal text
    assert not listing.find_elements("css selector", "img, a[href^='javascript']")
    # the same name and column on the pages that show them
    dash_duo.driver.get(dash_duo.server_url + f"/features?dataset={meta['id']}&host=table&target=target_time"
                                              "&model=OLS")
    dash_duo.wait_for_contains_text("#features-grid", "onerror", timeout=120)
    assert not dash_duo.driver.find_elements("css selector", "#features-grid img, #features-dataset img")
    assert "onerror" in dash_duo.find_element("#features-dataset").text
    assert dash_duo.driver.execute_script("return window.__pwned === undefined")


def test_a_grids_csv_export_runs_no_formula_and_keeps_numbers(dash_duo, perfcast_app, tmp_path):
    """The preview grid's "Export CSV" (AG Grid's own export in the browser) writes a workload named like a
    formula after an apostrophe, as the server-made CSVs do, and negative numbers as numbers."""
    import csv
    import time

    df = pd.DataFrame({"workload": ['=HYPERLINK("http://evil.example","x")', "@SUM(A1)", "w2"],
                       "application": ["a", "b", "c"], "note": ["", "-O2", " "], "x": [-1.5, 2.0, 3.0],
                       "t": [1.0, 2.0, 3.0]})
    path = tmp_path / "formulas.csv"
    df.to_csv(path, index=False)
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(path))
    dash_duo.wait_for_contains_text("#data-preview", "w2", timeout=20)
    dash_duo.find_element("#data-preview-csv").click()
    deadline = time.time() + 30
    while time.time() < deadline and not list(downloads.glob("*.csv")):
        time.sleep(0.2)
    rows = list(csv.DictReader(next(downloads.glob("*.csv")).open(encoding="utf-8-sig")))
    assert [r["workload"] for r in rows] == ["'" + df["workload"][0], "'@SUM(A1)", "w2"]
    assert [float(r["x"]) for r in rows] == [-1.5, 2.0, 3.0]
    assert [r["note"] for r in rows] == ["", "'-O2", " "]  # an empty cell stays empty
