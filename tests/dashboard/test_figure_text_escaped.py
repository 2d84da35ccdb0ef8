"""Users' text in figures (issue 40, point 8): plotly draws labels, hover boxes, legends, ticks and annotations as
its own small HTML, so a workload or application named ``<a href=x>`` became a link and ``<style>`` a tag. Every
figure builder escapes users' text (dashboard/ui/figures.py ``safe``): the figure JSON carries ``&lt;a href=x&gt;``,
and the figure code's own markup (``<br>``, ``<extra>``) is kept. The HTML report embeds the same JSON."""

import json
import re

import plotly.graph_objects as go

from dashboard.accelerators import figures as acc_figures
from dashboard.crossgen import figures as crossgen
from dashboard.newapp import figures as newapp
from dashboard.ui import figures as ui_figures

WORKLOADS = ["<a href=x>w0</a>", "<b>w1</b>", "<style>w2</style>", "plain & simple"]
APPS = ["<a href=x>app</a>", "<b>app</b>", "<style>*{}</style>", "<a href=x>app</a>"]
ESCAPED = ["&lt;a href=x&gt;w0&lt;/a&gt;", "&lt;b&gt;w1&lt;/b&gt;", "&lt;style&gt;w2&lt;/style&gt;",
           "plain &amp; simple"]
RAW = ("<a href", "<b>w1", "<style>", "<b>app", "href=x>")


