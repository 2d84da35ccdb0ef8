"""/scenario's card draws the leaderboard's summary (:meth:`modeling.crossgen.ensemble_results.EnsembleResult.
summary`, what ``python -m modeling ensemble`` prints): its ★ (the lowest E_out, the baseline counted) and that
E_out, the best non-negative model, the baseline's E_out, the workloads and the features, what the numbers mean,
a note when the baseline wins, and the provenance; then the page's own sentences (which question the E_out
answers, what was left out, with their links). ``scenario_page.before.txt``: the card before it drew the summary;
every number it showed is still shown (tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew)."""

import re

import pytest

from tests.summaries import capture
from tests.summaries.test_crossgen_golden import _facts
from tests.summaries.test_predict_golden import GOLDEN, check

pytestmark = pytest.mark.slow  # every HALWPE model on the shipped data


def _timed_masked(text: str) -> str:
    """The run's duration masked (a timing)."""
    return re.sub(r"Computed in [\d.]+ s", "Computed in <s> s", text)


def _run():
    from dashboard.crossgen.kinds import SCENARIO
    from dashboard.jobs.progress import silent

    return SCENARIO.run(SCENARIO.request({"host": "GTX-680", "target": "GTX-970", "folds": "3"})["params"], silent)


def test_the_card(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import scenario as page

    run = _run()
    card = _timed_masked(capture.page(page._summary_view(run)[0]))
    check("scenario_page.txt", card)
    before = _timed_masked((GOLDEN / "scenario_page.before.txt").read_text())
    assert capture.lost_numbers(before.replace("<s>", ""), card.replace("<s>", "")) == []
    # the page's facts, to the digit (here no model loses to the baseline: the ★ is the page's best model)
    was, now = _facts(before), _facts(card)
    assert (now["★"], now["★ E_out"]) == (was["best model"], was["best E_out"])
    assert now["baseline E_out"] == was["baseline E_out"]
    assert (now["workloads"], now["features"]) == (was["workloads"], was["features"])
    for key in ("best-model", "best-eout", "n-workloads", "situation", "newapp-link", "unmeasured-link"):
        assert f"id='scenario-{key}'" in card  # the browser tests read them
    # the card is drawn into the page: none of its ids may be one the page already has
    ids = set(re.findall(r"id='([^']+)'", card))
    laid_out = set(re.findall(r"id='([^']+)'", capture.page(page.layout())))
    assert ids and not ids & laid_out, ids & laid_out
    # the card's facts, notes and provenance are the leaderboard's summary, which the command line prints
    s = run.ensemble.summary(run.missing_rows, run.provenance)
    assert [(f.label, f.text) for f in s.facts if f.value] == list(now.items())
    assert s.lead in card and s.provenance_text and capture.masked(s.provenance_text) in card
