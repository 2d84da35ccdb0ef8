"""The cross-generation method's feature ranking and tree sweep say the same on the shipped data as the golden files:
the command line's text and JSON (``python -m modeling rank`` and ``sweep``) and /features' summary card
(tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew). The JSON was written from the code before
the summaries were typed objects, and is unchanged. The command line's text is the summary's own (``*.before.txt``:
what it printed before, every number of which it still prints, at least as precisely): since, it says the facts the
page says (the model, how many features it ranked, the top one, the workloads; the sweep's best tree count and its
E_out), what the score is, and the provenance; the ranked features' scores and coefficients to 6 significant digits
(it printed 4). The card (``crossgen_rank_page.before.txt``: what it showed before) says the same facts, to the
digit, and now the provenance."""

import json
import re

import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import GOLDEN, check

SHIPPED = ["--host", "GTX-680", "--target", "GTX-970"]
COMMANDS = {"rank_cli_ols": ["rank", *SHIPPED], "rank_cli_nnls": ["rank", *SHIPPED, "--model", "NNLS"],
            "sweep_cli": ["sweep", *SHIPPED, "--folds", "3"]}


def _rounded(v):
    """``v`` with its floats to 9 significant digits (the last digits of a fit vary with the BLAS)."""
    if isinstance(v, float):
        return float(f"{v:.9g}")
    if isinstance(v, dict):
        return {k: _rounded(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_rounded(x) for x in v]
    return v


@pytest.mark.parametrize("name", [n if n != "sweep_cli" else pytest.param(n, marks=pytest.mark.slow)  # 1024 trees
                                  for n in COMMANDS])
def test_the_command_line(name):
    text = capture.cli(COMMANDS[name])
    check(f"crossgen_{name}.txt", text)
    before = (GOLDEN / f"crossgen_{name}.before.txt").read_text()
    assert capture.lost_numbers(before, text) == []
    # the JSON is what it was
    said = capture.cli([*COMMANDS[name], "--json"])
    want = (GOLDEN / f"crossgen_{name}.json").read_text()
    assert said.split("\n", 1)[0] == "exit 0"
    assert _rounded(json.loads(said.split("\n", 1)[1])) == _rounded(json.loads(want.split("\n", 1)[1]))


def _facts(card_text: str) -> dict:
    """The card's stats: label -> value."""
    lines = [line.strip() for line in card_text.splitlines()]
    return {lines[i + 4].strip("'\""): lines[i + 2].strip("'\"") for i, line in enumerate(lines)
            if line == "Div className='stat'"}


@pytest.mark.slow  # a ranking job and the command line's on the shipped data
def test_the_ranking_card(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.crossgen.kinds import RANKING
    from dashboard.jobs.progress import silent
    from dashboard.pages import features

    params = RANKING.request({})["params"]
    run = RANKING.run(params, silent)
    card = capture.page(features.render_view(run)[0])
    check("crossgen_rank_page.txt", card)
    before = (GOLDEN / "crossgen_rank_page.before.txt").read_text()
    assert _facts(card) == _facts(before) and len(_facts(card)) == 4  # the page's numbers, to the digit
    for key in ("model-name", "n-ranked", "top-feature"):
        assert f"id='features-{key}'" in before and f"id='features-{key}'" in card  # the browser test reads them
    # the command line says what the page says, to the digit
    s = run.summary()
    text = capture.cli(["rank", "--host", params["host"], "--target", params["target"]])
    assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts)
    assert s.lead in text


def _fingerprint_masked(text: str) -> str:
    """The comparison's fingerprint masked (it is made of the two scenarios' keys, which name the code version)."""
    return re.sub(r"comparison fingerprint [\w-]+", "comparison fingerprint <f>", text)


@pytest.mark.slow  # two scenarios of every HALWPE model on the shipped data: a minute on a loaded machine
def test_the_comparison_card_grids_and_report(var):
    """/compare's card and report draw the comparison's summary; its grids show the summary's tables' rows. The
    grids' rows (``crossgen_compare_page_rows.txt``: the inputs, the merged leaderboard, the 12 workloads most
    apart) were written before and are unchanged; the card's facts are the page's before, to the digit, and the
    card and the report say every number they said before. Since: the card says what the numbers mean, the
    per-workload verdict of the two ★ and the provenance; the report's facts are the card's (each run's ★ and its
    E_out as two facts), and its first section says what the numbers mean, the two scenarios and the verdict."""
    import app  # noqa: F401 - registers the pages
    from dashboard.crossgen import compare_report, compare_views
    from dashboard.crossgen.kinds import COMPARE, SCENARIO, cached
    from dashboard.jobs.progress import silent
    from dashboard.pages.scenario import _store

    ids = []
    for target, name in (("GTX-970", "A"), ("GTX-980", "B")):
        _, scenario = cached(SCENARIO, SCENARIO.request({"host": "GTX-680", "target": target, "folds": "3"})["params"])
        ids.append(_store(scenario, None, name)["id"])
    run = COMPARE.run(COMPARE.request({"a": ids[0], "b": ids[1]})["params"], silent)
    head, inputs, models = compare_views.summary(run)
    _fig, rows, verdict = compare_views.workload_view(run, None, None)
    grids = "\n".join(json.dumps(capture._rounded(r)) for r in [*inputs, *models, *rows]) + "\n"
    check("crossgen_compare_page_rows.txt", capture.masked(grids))
    page = _fingerprint_masked(capture.page([head, verdict]))
    check("crossgen_compare_page.txt", page)
    before = (GOLDEN / "crossgen_compare_page.before.txt").read_text()
    assert _facts(page) == _facts(before) and len(_facts(page)) == 5
    assert capture.lost_numbers(before, page) == []
    built = compare_report.build(run, "http://perfcast/compare?x=1")
    report = _fingerprint_masked(capture.report(built))
    check("crossgen_compare_report.txt", report)
    before = _fingerprint_masked((GOLDEN / "crossgen_compare_report.before.txt").read_text())
    assert capture.lost_numbers(before, report) == []
    s = run.summary()
    assert built.facts == [(f.label, f.text) for f in s.facts] and built.provenance == s.provenance_text
    assert [r for r in models] == s.table("models").records() and inputs == s.table("inputs").records()


@pytest.mark.slow  # a model fitted on the shipped data and applied
def test_the_applied_models_card(var, monkeypatch):
    """/apply's card draws the applied model's summary; its inlier-ratio grid shows the summary's table. The card's
    facts are the page's before (``crossgen_apply_page.before.txt``), to the digit, and so are the grid's rows.
    Since: the card says what the numbers mean and the provenance, and its notes are alerts."""
    import app  # noqa: F401 - registers the pages
    from dashboard.crossgen.kinds import APPLY
    from dashboard.jobs.progress import silent
    from dashboard.pages import apply as page

    run = APPLY.run(APPLY.request({"model": "NNLS"})["params"], silent)
    monkeypatch.setattr(page.jobs, "result_for", lambda ready: run)
    card, _fig, rows = page._render({"key": "k"})
    text = capture.page(card)
    check("crossgen_apply_page.txt", text)
    before = (GOLDEN / "crossgen_apply_page.before.txt").read_text()
    assert _facts(text) == _facts(before) and len(_facts(text)) == 6
    assert json.dumps(rows) == ROWS_BEFORE
    assert [(f.label, f.text) for f in run.summary().facts] == list(_facts(before).items())


#: /apply's inlier-ratio grid before its rows were the summary's table
ROWS_BEFORE = ('[{"threshold": 1.0, "ratio": 22.968197879858657}, {"threshold": 5.0, "ratio": 39.57597173144876}, '
               '{"threshold": 10.0, "ratio": 40.98939929328622}, {"threshold": 15.0, "ratio": 41.342756183745585}, '
               '{"threshold": 20.0, "ratio": 42.40282685512368}, {"threshold": 30.0, "ratio": 54.416961130742045}, '
               '{"threshold": 40.0, "ratio": 62.19081272084806}, {"threshold": 50.0, "ratio": 65.7243816254417}]')


def test_the_applied_models_notes_say_what_the_page_said():
    """The validation columns ignored, the workloads left out and a unit that differs: the sentences /apply said,
    now notes of the summary (the text of the command line's renderer says them too)."""
    from dashboard.crossgen.results import ApplyRun
    from modeling.crossgen.apply import ApplyResult

    res = ApplyResult("NNLS", 40, 12, 5.0, 7.25, {"1": 10.0, "10": 50.0}, None, 3, ["x", "y"], 2, [], [], [], [])
    s = ApplyRun({}, res, []).summary("s", "cycles")
    assert [n.text for n in s.notes] == [
        "Ignored validation columns not used in training: x, y.",
        "2 validation workloads excluded (missing values or target ≤ 0).",
        "The training dataset's target unit (cycles) is not the validation set's (s): the model predicts in the "
        "training unit, so these errors compare values in different units."]
    assert s.fact("baseline").text == "–" and s.fact("e-val").text == "7.25 %"
    assert "APE threshold T %  inlier ratio %" in s.as_text() and "\n10                 50.0" in s.as_text()
    assert ApplyRun({}, res, []).summary("s", "s").notes == s.notes[:2]


ENSEMBLE = ["ensemble", *SHIPPED, "--jobs", "1"]


def _fits_masked(text: str) -> str:
    """The leaderboard's "fit s" column masked (timings): a row's last number when the row has six or more."""
    return "\n".join(re.sub(r"\d+\.\d\d\s*$", "<s>", line) if len(re.findall(r"\d+\.\d+", line)) >= 5 else line
                     for line in text.splitlines()) + "\n"


def _untimed(d):
    if isinstance(d, dict):
        return {k: _untimed(v) for k, v in d.items() if k not in ("fit_seconds", "seconds")}
    return [_untimed(v) for v in d] if isinstance(d, list) else _rounded(d)


@pytest.mark.slow  # the whole leaderboard on the shipped data
def test_the_leaderboard_on_the_command_line():
    """``python -m modeling ensemble`` prints the leaderboard's summary: the ★ (the page's: the baseline counted),
    every number it printed before, the baseline in its place by E_out; its JSON is what it was."""
    text = capture.cli(ENSEMBLE)
    check("crossgen_ensemble_cli.txt", _fits_masked(text))
    before = _fits_masked((GOLDEN / "crossgen_ensemble_cli.before.txt").read_text())
    assert capture.lost_numbers(before.replace("<s>", ""), _fits_masked(text).replace("<s>", "")) == []
    said = capture.cli([*ENSEMBLE, "--json"])
    want = (GOLDEN / "crossgen_ensemble_cli.json").read_text()
    assert said.split("\n", 1)[0] == "exit 0"
    assert _untimed(json.loads(said.split("\n", 1)[1])) == _untimed(json.loads(want.split("\n", 1)[1]))


def test_a_leaderboard_the_baseline_wins_puts_its_star_on_the_baseline_and_says_so():
    """The command line's leaderboard once marked its lowest model "* best overall" when the baseline beat it,
    where the page's ★ was the baseline."""
    from modeling.crossgen.ensemble import BASELINE
    from modeling.crossgen.ensemble_results import EnsembleResult, ModelResult

    def entry(name, e):
        return ModelResult(name, e, e, e, {"10": 50.0, "20": 70.0}, 3, 10, 0.1, [], [], [])

    res = EnsembleResult({"host": "A", "target": "B", "cv": "kfold", "folds": 10}, 40, 10, [], [], None, [],
                         entry(BASELINE, 12.0), [entry("OLS", 30.0), entry("NNLS", 14.0)])
    s = res.summary()
    assert s.fact("best-model").value == BASELINE and s.fact("best-eout").text == "12.00 %"
    assert "the best model, NNLS, has 14.00 %" in s.notes[0].text
    assert [n.key for n in s.notes] == ["baseline-wins"]
    rows = s.table("leaderboard").records()
    assert [r["model"] for r in rows] == [f"{BASELINE} ★", "NNLS +", "OLS"]
    assert "NNLS ★" not in s.as_text() and "NNLS *" not in s.as_text()
