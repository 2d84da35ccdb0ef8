"""/predict in headless Chromium: the empty state says what to do; a user uploads a table of workloads
without a measured target, predicts, reads an interval and an applicability verdict per workload, downloads
the CSV (its content checked), and a colleague opens the share link in a fresh browser and sees the same
numbers; /scenario links here with its model."""

import re
import time

import pandas as pd
from selenium.webdriver.support.ui import WebDriverWait

from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.ui.url_state import to_query
from pc_browser import click_settled as click, fresh_browser, screenshot, share_link, start, text_in, until, wait_text
from tests.dashboard.predict.upload_table import workloads_to_predict

STATS = ["model-used", "level-asked", "coverage", "cv-error", "baseline-error", "counts"]


def upload_table(tmp_path):
    """12 shipped workloads (GTX-680 counters, their GTX-980 time as an extra column) and one made-up
    workload 100x larger than anything measured: it must be flagged."""
    df = workloads_to_predict(12)
    big = df.iloc[[0]].copy()
    num = [c for c in df.columns if c not in ("workload", "application")]
    big[num] = big[num] * 100
    big["workload"] = "made_up:100x"
    df = pd.concat([df, big], ignore_index=True)
    path = tmp_path / "to_predict.csv"
    df.to_csv(path, index=False)
    return df, path


def shown_cells(driver, selector):
    """The text of the cells ``selector`` names once the grid has drawn its rows (they come in a request of
    their own after the page's first answer)."""
    return until(driver, lambda: [c.text for c in driver.find_elements("css selector", selector)
                                  if c.text] or None, 60)


def stats(driver):
    return {s: text_in(driver, f"#predict-{s}", 60) for s in STATS}


def test_upload_predict_export_and_share(dash_duo, perfcast_app, tmp_path):
    start(dash_duo, perfcast_app, "/predict?target=GTX-980&model=NNLS&transform=logratio")
    dash_duo.wait_for_contains_text(".alert-error", "Nothing to predict", timeout=30)
    assert "Upload a table of workloads to predict" in dash_duo.find_element(".alert-error").text

    df, path = upload_table(tmp_path)
    dash_duo.wait_for_element("#predict-upload input[type=file]", timeout=15).send_keys(str(path))
    dash_duo.wait_for_contains_text("#predict-upload-status", "13 workload(s) to predict", timeout=30)
    assert "duration@GTX-980" in dash_duo.find_element("#predict-upload-status").text  # reported, never read
    click(dash_duo, "#predict-run")
    assert wait_text(dash_duo, "#predict-model-used", timeout=120) == "NNLS (logratio)"
    seen = stats(dash_duo.driver)
    assert seen["counts"].startswith("283 / 13 / ")
    assert seen["level-asked"] == "90 %" and seen["coverage"].endswith("%")
    dash_duo.wait_for_contains_text("#predict-warnings", "outside the training data", timeout=10)
    verdicts = until(dash_duo.driver, lambda: [c for c in shown_cells(dash_duo.driver, "#predict-table [col-id="
                                                                    "'applicable']") if c != "applicable"] or None)
    assert "✓ yes" in verdicts and "✗ no" in verdicts
    assert "not valid here" in dash_duo.find_element("#predict-table").text
    assert not dash_duo.driver.find_elements("css selector", "#predict-link-error .alert")  # the link's error went
    screenshot(dash_duo.driver, "predict-upload")

    # the CSV the server writes, with the provenance
    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    click(dash_duo, "#predict-download-csv")
    deadline = time.time() + 30
    while time.time() < deadline and not list(tmp_path.glob("predictions_*.csv")):
        time.sleep(0.2)
    got = pd.read_csv(next(tmp_path.glob("predictions_*.csv")))
    assert got["id"].tolist()[:12] == df["workload"].tolist()[:12] and len(got) == 13
    made_up = got.set_index("id").loc["made_up:100x"]
    assert not made_up["applicable"] and "outside the training range" in made_up["why"]
    assert got["applicable"].sum() >= 10
    assert (got["lower"] <= got["predicted"]).all() and (got["predicted"] <= got["upper"]).all()
    assert set(got["model"]) == {"NNLS"} and set(got["level"]) == {0.9} and set(got["unit"]) == {"s"}
    assert got["dataset_fingerprint"].nunique() == 1 and got["code_version"].notna().all()
    assert got["date"].str.startswith("20").all()
    measured = df.set_index("workload")["duration@GTX-980"]
    inside = [lo <= measured[i] <= hi for i, lo, hi in zip(got["id"], got["lower"], got["upper"]) if i in measured]
    assert sum(inside) >= 8  # measured workloads the model knows: their time mostly within the interval

    # the review report: one HTML file that draws its chart in a browser with no server at all
    click(dash_duo, "#predict-download-report")
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob("perfcast_predict_*.html")):
        time.sleep(0.2)
    report = next(tmp_path.glob("perfcast_predict_*.html"))
    text = report.read_text()
    assert "made_up:100x" in text and "outside the training range" in text and "code version" in text
    assert "project=default" in text  # the link reopens the view in its project
    markup = re.sub(r"<script>.*?</script>", "", text, count=1, flags=re.S)  # all but the inlined plotly.js
    assert not re.search(r"""(src|href)=['"]?(https?:)?//(?!127\.0\.0\.1|localhost)""", markup)  # no fetch
    offline = fresh_browser(signed_in=False)
    try:
        offline.get(report.as_uri())
        WebDriverWait(offline, 30).until(
            lambda d: d.find_elements("css selector", "#chart-0 .scatterlayer .trace"))
        assert "Predictions for GTX-980" in offline.find_element("css selector", "h1").text
    finally:
        offline.quit()

    link = share_link(dash_duo, "predict")
    assert "source=wp-" in link and "level=0.9" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert stats(other) == seen
        first = text_in(other, "#predict-table .ag-row", 30)
        assert first.split("\n")[0] == dash_duo.find_element("#predict-table .ag-row").text.split("\n")[0]
    finally:
        other.quit()

    # saved with its provenance, listed with a link that reopens it
    dash_duo.find_element("#predict-save-name").send_keys("lab runs on GTX-980")
    click(dash_duo, "#predict-save")
    dash_duo.wait_for_contains_text("#predict-save-status", "Saved as lab runs on GTX-980", timeout=20)
    dash_duo.wait_for_contains_text("#predict-saved-list", "NNLS (logratio), 13 workloads", timeout=10)
    href = dash_duo.find_element("#predict-saved-list a").get_attribute("href")
    assert "source=wp-" in href and "target=GTX-980" in href


