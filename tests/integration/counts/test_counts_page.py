"""/counts in headless Chromium: train and test a program, read the leaderboard against the modeling API,
switch the model shown, run every program, open the share link in a fresh browser; uploads get their reason."""

import pandas as pd
import pytest
from selenium.webdriver.support.ui import WebDriverWait

from modeling.counts import data
from modeling.counts.evaluate import evaluate_program
from pc_browser import fresh_browser, present, screenshot, share_link, start, text_in, wait_text

LINK = "/counts?source=cpu&program=gesummv&split=high-low&models=pnn-paper,glm,poly,best&seed=0&view=glm"


def _expected(program="gesummv", models=("pnn-paper", "glm", "poly", "best"), source="cpu"):
    """Each model's mean APE (%), computed by the library here, independently of the page."""
    res = evaluate_program(data.program(data.shipped(source), program), "high-low", models, 0,
                           {"hidden": 10, "activation": "tanh", "epochs": 1000, "batch_size": 32,
                            "learning_rate": 3e-3}, curve=False)
    return {m.model: m.mape for m in res.models}


def _percent(text: str) -> float:
    """The number of a page's "12.3 %"."""
    number, unit = text.rsplit(" ", 1)
    assert unit == "%", text
    return float(number)


def test_train_read_leaderboard_and_share(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, LINK)
    present(dash_duo.driver, "#counts-run")[0].click()
    got = wait_text(dash_duo, "#counts-pnn", timeout=180)
    want = _expected()
    assert _percent(got) == pytest.approx(want["pnn-paper"], rel=5e-3)  # shown to 3 significant digits
    assert text_in(dash_duo.driver, "#counts-best").endswith("exact (< 0.001 %)")  # loop counts are polynomials
    dash_duo.wait_for_contains_text("#counts-leaderboard", "Poisson GLM", timeout=30)
    dash_duo.wait_for_element("#counts-heatmap .heatmaplayer .hm, #counts-heatmap .heatmaplayer image",
                              timeout=30)
    assert "Poisson GLM" in text_in(dash_duo.driver, "#counts-heatmap .gtitle")  # the link's view kept
    dash_duo.wait_for_element("#counts-ratios .scatterlayer .trace", timeout=30)
    dash_duo.wait_for_contains_text("#counts-blocks", "kernel_gesummv", timeout=30)
    dash_duo.driver.execute_script("document.getElementById('counts-totals').scrollIntoView()")
    dash_duo.wait_for_contains_text("#counts-totals", "all blocks", timeout=30)
    dash_duo.wait_for_element("#counts-curve .scatterlayer .trace", timeout=30)
    screenshot(dash_duo.driver, "counts")
    link = share_link(dash_duo, "counts")
    assert "program=gesummv" in link and "models=pnn-paper%2Cglm%2Cpoly%2Cbest" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#counts-pnn", 60) == got  # the cached result, no retraining
    finally:
        other.quit()


