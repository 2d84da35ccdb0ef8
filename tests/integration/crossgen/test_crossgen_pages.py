"""Features, generations, repeats and apply pages in headless Chromium, checked against the modeling API."""

import time

import numpy as np

from modeling import shipped
from modeling.crossgen.apply import apply_model
from modeling.crossgen.ensemble import prepare
from modeling.crossgen.ranking import rank_features
from modeling.tables.repeats import mad_window
from pc_browser import choose, fresh_browser, present, screenshot, share_link, start, text_in, wait_text


def test_features_ranking_matches_api_and_link(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/features")
    choose(dash_duo, "#features-model", "NNLS/Forward/BIC")
    dash_duo.find_element("#features-run").click()
    top = wait_text(dash_duo, "#features-top-feature", timeout=120)
    s = shipped.scenario("GTX-680", "GTX-980")
    d = prepare(s["X"], s["y"], s["feature_names"], s["workload_ids"], s["groups"], True, s["host_index"])
    rank = rank_features(d["X"], d["y"], d["names"], "NNLS/Forward/BIC", seed=0)
    assert top == rank.features[0]["feature"]
    assert dash_duo.find_element("#features-n-ranked").text == str(len(rank.features))
    dash_duo.wait_for_contains_text("#features-grid", rank.features[-1]["feature"])
    screenshot(dash_duo.driver, "features")
    link = share_link(dash_duo, "features")
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#features-top-feature") == top
    finally:
        other.quit()


def test_generations_side_by_side(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/generations?dataset=rodinia&host=GTX-680&targets=GTX-980,Tesla-P100"
                                  "&preset=halwpe&left=GTX-980&right=Tesla-P100")
    dash_duo.wait_for_contains_text("#generations-summary-grid", "Tesla-P100", timeout=240)
    dash_duo.wait_for_element("#generations-speedup-graph .scatterlayer .trace", timeout=30)
    dash_duo.wait_for_element("#generations-pair-graph .scatterlayer .trace", timeout=30)
    grid = dash_duo.find_element("#generations-summary-grid").text
    assert "GTX-980" in grid and "RandomForest" in grid
    # the speedups on the page are host time / target time from the shipped table
    w = shipped.workloads()
    sp = (w["duration@GTX-680"] / w["duration@Tesla-P100"]).dropna()
    trace = dash_duo.driver.execute_script(
        "const g = document.querySelector('#generations-speedup-graph .js-plotly-plot');"
        "return g.data.find(t => t.name === 'Tesla-P100').y;")
    assert np.allclose(sorted(trace), np.sort(sp.to_numpy()), rtol=1e-9)
    # one x position is one workload on every curve
    orders = dash_duo.driver.execute_script(
        "const g = document.querySelector('#generations-speedup-graph .js-plotly-plot');"
        "return g.data.map(t => t.x.map((x, i) => [x, t.customdata[i][0]]));")
    by_x = [dict(o) for o in orders]
    assert all(by_x[0][x] == by_x[1][x] for x in set(by_x[0]) & set(by_x[1]))
    assert "No simulator times in this dataset" in dash_duo.find_element("#generations-sim-note").text
    # beside the measured speedups, the predicted ones of the ordering target: host time / the best model's
    # out-of-fold prediction, from the scenario result computed independently here
    from dashboard.crossgen.kinds import SCENARIO, cached

    params = SCENARIO.request({"dataset": "rodinia", "host": "GTX-680", "target": "Tesla-P100",
                               "preset": "halwpe"})["params"]
    _, scen = cached(SCENARIO, params)
    oof = dict(zip(scen.ensemble.workload_ids, scen.best.oof_prediction))
    want = {wid: w.set_index("workload").loc[wid, "duration@GTX-680"] / p for wid, p in oof.items()}
    got = dash_duo.driver.execute_script(
        "const g = document.querySelector('#generations-speedup-graph .js-plotly-plot');"
        "const t = g.data.find(t => t.name.startsWith('Tesla-P100 predicted'));"
        "return t ? t.y.map((y, i) => [t.customdata[i][0], y]) : null;")
    assert got and len(got) == len(sp)
    assert all(np.isclose(y, want[wid], rtol=1e-9) for wid, y in got)
    screenshot(dash_duo.driver, "generations")
    # the shared link opens drawn from the cache: same table, both charts
    link = share_link(dash_duo, "generations")
    other = fresh_browser()
    try:
        other.get(link)
        present(other, "#generations-pair-graph .scatterlayer .trace", timeout=30)
        assert "RandomForest" in text_in(other, "#generations-summary-grid .ag-row")
        again = other.execute_script(
            "const g = document.querySelector('#generations-speedup-graph .js-plotly-plot');"
            "return g.data.find(t => t.name === 'Tesla-P100').y;")
        assert again == trace
    finally:
        other.quit()


def test_repeats_window_follows_k(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/repeats?dataset=rodinia&workload=calculate_temp:1024x1024&measure=duration&k=3")
    n_out = wait_text(dash_duo, "#repeats-outliers", timeout=30)
    raw = shipped.raw_launches()
    vals = raw.loc[(raw["input_size_1"] == 1024) & (raw["input_size_2"] == 1024), "duration"].to_numpy()
    assert n_out == str(mad_window(vals, 3).n_outliers)
    assert dash_duo.find_element("#repeats-runs").text == str(len(vals))
    screenshot(dash_duo.driver, "repeats")
    link = share_link(dash_duo, "repeats")
    assert "k=3" in link
    other = fresh_browser()
    try:
        other.get(link.replace("k=3", "k=7"))
        text_in(other, "#repeats-outliers")
        deadline = time.time() + 10
        want = str(mad_window(vals, 7).n_outliers)
        while other.find_element("id", "repeats-outliers").text != want and time.time() < deadline:
            time.sleep(0.1)
        assert other.find_element("id", "repeats-outliers").text == want
    finally:
        other.quit()


def test_apply_without_retraining_matches_api(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/apply")
    dash_duo.wait_for_element("#apply-run", timeout=15).click()
    e_val = wait_text(dash_duo, "#apply-e-val", timeout=120)
    res = apply_model(shipped.scenario("Tesla-K40", "GTX-980"), shipped.scenario("Tesla-K20", "GTX-980"),
                      "RandomForest", "none", 0)
    assert e_val == f"{res.e_validation:.2f} %"
    assert dash_duo.find_element("#apply-ir10").text == f"{res.inlier_ratio['10']:.1f} %"
    screenshot(dash_duo.driver, "apply")


def test_home_links_every_page(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/")
    for name in ("scenario", "features", "generations", "repeats", "apply", "data"):
        dash_duo.wait_for_element(f"#home-link-{name}")
    screenshot(dash_duo.driver, "home")
    dash_duo.find_element("#home-link-repeats").click()
    dash_duo.wait_for_element("#repeats-graph", timeout=15)
