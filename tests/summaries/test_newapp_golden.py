"""/new-app says the same on the shipped data as the golden files: the command line's text (``python -m modeling
newapp``: an application held out, every application held out, a GPU never built or measured, typed and from the
device table), the page's summary cards and the report of a GPU never built or measured
(tests/summaries/golden/; ``PERFCAST_WRITE_GOLDEN=1`` writes them anew)."""

import pytest

from tests.summaries import capture
from tests.summaries.test_predict_golden import check

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
    check(f"newapp_cli_{name}.txt", capture.cli(argv))


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