def test_scenario_leaderboard_links_to_predict_with_its_model(dash_duo, perfcast_app):
    params = SCENARIO.request({"target": "GTX-970", "transform": "logratio"})["params"]
    cached(SCENARIO, params)
    start(dash_duo, perfcast_app, f"/scenario{to_query({**params, 'model': 'NNLS'})}")
    dash_duo.wait_for_contains_text("#scenario-predict-link", "Predict with NNLS (logratio)", timeout=30)
    click(dash_duo, "#scenario-predict-link")
    dash_duo.wait_for_contains_text("#predict-model-used", "NNLS (logratio)", timeout=120)
    assert text_in(dash_duo.driver, "#predict-counts", 30).startswith("251 / 32 / ")


def test_an_uploaded_datasets_predictions_are_in_its_unit_or_say_it_has_none(dash_duo, perfcast_app):
    """The unit typed at upload on the table, the chart and the provenance; without one, plain numbers (no SI
    prefix on nothing) and "no unit given", never an invented unit."""
    cells_of = "#predict-table .ag-row [col-id='predicted']"
    import numpy as np

    from dashboard.state import datasets

    rng = np.random.default_rng(7)
    n = 30
    a, b = rng.uniform(1, 10, n), rng.uniform(1, 5, n)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "a": a, "b": b, "t": 3 * a + b})
    df.loc[n - 5:, "t"] = np.nan  # five workloads to predict
    mapping = {"id_col": "workload", "group_col": None, "targets": ["t"], "features": ["a", "b"], "host_col": None,
               "repeat_col": None}
    timed = datasets.save_dataset(df.assign(t=df["t"] * 1000), "timed", mapping, unit="ms")  # ~5,000-35,000 ms
    bare = datasets.save_dataset(df.assign(t=df["t"] * 1e-4), "bare", mapping)  # ~0.0005-0.0035, no unit
    start(dash_duo, perfcast_app, f"/predict?dataset={timed['id']}&target=t&model=NNLS&transform=log")
    wait_text(dash_duo, "#predict-model-used", timeout=120)
    cells = shown_cells(dash_duo.driver, cells_of)  # the rows come from the server after the page
    assert cells and all(re.fullmatch(r"\d{1,3}(,\d{3})* ms", c) for c in cells), cells  # not "12.3 kms"
    assert "t (ms, log scale)" in text_in(dash_duo.driver, "#predict-graph .g-ytitle")
    assert "value (ms)" in dash_duo.find_element("#predict-provenance").text

    dash_duo.driver.get(dash_duo.server_url + f"/predict?dataset={bare['id']}&target=t&model=NNLS&transform=log")
    wait_text(dash_duo, "#predict-model-used", timeout=120)
    cells = shown_cells(dash_duo.driver, cells_of)
    assert cells and all(re.fullmatch(r"0\.00\d+", c) for c in cells), cells  # not "1.23 m" nor "1.23 mt"
    assert "t (no unit given, log scale)" in text_in(dash_duo.driver, "#predict-graph .g-ytitle")
    assert "value (no unit given)" in dash_duo.find_element("#predict-provenance").text
    assert "target units" not in dash_duo.driver.find_element("css selector", "body").text


