"""/trash as plain functions: the list, a restore's message and where it links, refusals in plain words."""

import importlib

import pytest

from dashboard.state import predictions, scenarios, trash
from tests.dashboard.state.test_trash import _prediction, _scenario


@pytest.fixture()
def page(var):
    import app  # noqa: F401 - registers the pages

    return importlib.import_module("dashboard.pages.trash")


def _text(component) -> str:
    return str(component.to_plotly_json())


def test_the_list_and_a_restore_that_links_to_the_item(page):
    assert "The trash is empty" in _text(page.trash_table())
    sc, pr = _scenario(), _prediction()
    rec_sc, rec_pr = scenarios.delete_scenario(sc), predictions.delete_prediction(pr)
    table = _text(page.trash_table())
    assert "saved scenario" in table and "saved prediction" in table and rec_sc["entry"] in table
    msg = _text(page.restore_message(rec_sc["entry"]))
    assert "Restored the saved scenario" in msg and "/scenario?" in msg
    msg = _text(page.restore_message(rec_pr["entry"]))
    assert "Restored the saved prediction" in msg and "/predict?host=GTX-680" in msg


def test_refusals_are_messages(page):
    sc = _scenario()
    record = scenarios.delete_scenario(sc)
    _scenario()  # saved again under the same id
    assert "exists already" in _text(page.restore_message(record["entry"]))
    for forged in ("../../etc", None, {"x": 1}, "dataset-ds-0123456789abcdef.20250101T000000000000Z"):
        assert "Not restored" in _text(page.restore_message(forged))
    assert len(trash.list_trash()) == 1
