"""The three renderers of a result's summary (modeling.results.Summary): the command line's text, the page's card
and the report say the same facts, notes, details and tables in the same order; a fact without a value is left off
the card and shown as "–" in the text and the report."""

import math

import pandas as pd

from modeling.results import Fact, Note, Summary, SummaryTable
from tests.summaries import capture


def planted() -> Summary:
    frame = pd.DataFrame({"id": ["a", "b"], "x": [1.23456789, math.nan], "flag": ["yes", "no"]})
    return Summary("A planted result", (Fact("first", "1.5 %", key="first"), Fact("empty", "", key="empty")),
                   "What the numbers mean, in one sentence.",
                   (Note("is the strong part's tail.", head="This ", key="strong"), Note("Plain.", "info")),
                   (Fact("Error", "a detail."),),
                   (SummaryTable("The rows", frame, (("id", "row"), ("x", "x (s)")), {"x": 2}, key="rows"),),
                   None, "Provenance: planted.")


def test_the_text():
    text = planted().as_text()
    assert text.splitlines()[:4] == ["A planted result", "================", "first  1.5 %", "empty  –"]
    assert "note: This is the strong part's tail.\nnote: Plain." in text and "Error: a detail." in text
    assert "The rows:\nrow  x (s)\n------------\na    1.23457\nb    -" in text  # flag: not a column shown
    assert text.endswith("Provenance: planted.")


def test_the_report():
    from dashboard.ui import summary_report

    r = summary_report.report(planted(), {"p": 1}, "http://x", {"rows": [{"data": []}]})
    assert r.facts == [("first", "1.5 %"), ("empty", "–")] and r.title == "A planted result"
    meaning, rows = r.sections
    assert meaning.paragraphs == ["What the numbers mean, in one sentence.", "This is the strong part's tail.",
                                  "Plain.", "Error: a detail."]
    assert rows.title == "The rows" and rows.figures == [{"data": []}]
    assert rows.tables[0].rows == [{"id": "a", "x": 1.23456789, "flag": "yes"}, {"id": "b", "x": None, "flag": "no"}]
    assert r.provenance == "Provenance: planted." and r.html()  # renders


def test_the_card():
    from dashboard.ui.summary_card import summary_card

    card = capture.page(summary_card(planted(), "pl", tables=("rows",)))
    assert "id='pl-first'" in card and "'1.5 %'" in card and "empty" not in card  # no value: not on the card
    lines = [line.strip() for line in card.splitlines()]
    strong = lines.index("Div id='pl-strong'")
    assert lines[strong + 1:strong + 5] == ["Div className='alert alert-warning' role='alert'", "Strong", "'This '",
                                            '"is the strong part\'s tail."']
    assert "Div className='alert alert-info' role='alert'" in lines and lines[lines.index("Li") + 2] == "'Error: '"
    assert "AgGrid id='pl-rows'" in card and "{'id': 'b', 'x': None, 'flag': 'no'}" in card
    assert "P id='pl-provenance' className='hint'" in card
    assert "AgGrid" not in capture.page(summary_card(planted(), "pl"))  # a table not asked for is not drawn