def test_every_program_of_the_gpu_events(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/counts?source=gpu&models=glm,poly,best")
    present(dash_duo.driver, "#counts-all-run")[0].click()
    dash_duo.wait_for_element("#counts-all-graph .barlayer .trace", timeout=180)
    dash_duo.driver.execute_script("document.getElementById('counts-all-grid').scrollIntoView()")
    dash_duo.wait_for_contains_text("#counts-all-grid", "bpnn_adjust_weights_cuda", timeout=30)


def test_an_uploaded_count_table_is_used_and_a_bad_one_gets_its_reason(dash_duo, perfcast_app, tmp_path):
    good = tmp_path / "lab counts.csv"
    pd.DataFrame([{"program": "stencil", "N": n, "block": "sweep:3", "count": 3 * n * n}
                  for n in range(8, 200, 8)]).to_csv(good, index=False)
    bad = tmp_path / "negative.csv"
    bad.write_text("program,N,block,count\np,1,b,3\np,2,b,-4\n")
    start(dash_duo, perfcast_app, "/counts")
    upload = dash_duo.wait_for_element("#counts-upload input[type=file]", timeout=15)
    upload.send_keys(str(bad))
    dash_duo.wait_for_contains_text("#counts-upload-status", "zero or more", timeout=30)
    dash_duo.wait_for_element("#counts-upload input[type=file]", timeout=15).send_keys(str(good))
    dash_duo.wait_for_contains_text("#counts-upload-status", "1 programs", timeout=30)
    dash_duo.wait_for_contains_text("#counts-program", "stencil", timeout=15)
    assert "source=cd-" in share_link(dash_duo, "counts", containing="source=cd-")  # the upload is the source


def test_predict_at_an_unmeasured_input_export_and_share(dash_duo, perfcast_app, tmp_path):
    """gemm at NI=1000, NJ=500, NK=250 (never run; measured up to 120): the exact loop counts, the CSV with its
    provenance, and the same numbers from the share link in a fresh browser."""
    import time

    from modeling.counts.predict import parse_inputs, predict_counts

    start(dash_duo, perfcast_app, "/counts")
    box = dash_duo.wait_for_element("#counts-at", timeout=30)
    assert "NI=240,NJ=240,NK=240" in box.get_attribute("value")  # the default: twice the largest measured sizes
    box.clear()
    box.send_keys("NI=1000,NJ=500,NK=250\n")
    present(dash_duo.driver, "#counts-pred-run")[0].click()
    exact = wait_text(dash_duo, "#counts-pred-exact", timeout=180)
    prog = data.program(data.shipped("cpu"), "gemm")
    want = predict_counts(prog, parse_inputs(["NI=1000,NJ=500,NK=250"], prog.params), "best").cli_json()
    assert exact == f"{want['n_exact']} of {want['n_blocks']}" == "36 of 36"
    dash_duo.driver.execute_script("document.getElementById('counts-pred-table').scrollIntoView()")
    dash_duo.wait_for_contains_text("#counts-pred-table", "125,000,000", timeout=30)  # NI·NJ·NK, exactly
    dash_duo.wait_for_element("#counts-pred-graph .scatterlayer .trace", timeout=30)
    assert "log" in text_in(dash_duo.driver, "#counts-pred-graph .g-ytitle")
    screenshot(dash_duo.driver, "counts-predict")

    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    present(dash_duo.driver, "#counts-pred-download-csv")[0].click()
    deadline = time.time() + 30
    while time.time() < deadline and not list(tmp_path.glob("counts_gemm_best.csv")):
        time.sleep(0.2)
    got = pd.read_csv(tmp_path / "counts_gemm_best.csv")
    assert len(got) == 36 and set(got["how"]) == {"exact"}
    assert got.set_index("block").loc["kernel_gemm:6", "predicted"] == 1000 * 500 * 250
    assert got[["NI", "NJ", "NK"]].drop_duplicates().values.tolist() == [[1000, 500, 250]]
    assert got["code_version"].notna().all() and got["table"].eq("cpu").all() and got["date"].str.startswith("20").all()
    assert got["predicted"].tolist() == [r["predicted"] for r in want["predictions"]]

    # the review report: opened with no server, its charts drawn, the exact count in its table
    present(dash_duo.driver, "#counts-pred-download-report")[0].click()
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob("perfcast_counts_gemm.html")):
        time.sleep(0.2)
    report = tmp_path / "perfcast_counts_gemm.html"
    assert "125000000" in report.read_text() and "baseline (size scaling)" in report.read_text()
    offline = fresh_browser(signed_in=False)
    try:
        offline.get(report.as_uri())
        WebDriverWait(offline, 30).until(lambda d: d.find_elements("css selector", "#chart-0 .scatterlayer .trace"))
    finally:
        offline.quit()

    # saved with the other methods' predictions: listed on /predict with a link back to /counts
    dash_duo.find_element("#counts-pred-save-name").send_keys("gemm at 1000x500x250")
    present(dash_duo.driver, "#counts-pred-save")[0].click()
    dash_duo.wait_for_contains_text("#counts-pred-save-status", "Saved as gemm at 1000x500x250", timeout=20)

    link = share_link(dash_duo, "counts")
    assert "at=NI%3D1000%2CNJ%3D500%2CNK%3D250" in link and "pmodel=best" in link
    shown = text_in(dash_duo.driver, "#counts-pred-provenance")
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#counts-pred-exact", 60) == exact  # the cached result, drawn by the layout
        assert text_in(other, "#counts-pred-provenance", 30) == shown  # same numbers, same computation
        other.execute_script("document.getElementById('counts-pred-table').scrollIntoView()")
        WebDriverWait(other, 30).until(lambda d: "125,000,000" in d.find_element("id", "counts-pred-table").text)
    finally:
        other.quit()
    start(dash_duo, perfcast_app, "/predict")
    dash_duo.wait_for_contains_text("#predict-saved-list", "gemm at 1000x500x250", timeout=30)
    item = next(li for li in dash_duo.driver.find_elements("css selector", "#predict-saved-list li")
                if "gemm at 1000x500x250" in li.text)
    assert "counts at new inputs: gemm at NI=1,000" in item.text and "36 of 36 blocks exact" in item.text
    href = item.find_element("css selector", "a").get_attribute("href")
    assert "/counts?" in href and "pmodel=best" in href
