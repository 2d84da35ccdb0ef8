"""The answer of a callback with named outputs (dashboard/ui/components.py answer)."""

import pytest
from dash import Output, no_update

from dashboard.ui.components import answer

OUTPUTS = {"status": Output("x-status", "children"), "rows": Output("x-grid", "rowData")}


def test_names_not_given_are_left_as_they_are():
    assert answer(OUTPUTS, rows=[1]) == {"status": no_update, "rows": [1]}
    assert answer(OUTPUTS) == {"status": no_update, "rows": no_update}


def test_a_name_that_is_no_output_is_refused():
    with pytest.raises(KeyError, match="statsu"):
        answer(OUTPUTS, statsu="typo")
