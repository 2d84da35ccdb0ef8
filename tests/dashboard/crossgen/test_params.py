"""Scenario parameters: the host is never a target."""

import pytest

from dashboard.crossgen.kinds import GENERATIONS, SCENARIO
from dashboard.crossgen.params import scenario_params, target_choices
from dashboard.ui.url_state import InvalidParameter, parse


def test_the_host_is_not_offered_as_target_and_a_link_naming_it_is_refused():
    v = parse({"host": "GTX-980"}, scenario_params())
    assert "GTX-980" not in target_choices(v) and v["target"] != "GTX-980"
    with pytest.raises(InvalidParameter, match="invalid parameter target: GTX-680 is the host"):
        SCENARIO.request({"host": "GTX-680", "target": "GTX-680"})
    with pytest.raises(InvalidParameter, match="invalid parameter targets"):
        GENERATIONS.request({"host": "GTX-680", "targets": "GTX-980,GTX-680"})
