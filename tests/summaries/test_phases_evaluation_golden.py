"""/phases' evaluation (every model on held-out programs) says the same on the shipped data as the golden files:
the command line's text and JSON (``python -m modeling phases``) and the page's summary card
(tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew). The JSON and the card's facts were written
from the code before the evaluation's summary was one typed object (``*.before.txt``: what the command line printed
and the card showed), and every number the command line printed is still printed. Since: the command line says
the page's headline facts and what the errors are, the card the models' eps / T, fall-back phases, cache and runs
left out as a list with the provenance; and models equal at the decimals shown are named tied instead of one of
them "lowest" (LACross, the global model and the NNLS baseline differ in the eleventh digit on this data)."""

import json
import re

import pytest

from tests.summaries import capture
from tests.summaries.test_crossgen_golden import _facts
from tests.summaries.test_predict_golden import GOLDEN, check

pytestmark = pytest.mark.slow  # the evaluation on the shipped cBench traces: program-grouped CV of six models


def _solver_masked(text: str) -> str:
    """The solver's speed masked (it is a timing)."""
    return re.sub(r"[\d,]+ phases/s", "<n> phases/s", text)


def _untimed(said: str) -> dict:
    d = json.loads(said.split("\n", 1)[1])
    d["seconds"], d["phases_per_second"] = "<s>", "<n>"
    return d


def test_the_command_line():
    text = capture.cli(["phases"])
    check("phases_evaluation_cli.txt", _solver_masked(text))
    before = (GOLDEN / "phases_evaluation_cli.before.txt").read_text()
    assert capture.lost_numbers(before, text) == []
    said = capture.cli(["phases", "--json"])
    assert said.split("\n", 1)[0] == "exit 0"
    assert _untimed(said) == _untimed((GOLDEN / "phases_evaluation_cli.json").read_text())  # the JSON is what it was


def test_the_card(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.jobs.progress import silent
    from dashboard.pages import phases as page
    from dashboard.phases.kinds import PHASES

    run = PHASES.run(PHASES.request({})["params"], silent)
    card = capture.page(page._summary(run))
    check("phases_evaluation_page.txt", _solver_masked(card))
    before, now = _facts((GOLDEN / "phases_evaluation_page.before.txt").read_text()), _facts(card)
    lowest = before.pop("lowest")
    assert now.pop("lowest") == "LACross, global model, NNLS baseline (tied)" and lowest == "NNLS baseline"
    assert now == before and len(now) == 4  # the page's other numbers, to the digit
    for key in ("lacross", "global", "ratio", "best"):
        assert f"id='phases-{key}'" in card  # the browser tests read them
    # the card is drawn into the page: none of its ids may be one the page already has (a fact keyed
    # "programs" once met the programs' grid, and the browser refused the page)
    ids = set(re.findall(r"id='([^']+)'", card))
    laid_out = set(re.findall(r"id='([^']+)'", capture.page(page.layout())))
    assert ids and not ids & laid_out
    # the command line says what the page says, to the digit
    s = page.views.summary(run)
    text = capture.cli(["phases"])
    assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts)
    assert s.lead in text
