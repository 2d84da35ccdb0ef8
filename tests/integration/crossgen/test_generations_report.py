"""/generations' Download report: opens with no server, its speedup chart drawn, and carries the best model per
target as the result has it, with the note that two targets were scored on different workload sets."""

from dashboard.crossgen.kinds import GENERATIONS, cached
from dashboard.ui.url_state import to_query
from pc_browser import download_report, report_opens_offline, start


def test_the_generations_report_opens_offline_with_each_targets_best(dash_duo, perfcast_app, tmp_path):
    params = GENERATIONS.request({"host": "GTX-680", "targets": "GTX-980,GTX-970", "preset": "rastsim",
                                  "transform": "log"})["params"]
    _, res = cached(GENERATIONS, params)
    start(dash_duo, perfcast_app, f"/generations{to_query(params)}")
    report = download_report(dash_duo.driver, "#generations-download-report", "perfcast_generations_*.html",
                             tmp_path)
    text = report.read_text()
    for row in res.rows:
        assert f"<td>{row.target}</td><td>{row.best_model}</td><td>{row.e_out:.4g}</td>" in text
    assert "251" in text and "283" in text  # GTX-970 ran fewer workloads: the report says the sets differ
    assert "code version" in text
    report_opens_offline(report, ["#chart-0 .scatterlayer .trace"])
