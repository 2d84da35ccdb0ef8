"""/compare in headless Chromium: two saved scenarios side by side, checked against their results read here."""

import time

from dashboard.crossgen.compare_views import starred
from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.ui.url_state import to_query
from pc_browser import choose, download_report, fresh_browser, screenshot, share_link, start, text_in, wait_text


def _entries(run):
    res = run.ensemble
    return {**{m.model: m for m in res.models}, res.baseline.model: res.baseline}


def _star(run):
    e = _entries(run)
    name = min(e, key=lambda n: (e[n].e_out, n))
    return name, e[name].e_out


def _save_from_the_page(dash_duo, app, params, name):
    start(dash_duo, app, f"/scenario{to_query(params)}")
    wait_text(dash_duo, "#scenario-best-eout", timeout=60)
    dash_duo.find_element("#scenario-save-name").send_keys(name)
    dash_duo.find_element("#scenario-save").click()
    dash_duo.wait_for_contains_text("#scenario-save-status", "Saved as", timeout=15)


def test_two_saved_scenarios_side_by_side(dash_duo, perfcast_app, tmp_path):
    tag = time.time_ns()
    runs = {}
    for side, target in (("A", "Tesla-K40"), ("B", "Tesla-P100")):
        # seed 11: not the form's defaults, which other tests expect to find uncached
        params = SCENARIO.request({"host": "GTX-680", "target": target, "preset": "halwpe", "seed": "11"})["params"]
        _, runs[side] = cached(SCENARIO, params)
        _save_from_the_page(dash_duo, perfcast_app, params, f"{side} {target} {tag}")
    # the saved list shows each run's star: the lowest E_out, the baseline's when it wins
    star_b, e_b = _star(runs["B"])
    dash_duo.wait_for_contains_text("#scenario-saved-list", f"B Tesla-P100 {tag} — ★ {star_b} E_out {e_b:.2f} %",
                                    timeout=10)

    start(dash_duo, perfcast_app, "/compare")
    names = {}
    for side, target in (("A", "Tesla-K40"), ("B", "Tesla-P100")):
        from dashboard.state import scenarios

        rec = next(s for s in scenarios.list_scenarios("scenario") if s["name"] == f"{side} {target} {tag}")
        names[side] = f"{rec['name']} ({starred(rec['summary'])})"
        choose(dash_duo, f"#compare-{side.lower()}", names[side])
    dash_duo.find_element("#compare-run").click()
    star_a, e_a = _star(runs["A"])
    assert wait_text(dash_duo, "#compare-star-a", timeout=120) == star_a
    assert dash_duo.find_element("#compare-star-b").text == star_b
    assert dash_duo.find_element("#compare-eout-b").text == f"{e_b:.2f} %"
    # the inputs grid marks the target, the only input that differs
    dash_duo.wait_for_contains_text("#compare-inputs", "Tesla-P100", timeout=10)
    differs = dash_duo.driver.execute_script(
        "return [...document.querySelectorAll('#compare-inputs .ag-center-cols-container .ag-row')]"
        ".filter(r => r.querySelector('[col-id=differs]').innerText.trim() === 'yes')"
        ".map(r => r.querySelector('[col-id=input]').innerText.trim());")
    assert differs == ["target"]
    # RandomForest's row: E_out in each run and B − A in points, as the two results have them
    rf_a, rf_b = _entries(runs["A"])["RandomForest"].e_out, _entries(runs["B"])["RandomForest"].e_out
    dash_duo.wait_for_contains_text("#compare-models", "RandomForest", timeout=10)
    cells = dash_duo.driver.execute_script(
        "const r = [...document.querySelectorAll('#compare-models .ag-row')].find(r => "
        "r.querySelector('[col-id=model]') && r.querySelector('[col-id=model]').innerText.trim() === 'RandomForest');"
        "const i = r.getAttribute('row-index');"
        "return [...document.querySelectorAll(`#compare-models .ag-row[row-index='${i}'] [col-id]`)]"
        ".reduce((o, c) => Object.assign(o, {[c.getAttribute('col-id')]: c.innerText.trim()}), {});")
    assert cells["e_out_a"] == f"{rf_a:,.2f}" and cells["e_out_b"] == f"{rf_b:,.2f}"
    assert cells["delta"].replace("−", "-") == f"{rf_b - rf_a:,.2f}"  # d3 writes a minus sign
    # per-workload errors of RandomForest in both, on the workloads both runs scored
    choose(dash_duo, "#compare-model_a", "RandomForest")
    choose(dash_duo, "#compare-model_b", "RandomForest")
    ape = {s: dict(zip(runs[s].ensemble.workload_ids, _entries(runs[s])["RandomForest"].ape)) for s in runs}
    shared = set(ape["A"]) & set(ape["B"])
    closer_b = sum(ape["B"][w] < ape["A"][w] for w in shared)
    dash_duo.wait_for_contains_text("#compare-verdict", f"Of the {len(shared)} workloads both runs scored, "
                                    f"B (RandomForest) is closer on {closer_b},", timeout=15)
    points = dash_duo.driver.execute_script(
        "return document.querySelector('#compare-ape-graph .js-plotly-plot').data[1].x.length;")
    assert points == len(shared)
    worst = max(shared, key=lambda w: abs(ape["B"][w] - ape["A"][w]))
    dash_duo.wait_for_contains_text("#compare-workloads", worst, timeout=10)
    screenshot(dash_duo.driver, "compare")
    # the report: both runs' stars and RandomForest's row as the results have them, opened with no server
    report = download_report(dash_duo.driver, "#compare-download-report", "perfcast_compare_*.html", tmp_path)
    text = report.read_text()
    assert f"A {tag}" in text or f"A Tesla-K40 {tag}" in text
    assert f"<td>RandomForest</td><td>{rf_a:.4g}</td><td>{rf_b:.4g}</td>" in text
    for side, star, e in (("A", star_a, e_a), ("B", star_b, e_b)):  # the card's facts, as the card says them
        assert f"★ in {side}<b>{star}</b>" in text and f"★ E_out in {side}<b>{e:.2f} %</b>" in text
    link = share_link(dash_duo, "compare")
    assert "model_a=RandomForest" in link
    other = fresh_browser()
    try:
        other.get(link)
        assert text_in(other, "#compare-star-a") == star_a
    finally:
        other.quit()
