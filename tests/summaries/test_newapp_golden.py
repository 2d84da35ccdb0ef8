"""/new-app says the same on the shipped data as the golden files: the command line's text (``python -m modeling
newapp``: an application held out, every application held out, a GPU never built or measured, typed and from the
device table), the page's summary cards and the report of a GPU never built or measured
(tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew). The page's cards and the report were
written from the code before the summaries were one typed object each (modeling/newapp/summary.py). Since: the
command line says every fact, note and sentence the page says, with the provenance (the page's card too); the
interval's held-out coverage has one decimal everywhere (the card said 96 %, the command line 95.8 %); a device
that is itself a measured target is said so on the command line too (it said "never measured"); the report's
per-workload headings name the unit once ("host's own (s) (s)" before); the report's provenance is the one
sentence of every result. The command line's text is the summary's own (``*.before.txt``: what it printed before,
every number of which it still prints)."""

import math
import re

import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import GOLDEN, check

SHIPPED = ["newapp", "--host", "GTX-680", "--target", "GTX-980", "--models", "none"]
HOPPER_SPEC = ("name=H100-ish,architecture=Hopper,sms=132,cuda_cores=16896,boost_clock_mhz=1980,"
               "memory_bandwidth_gbs=3350")
HOPPER = {"mode": "typed", "gpu_name": "H100-ish", "gpu_arch": "Hopper", "gpu_sms": "132", "gpu_cores": "16896",
          "gpu_clock": "1980", "gpu_bw": "3350"}


@pytest.mark.parametrize("name, argv", [
    ("application", [*SHIPPED, "--application", "heartwall"]),
    ("evaluation", SHIPPED),
    ("typed", ["newapp", "--host", "GTX-680", "--target-spec", HOPPER_SPEC]),
    ("table", ["newapp", "--host", "GTX-680", "--gpu", "Tesla-P100"]),
])
def test_the_command_line(name, argv):
    text = capture.cli(argv)
    check(f"newapp_cli_{name}.txt", text)
    before = (GOLDEN / f"newapp_cli_{name}.before.txt").read_text()
    assert [n for n in capture.lost_numbers(before, text) if not _said_to_six_digits(n, text)] == []


def _said_to_six_digits(token: str, text: str) -> bool:
    """Whether ``text`` says ``token``'s number to six significant digits, within one unit of ``token``'s last
    digit (rounding the six digits again can differ by one: 0.00081505 was 0.0008151 from the full value)."""
    want = float(token)
    unit = 10.0 ** (math.floor(math.log10(abs(want))) - capture._significant(token) + 1) if want else 0.0
    return any(abs(float(t.replace(",", "")) - want) <= unit for t in capture.NUMBER.findall(text))


def _runs():
    from dashboard.jobs.progress import silent
    from dashboard.newapp.kinds import NEWAPP

    return {name: NEWAPP.run(NEWAPP.request(q)["params"], silent) for name, q in (
        ("application", {"models": "none"}), ("typed", HOPPER), ("table", {"mode": "table", "gpu": "Tesla-P100"}))}


def test_the_page_and_the_report(var):
    import app  # noqa: F401 - registers the pages
    from dashboard.newapp import report, sections

    runs = _runs()
    card = sections.measured_content(runs["application"], None, None)[0]
    check("newapp_page_application.txt", capture.page(card))
    for name in ("typed", "table"):
        check(f"newapp_page_{name}.txt", capture.page(sections.hypo_content(runs[name])[0]))
        built = report.build(runs[name], "http://perfcast/new-app?x=1")
        check(f"newapp_report_{name}.txt", capture.report(built))
        s = runs[name].summary("s")
        assert built.facts == [(f.label, f.text) for f in s.facts]
    # the command line says what the page says, to the digit
    for name, argv in (("application", [*SHIPPED, "--application", "heartwall"]),
                       ("typed", ["newapp", "--host", "GTX-680", "--target-spec", HOPPER_SPEC])):
        s, text = runs[name].summary(), capture.cli(argv)
        assert all(re.search(rf"^{re.escape(f.label)} +{re.escape(f.text)}$", text, re.M) for f in s.facts)
        assert s.lead in text and all(f"note: {n.sentence}" in text for n in s.notes)
        assert capture.masked(s.provenance_text).split(" computed ")[0] in text
