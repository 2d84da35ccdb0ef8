"""The host → target pair of /predict, /new-app and /plan is one set of parameters (crossgen/params.py
``pair_params``): each page keeps its own preferred target, and the host as its own target is refused on each
with the same reason."""

import pytest

from dashboard.newapp.kinds import NEWAPP
from dashboard.plan.kinds import PLAN
from dashboard.predict.kinds import PREDICT
from dashboard.ui.url_state import InvalidParameter, parse


@pytest.mark.parametrize("kind, target", [(PREDICT, "GTX-970"), (NEWAPP, "GTX-980"), (PLAN, "GTX-970")])
def test_each_page_keeps_its_preferred_target_and_refuses_the_host(var, kind, target):
    v = parse({}, list(kind.params))
    assert (v["dataset"], v["host"], v["target"], v["metric"]) == ("rodinia", "GTX-680", target, "duration")
    assert kind.names[:4] == ["dataset", "host", "target", "metric"]
    with pytest.raises(InvalidParameter, match="GTX-680 is the host: choose another GPU to predict"):
        parse({"host": "GTX-680", "target": "GTX-680"}, list(kind.params))
    assert parse({"host": "GTX-980"}, list(kind.params))["target"] != "GTX-980"
