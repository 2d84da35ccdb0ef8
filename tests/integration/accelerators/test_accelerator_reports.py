"""/logca's and /accelerometer's Download report: the file opens in a browser with no server, its charts
drawn, and carries the page's numbers (computed here independently of the page, from the library)."""

from modeling.accelerators import logca
from modeling.accelerators.advisor import fmt_bytes
from pc_browser import download_report, report_opens_offline, start


def test_the_logca_report_opens_offline_with_the_pages_numbers(dash_duo, perfcast_app, tmp_path):
    from dashboard.accelerators import sources
    from dashboard.accelerators.views import LOGCA_PARAMS
    from dashboard.ui.url_state import parse_or_default

    v, _ = parse_or_default({}, LOGCA_PARAMS)
    focus = sources.resolve(v["focus"], v)
    g1 = logca.metrics(focus.params)["g1"]
    start(dash_duo, perfcast_app, "/logca")
    report = download_report(dash_duo.driver, "#logca-download-report", "perfcast_logca_*.html", tmp_path)
    text = report.read_text()
    assert f"break-even g1<b>{fmt_bytes(g1)}</b>" in text
    assert "Implication 1" in text and "code version" in text.lower() and "preset from the thesis" in text
    report_opens_offline(report, [f"#chart-{i} .main-svg" for i in range(3)])


def test_the_accelerometer_report_opens_offline_with_the_advisors_decision(dash_duo, perfcast_app, tmp_path):
    from dashboard.accelerators import sources
    from dashboard.accelerators.views import ACCEL_PARAMS
    from dashboard.ui.url_state import parse_or_default
    from modeling.accelerators.advisor import advise

    v, _ = parse_or_default({}, ACCEL_PARAMS)
    a = sources.resolve(v["acc"], v)
    adv = advise(a.params, v["target"], v["g0"], v["factor"], v["threshold"] / 100.0)
    start(dash_duo, perfcast_app, "/accelerometer")
    report = download_report(dash_duo.driver, "#accel-download-report", "perfcast_accelerometer_*.html",
                             tmp_path)
    text = report.read_text()
    import html

    assert html.escape(adv["programmer"]["decision"]) in text
    assert f"speedup now<b>{adv['speedup']:.3g} at {fmt_bytes(adv['granularity'])}</b>" in text
    report_opens_offline(report, [f"#chart-{i} .main-svg" for i in range(3)])


def test_the_bounds_and_totem_log_axes_label_decades_only():
    """Item 8 of the review: the bounds chart labelled every minor tick of its log axis ("2 5 2 5")."""
    from dashboard.accelerators.views import ACCEL_PARAMS, accelerometer_view
    from dashboard.ui.url_state import parse_or_default

    v, _ = parse_or_default({}, ACCEL_PARAMS)
    out = accelerometer_view(v)
    assert out["bounds"]["layout"]["yaxis"]["dtick"] == 1
    totem_axes = [ax for k, ax in out["totem"]["layout"].items() if k.startswith("yaxis")]
    assert totem_axes and all(ax.get("dtick") == 1 for ax in totem_axes if ax.get("type") == "log")
