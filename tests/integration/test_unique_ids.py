"""No page lays out two components with one id, with a result drawn in its layout: the browser would refuse
the whole page ("Duplicate component id"), and the ids of separately written parts (a scenario's text and
its leaderboard) can meet only once a result with every part is there."""

from collections import Counter

import pytest

from dashboard.crossgen.kinds import SCENARIO, cached
from dashboard.ui.url_state import to_query
from test_first_page import components, first_layout


def _ids(layout):
    ids = [c["props"].get("id") for c in components(layout)]
    return Counter(str(i) for i in ids if i is not None)


@pytest.mark.parametrize("page", ["/", "/scenario", "/features", "/predict", "/plan", "/generations", "/repeats",
                                  "/apply", "/new-app", "/data", "/phases", "/counts", "/logca", "/accelerometer",
                                  "/trash"])
def test_every_page_has_unique_ids(perfcast_app, page):
    dup = [i for i, n in _ids(first_layout(perfcast_app, f"http://localhost{page}")).items() if n > 1]
    assert not dup, f"{page}: ids used more than once: {dup}"


def test_a_scenario_with_unmeasured_workloads_has_unique_ids(perfcast_app, monkeypatch, tmp_path):
    """GTX-680 -> GTX-970: the scenario's text links its 32 unmeasured workloads to /predict, and the
    leaderboard links to /predict with the chosen model; both are drawn in the first layout."""
    monkeypatch.setattr("dashboard.settings.VAR_DIR", tmp_path)
    params = SCENARIO.request({"target": "GTX-970", "transform": "logratio"})["params"]
    cached(SCENARIO, params)
    layout = first_layout(perfcast_app, f"http://localhost/scenario{to_query(params)}")
    ids = _ids(layout)
    assert ids["scenario-unmeasured-link"] == 1 and ids["scenario-predict-link"] == 1
    assert not [i for i, n in ids.items() if n > 1]
