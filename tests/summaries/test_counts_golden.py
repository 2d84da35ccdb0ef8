"""/counts says the same on a small count table as the golden files: the command line's text (``python -m modeling
counts`` and ``counts predict``), the page's summary cards (a program's evaluation, counts at new inputs) and the
report of counts at new inputs (tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew)."""

import re

import pandas as pd
import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import check

pytestmark = pytest.mark.slow  # every model fitted, held out input by input: minutes on a loaded machine
FIT = slice(82, 89)  # the command line's "fit s" column (seconds: they change from run to run)

AT = "N=1000,T=50; N=256 x T=7,8"


def _frame() -> pd.DataFrame:
    rows = [{"program": "stencil", "N": n, "T": t, "block": b, "count": n * n * t * (i + 1) + (n % 3 if i else 0)}
            for n in range(16, 129, 16) for t in range(1, 7) for i, b in enumerate(["sweep:3", "sweep:4"])]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("counts") / "lab.csv"
    _frame().to_csv(path, index=False)
    return path


def _cli(argv, table):
    text = capture.cli(argv).replace(str(table), "<table>").replace(str(table.parent), "<dir>")
    return "\n".join(f"{line[:FIT.start]}{'<s>':>7s}{line[FIT.stop:]}"
                     if re.fullmatch(r" *\d+\.\d\d", line[FIT]) else line for line in text.split("\n"))


def test_the_command_line(table):
    check("counts_cli_evaluation.txt", _cli(["counts", "--csv", str(table), "--models", "glm,poly,best"], table))
    check("counts_cli_predict.txt", _cli(["counts", "predict", "--csv", str(table), "--program", "stencil", "--at",
                                          "N=1000,T=50", "--grid", "N=256 x T=7,8"], table))


def test_the_page_and_the_report(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.counts import report, sources
    from dashboard.counts.kinds import COUNTS, PREDICT
    from dashboard.jobs.progress import silent
    from dashboard.pages import counts as page

    src = sources.save_upload(_frame().to_csv(index=False).encode(), "lab.csv")["id"]
    ev = COUNTS.run(COUNTS.request({"source": src, "models": "glm,poly,best"})["params"], silent)
    check("counts_page_evaluation.txt", capture.page(page._content(ev)[0]))
    pred = PREDICT.run(PREDICT.request({"source": src, "at": AT, "pmodel": "best"})["params"], silent)
    check("counts_page_predict.txt", capture.page(page._pred_content(pred, None)[0]))
    check("counts_report_predict.txt", capture.report(report.build(pred, "http://perfcast/counts?x=1")))
