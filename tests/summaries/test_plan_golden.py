"""The plan (what to simulate next) says the same as the golden files: the command line's text and JSON
(``python -m modeling plan`` on the synthetic plan table: a first round, and a second with a finished batch merged,
the last round named with ``--previous`` and its missing run retried first), and /plan's card and report on the
uploaded plan table (the first round, and the second with what the merged batch changed and a run retried)
(tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew). The ``*.before.txt`` files and the JSON
were written from the code before the plan had one typed summary: every number the command line, the card and the
report said is still said (at least as precisely), and the JSON is what it was.

Since: the command line prints the summary (the card's facts, the expected effect, why this strategy, what the
last round changed, the model, the batch, the last round's workloads and the replay curves as tables, the
provenance); the card says the strategy's description, the budget, why this strategy and what the last round
changed; the report's numbers are given to 4 significant digits (3 before), and it holds the replay curves as a
table beside the chart."""

import json
import re

import pytest

from tests.summaries import capture, plan_cases
from tests.summaries.test_crossgen_golden import _facts
from tests.summaries.test_predict_golden import GOLDEN, check

pytestmark = pytest.mark.slow  # random-forest plans with their replays: a minute on a loaded machine


def test_the_command_line(tmp_path):
    said = plan_cases.cli_texts(tmp_path)
    for name in ("first", "round"):
        text = said[name].replace(str(tmp_path), "<tmp>")
        check(f"plan_cli_{name}.txt", text)
        before = (GOLDEN / f"plan_cli_{name}.before.txt").read_text()
        assert capture.lost_numbers(before, text) == [], name
    # the JSON is what it was (the round's changes included)
    want = (GOLDEN / "plan_cli_round.json").read_text()
    assert said["round_json"].split("\n", 1)[0] == "exit 0"
    assert json.loads(said["round_json"].split("\n", 1)[1]) == json.loads(want.split("\n", 1)[1])


def test_the_card_and_the_report(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import plan as page
    from dashboard.plan.report import build

    second, first = plan_cases.pages()
    laid_out = set(re.findall(r"id='([^']+)'", capture.page(page.layout())))
    for name, run in (("first", first), ("round", second)):
        card = plan_cases.masked(capture.page(page._summary(run)))
        check(f"plan_page_{name}.txt", card)
        before = (GOLDEN / f"plan_page_{name}.before.txt").read_text()
        assert capture.lost_numbers(before, card) == [], name
        was, now = _facts(before), _facts(card)
        # the page's facts, same labels, the same text where it was already exact (the browser tests read them)
        assert list(now) == ["strategy", "batch", "budget", "mean |log error| now → after",
                             "median interval width now → after", "simulated / candidates"]
        assert now["simulated / candidates"] == was["simulated / candidates"]
        assert now["median interval width now → after"] == was["median interval width now → after"]
        assert now["strategy"].startswith(was["strategy"] + " (")
        for key in ("strategy-used", "batch-size", "error", "width", "counts", "warnings", "meaning"):
            assert f"id='plan-{key}'" in card
        # the card is drawn into the page: none of its ids may be one the page already has
        ids = set(re.findall(r"id='([^']+)'", card))
        assert ids and not ids & laid_out, ids & laid_out
        report = plan_cases.masked(capture.report(build(run, "http://perfcast/plan?x=1")))
        check(f"plan_report_{name}.txt", report)
        before = (GOLDEN / f"plan_report_{name}.before.txt").read_text()
        assert capture.lost_numbers(before, report) == [], name
        # the report's facts and provenance are the summary's, as the card's are
        s = run.summary()
        built = build(run, "http://perfcast/plan?x=1")
        assert built.facts == [(f.label, f.text) for f in s.facts] and built.provenance == s.provenance_text
        assert [(f.label, f.text) for f in s.facts if f.value] == list(_facts(capture.page(page._summary(run))).items())
    # the round's sentence (the card's and the report's) says what the browser test reads
    assert "Round 2: 5 simulated values were merged" in second.summary().details[1].value


def test_the_command_line_and_the_page_say_the_same_to_the_digit(var, tmp_path):
    """The uploaded table planned on the page and the same table planned on the command line: the same facts,
    the same expected effect, the same batch."""
    import app  # noqa: F401 - registers the pages
    from dashboard.jobs.progress import silent
    from dashboard.plan.kinds import PLAN
    from tests.dashboard.plan.plan_table import plan_frame, save

    frame = plan_frame()
    params = PLAN.request({"dataset": save(frame)["id"], "cost": "sim_hours", "strategy": "diversity",
                           "budget": 6})["params"]
    s = PLAN.run(params, silent).summary()
    path = tmp_path / "plan.csv"
    frame.drop(columns=["truth"]).to_csv(path, index=False)
    text = capture.cli(["plan", "--csv", str(path), "--target", "sim_cycles", "--host-col", "host_s", "--id",
                        "workload", "--group", "application", "--features", "host_s,inst,c1,c2,c3",
                        "--cost-col", "sim_hours", "--budget", "6", "--strategy", "diversity"])
    assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts), text
    assert s.lead in text and s.details[0].value in text
    assert capture.masked(s.tables[0].records().__repr__()) == capture.masked(
        next(t for t in _cli_summary(path).tables if t.key == "batch").records().__repr__())


def _cli_summary(path):
    """The command line's summary of the same plan, as a typed object."""
    from modeling.plan.inputs import parse_budget, read_plan_table
    from modeling.plan.planner import plan
    from modeling.tables.reading import read_table

    t = read_plan_table(read_table(str(path)).frame, "sim_cycles", "workload", host_col="host_s",
                        group_col="application", cost_col="sim_hours", features=["host_s", "inst", "c1", "c2", "c3"])
    return plan(t, parse_budget("6"), strategy="diversity", level=0.9, seed=0, replay_seeds=2).summary()
