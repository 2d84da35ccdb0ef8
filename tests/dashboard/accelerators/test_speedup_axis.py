"""A speedup chart's log axis carries readable labels whatever its span: sha-256's fitted speedups run from
about 1.3 to 4 (no decade in between: one label per decade would show only "1")."""

from dashboard.accelerators.views import LOGCA_PARAMS, logca_view
from dashboard.ui.url_state import parse_or_default


def test_a_speedup_axis_within_one_decade_labels_1_2_5():
    v, error = parse_or_default({"acc": "openssl-x86:sha-256", "focus": "openssl-x86:sha-256"}, LOGCA_PARAMS)
    assert error is None
    fig = logca_view(v)["speedup"]
    ys = [y for tr in fig["data"] for y in (tr.get("y") or []) if isinstance(y, (int, float))]
    assert 1 < max(ys) < 10  # the case: less than a decade
    axis = fig["layout"]["yaxis"]
    assert axis["type"] == "log" and "dtick" not in axis
    assert {1.0, 2.0} <= set(axis["tickvals"]) and axis["ticktext"][axis["tickvals"].index(2.0)] == "2"