GRID = "dash_ag_grid.getApi('predict-table')"


def _grid(driver, script):
    return driver.execute_script(f"const api = {GRID}; return {script};")


def _first_ids(driver, n):
    return _grid(driver, f"[...Array({n}).keys()].map(i => api.getDisplayedRowAtIndex(i)).map(r => r && r.data ? "
                         "r.data.id : null)")


def test_a_large_result_comes_a_block_at_a_time_sorted_and_filtered_on_the_server(dash_duo, perfcast_app,
                                                                                  tmp_path):
    """250 predictions: the page's first answer holds no row, the grid asks for the rows it shows (a block of
    100), scrolling to the end fetches the last rows, a sort and a filter apply to all 250 on the server, and
    the grid's CSV is every row of the view."""
    import numpy as np

    from dashboard import jobs
    from dashboard.predict import views
    from dashboard.predict.inputs import store_upload
    from dashboard.predict.kinds import PREDICT
    from dashboard.ui.paged_rows import BLOCK
    from tests.dashboard.predict.upload_table import data_url

    base = workloads_to_predict(25, step=3)
    table = pd.concat([base.assign(workload=base["workload"] + f"#{k}",
                                   **{c: base[c] * (1 + k / 10) for c in base.columns[2:-1]}) for k in range(10)],
                      ignore_index=True)
    scen = {"dataset": "rodinia", "host": "GTX-680", "target": "GTX-980", "metric": "duration"}
    meta, _ = store_upload(data_url(table), "many.csv", scen)
    params = PREDICT.request({**scen, "model": "NNLS", "transform": "logratio", "source": meta["id"]})["params"]
    key, run = cached(PREDICT, params)
    rows = views.table_rows(jobs.result_for({"key": key}))
    assert len(rows) == 250

    start(dash_duo, perfcast_app, f"/predict{to_query(params)}")
    until(dash_duo.driver, lambda: dash_duo.driver.execute_script(
        f"try {{ const api = {GRID}; return api && api.getDisplayedRowCount() === 250; }} "
        "catch (e) { return false; }"))
    assert _first_ids(dash_duo.driver, 5) == [r["id"] for r in rows[:5]]  # the table's order: by prediction
    loaded = _grid(dash_duo.driver, "(() => { let n = 0; api.forEachNode(r => { if (r.data) n++; }); return n; })()")
    assert loaded <= 2 * BLOCK < len(rows)  # not the whole table
    _grid(dash_duo.driver, "api.ensureIndexVisible(249)")
    until(dash_duo.driver, lambda: _grid(dash_duo.driver, "(api.getDisplayedRowAtIndex(249) || {}).data")
          is not None)
    assert _grid(dash_duo.driver, "api.getDisplayedRowAtIndex(249).data.id") == rows[249]["id"]

    # sorted on the server over all 250: the largest upper bound first
    _grid(dash_duo.driver, "api.applyColumnState({state: [{colId: 'upper', sort: 'desc'}], "
                           "defaultState: {sort: null}})")
    by_upper = sorted(rows, key=lambda r: -r["upper"])
    until(dash_duo.driver, lambda: _first_ids(dash_duo.driver, 3) == [r["id"] for r in by_upper[:3]])

    # filtered on the server: the workloads of one repeat, still sorted
    _grid(dash_duo.driver, "api.setFilterModel({id: {filterType: 'text', type: 'endsWith', filter: '#7'}})")
    kept = [r for r in by_upper if r["id"].endswith("#7")]
    until(dash_duo.driver, lambda: _grid(dash_duo.driver, "api.getDisplayedRowCount()") == len(kept) == 25)
    assert _first_ids(dash_duo.driver, 25) == [r["id"] for r in kept]
    assert dash_duo.find_element("#predict-table").text.count("#7") >= 5  # drawn, not only held

    # the grid's CSV: every row of the view, from the server
    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    click(dash_duo, "#predict-table-csv")
    until(dash_duo.driver, lambda: list(tmp_path.glob("predictions_view*.csv")), 30)
    got = pd.read_csv(next(tmp_path.glob("predictions_view*.csv")))
    assert got["workload"].tolist() == [r["id"] for r in kept]
    assert np.allclose(got["upper (s)"], [r["upper"] for r in kept], rtol=1e-12)
