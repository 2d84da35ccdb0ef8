"""/counts says the same on a small count table as the golden files: the command line's text (``python -m modeling
counts`` and ``counts predict``), the page's summary cards (a program's evaluation, counts at new inputs) and the
report of counts at new inputs (tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew). The golden
files were first written from the code before the summaries were one typed object each (modeling/counts/summary.py).
Since: the command line says every fact, note and sentence the cards say, with the provenance (the evaluation's card
too: it had none); the command line's leaderboard is the page's, with its columns and decimals (mean APE to 3
decimals, max APE to 2, nMSE to 6, the seeds' range and the exact blocks; it printed 2, 1 and 5 decimals), and the
irregular blocks with their best held-back error under it as before; the command line's table of predicted counts is
the page's and the report's, every total included (it left out each block's total over the inputs), its counts
whole, its errors to the report's 6 significant digits (it printed 2); the report's counts are whole and thousands
separated as on the page and the command line (it said 1e+08 for 100,000,066); the range rule is a detail said once
(the card said it at the head of its provenance line, the report twice, as a paragraph and in its provenance), and
the provenance is the one sentence of every result; the report's sections are the summary's: what the numbers mean,
then the predicted counts' charts with their table (before: "How each count was obtained", "Predicted against input
size", "Every predicted count"). The command line's text is the summary's own (``*.before.txt``: what it printed
before, every number of which it still prints, at least as precisely)."""

import re

import pandas as pd
import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import GOLDEN, check

pytestmark = pytest.mark.slow  # every model fitted, held out input by input: minutes on a loaded machine

AT = "N=1000,T=50; N=256 x T=7,8"
EVALUATION = ["counts", "--models", "glm,poly,best"]
PREDICT = ["counts", "predict", "--program", "stencil", "--at", "N=1000,T=50", "--grid", "N=256 x T=7,8"]


def _frame() -> pd.DataFrame:
    rows = [{"program": "stencil", "N": n, "T": t, "block": b, "count": n * n * t * (i + 1) + (n % 3 if i else 0)}
            for n in range(16, 129, 16) for t in range(1, 7) for i, b in enumerate(["sweep:3", "sweep:4"])]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("counts") / "lab.csv"
    _frame().to_csv(path, index=False)
    return path


def _masked_fit_seconds(text: str) -> str:
    """The leaderboard's "fit s" column masked (seconds: they change from run to run)."""
    lines, start, stop = text.split("\n"), None, None
    for i, line in enumerate(lines):
        if "  fit s  " in line:
            start, stop = line.index("fit s"), line.index("× baseline's error")
        elif start is not None and not line:
            start = None
        elif start is not None and not line.startswith("---"):
            lines[i] = f"{line[:start]}{'<s>':<{stop - start}}{line[stop:]}"
    return "\n".join(lines)


def _cli(argv, table):
    text = capture.cli([*argv, "--csv", str(table)]).replace(str(table), "<table>")
    return _masked_fit_seconds(text)


def _kept(token: str, text: str) -> bool:
    """Whether ``text`` says ``token``'s number at least as precisely: to its significant digits
    (:func:`capture.lost_numbers`) or to its decimals (0.01 was 2 decimals of 0.00818, now said as 0.00818)."""
    if not capture.lost_numbers(token, text):
        return True
    want = float(token.replace(",", ""))
    decimals = len(token.split(".")[1]) if "." in token and "e" not in token else 0
    return any(round(float(t.replace(",", "")), decimals) == want for t in capture.NUMBER.findall(text))


@pytest.mark.parametrize("name, argv", [("evaluation", EVALUATION), ("predict", PREDICT)])
def test_the_command_line(name, argv, table):
    text = _cli(argv, table)
    check(f"counts_cli_{name}.txt", text)
    before = (GOLDEN / f"counts_cli_{name}.before.txt").read_text()
    assert [n for n in capture.lost_numbers(before, text) if not _kept(n, text)] == []


def test_the_page_and_the_report(var, table):
    import app  # noqa: F401 - registers the pages
    from dashboard.counts import report, sources
    from dashboard.counts.kinds import COUNTS, PREDICT as PREDICT_KIND
    from dashboard.jobs.progress import silent
    from dashboard.pages import counts as page

    src = sources.save_upload(_frame().to_csv(index=False).encode(), "lab.csv")["id"]
    ev = COUNTS.run(COUNTS.request({"source": src, "models": "glm,poly,best"})["params"], silent)
    check("counts_page_evaluation.txt", capture.page(page._content(ev)[0]))
    pred = PREDICT_KIND.run(PREDICT_KIND.request({"source": src, "at": AT, "pmodel": "best"})["params"], silent)
    check("counts_page_predict.txt", capture.page(page._pred_content(pred, None)[0]))
    built = report.build(pred, "http://perfcast/counts?x=1")
    check("counts_report_predict.txt", capture.report(built))
    assert built.facts == [(f.label, f.text) for f in pred.summary().facts]
    # the command line says what the page says, to the digit
    for run, argv in ((ev, EVALUATION), (pred, PREDICT)):
        s, text = run.summary(), _cli(argv, table)
        assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts)
        assert s.lead in text and all(f"note: {n.sentence}" in text for n in s.notes)
        assert all(f"{d.label}: {d.value}" in text for d in s.details)
        assert capture.masked(s.provenance_text).split(" (")[0] in text  # the table's name (its id differs)
    # the page's grids show the rows of the summary's tables, the command line's
    for shown, t in ((page._content(ev)[1], ev.summary().table("leaderboard")),
                     (page._pred_content(pred, None)[1], pred.summary().table("predictions"))):
        assert [{f: r.get(f) for f, _ in t.columns} for r in shown] == t.records()