def _strings(obj):
    """Every string in a figure (its data and layout, not plotly's own template)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "template":
                yield from _strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _strings(v)


def _no_raw_markup(fig):
    go.Figure(fig)  # still a figure plotly accepts
    text = "\n".join(_strings(fig))
    for raw in RAW:
        assert raw not in text, (raw, [s for s in _strings(fig) if raw in s][:3])
    return text


def _crossgen_result():
    from tests.dashboard.crossgen.typed import ensemble, model

    obs = [3.0, 1.0, 2.0, 5.0]
    ir = {"10": 60.0, "50": 99.0}
    return ensemble(obs, WORKLOADS, [model("OLS", [2.9, 1.2, 2.0, 4.0], [3.3, 20.0, 0.0, 20.0], 5.0, ir)],
                    model("Baseline", obs, [0, 0, 0, 0], 0.0, ir), groups=APPS)


def test_workload_and_application_names_reach_the_figure_escaped():
    fig = crossgen.per_workload(_crossgen_result(), "OLS")
    text = _no_raw_markup(fig)
    bar = fig["data"][0]
    assert sorted(c[0] for c in bar["customdata"]) == sorted(ESCAPED)
    assert "&lt;a href=x&gt;app&lt;/a&gt;" in [c[1] for c in bar["customdata"]]
    assert bar["hovertemplate"] == "%{customdata[0]}<br>%{customdata[1]}<br>APE %{y:.2f} %<extra></extra>"
    assert "&lt;style&gt;*{}&lt;/style&gt;" in text


def test_speedups_side_by_side_and_an_empty_figure_escape_names_too():
    from dashboard.crossgen.results import GenerationsRun

    gen = GenerationsRun({}, "GTX-680", ["<a href=x>GPU</a>"], [], {},
                         {"<a href=x>GPU</a>": dict(zip(WORKLOADS, [2.0, 0.5, 1.0, 3.0]))}, {},
                         {"<a href=x>GPU</a>": dict(zip(WORKLOADS, [1e4, 1e5, 2e4, 3e4]))}, dict(zip(WORKLOADS, APPS)))
    for fig in (crossgen.speedups(gen), crossgen.simulator_speedups(gen),
                crossgen.side_by_side(_crossgen_result(), _crossgen_result(), "<b>left</b>", "<style>right</style>")):
        _no_raw_markup(fig)
    msg = ui_figures.empty("<a href=x>block</a>: every count is zero")["layout"]["annotations"][0]["text"]
    assert msg == "&lt;a href=x&gt;block&lt;/a&gt;: every count is zero"


def test_a_device_and_applications_in_the_new_gpu_figure_are_escaped():
    rows = [{"id": w, "application": a, "class": "memory", "host": h, "point": h / 2, "lower": h / 3,
             "upper": h / 1.5} for w, a, h in zip(WORKLOADS, APPS, [1.0, 2.0, 3.0, 4.0])]
    from modeling.newapp.hypothetical import HypotheticalEstimate, TrackRecord

    est = HypotheticalEstimate({"device": "<a href=x>H100</a>"}, {}, "time", "typed", rows, {}, {},
                               TrackRecord("host", "time", "none"), {"verdict": "no record"}, [], {})
    fig = newapp.hypothetical(est, "s")
    _no_raw_markup(fig)
    assert {t["name"] for t in fig["data"]} == {"&lt;a href=x&gt;app&lt;/a&gt;", "&lt;b&gt;app&lt;/b&gt;",
                                                 "&lt;style&gt;*{}&lt;/style&gt;"}


def test_the_accelerator_builder_escapes_what_it_is_given():
    fig = acc_figures._figure([acc_figures._line([1, 2], [1, 2], "<a href=x>kernel</a>", "#000",
                                                 hovertemplate="%{x}<extra><style>k</style></extra>")],
                              "<a href=x>title</a>", 300)
    _no_raw_markup(fig)
    assert fig["data"][0]["name"] == "&lt;a href=x&gt;kernel&lt;/a&gt;"
    assert fig["data"][0]["hovertemplate"] == "%{x}<extra>&lt;style&gt;k&lt;/style&gt;</extra>"


def test_the_code_s_own_markup_survives_and_users_links_do_not():
    safe = ui_figures.safe({"data": [{"type": "bar", "x": ["<b>a</b>"], "y": [1.0],
                                      "hovertemplate": "<b>%{x}</b><br>target <a href='//evil'>T</a>"
                                                       "<span style='font-size:80px'>S</span><sup>2</sup>"}],
                            "layout": {"title": {"text": "<i>ok</i> <a href=x>no</a>"},
                                       "annotations": [{"text": "<br><b>b</b><style>s</style>"}]}})
    trace, layout = safe["data"][0], safe["layout"]
    assert trace["x"] == ["&lt;b&gt;a&lt;/b&gt;"] and trace["y"] == [1.0]
    assert trace["hovertemplate"] == ("<b>%{x}</b><br>target &lt;a href='//evil'&gt;T&lt;/a&gt;"
                                      "&lt;span style='font-size:80px'&gt;S&lt;/span&gt;<sup>2</sup>")
    assert layout["title"]["text"] == "<i>ok</i> &lt;a href=x&gt;no&lt;/a&gt;"
    assert layout["annotations"][0]["text"] == "<br><b>b</b>&lt;style&gt;s&lt;/style&gt;"


def test_the_html_report_embeds_the_escaped_figure():
    from dashboard.ui import report

    if not report.PLOTLY_JS:
        import pytest

        pytest.skip("no vendored plotly.js bundle (scripts/vendor_plotly.sh)")
    fig = crossgen.per_workload(_crossgen_result(), "OLS")
    page = report.render(report.Report("<b>r</b>", [("best", "<a href=x>OLS</a>")],
                                       [report.Section("<style>s</style>", ["<a href=x>note</a>"], [fig])],
                                       {"dataset": "<b>d</b>"}, "p", "/scenario", "now")).decode()
    embedded = json.loads(re.search(r"id='chart-0-data'>(.*?)</script>", page).group(1))
    assert sorted(c[0] for c in embedded["data"][0]["customdata"]) == sorted(ESCAPED)
    body = page.split("</head>", 1)[1]
    assert "<a href=x>" not in body and "<style>s" not in body and "&lt;a href=x&gt;note&lt;/a&gt;" in body
