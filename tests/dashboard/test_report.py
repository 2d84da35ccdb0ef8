"""The review report is one self-contained HTML file: plotly.js inlined, nothing fetched, every text escaped
(a dataset or workload named like markup stays text), charts as JSON a script element cannot end early."""

import json
import re

from dashboard.ui.report import Report, Section, Table, file_name

EVIL = "</script><script>alert(1)</script><img src=x onerror=alert(2)>"


def _report():
    fig = {"data": [{"type": "scatter", "x": [1, 2], "y": [3.0, float("nan")], "name": EVIL}],
           "layout": {"title": {"text": EVIL}}}
    return Report(title=f"Predictions {EVIL}", facts=[("model used", EVIL)],
                  sections=[Section("What it means", [EVIL], [fig], [Table([("id", "workload"), ("v", "value")],
                                                                           [{"id": EVIL, "v": 1.23456789}])])],
                  inputs={"dataset": EVIL, "models": ["a", "b"]}, provenance=f"code version abc {EVIL}",
                  link="http://127.0.0.1:8050/predict?a=1&b=<x>", generated="2026-11-23 20:00 UTC")


def test_the_report_is_self_contained_and_escapes_every_text():
    text = _report().html().decode()
    assert text.count("<script") == 3  # plotly.js, the chart's JSON, the drawing script: nothing else runs
    assert "alert(1)</script>" not in text and "<img src=x" not in text
    assert "&lt;/script&gt;&lt;script&gt;alert(1)" in text
    markup = re.sub(r"<script>.*?</script>", "", text, count=1, flags=re.S)  # all but the inlined plotly.js
    assert not re.search(r"""(src|href)=['"]?(https?:)?//(?!127\.0\.0\.1)""", markup)  # nothing fetched
    assert "Plotly" in text and len(text) > 1_000_000  # the plotly.js bundle is inside
    data = re.search(r"<script type='application/json' id='chart-0-data'>(.*?)</script>", text, re.S).group(1)
    fig = json.loads(data)
    assert fig["data"][0]["name"] == EVIL and fig["data"][0]["y"] == [3.0, None]  # NaN: a gap, not invalid JSON
    assert "1.235" in text and "[&quot;a&quot;, &quot;b&quot;]" in text  # 4 significant digits; lists as JSON


def test_file_names_carry_no_path():
    assert file_name("perfcast_predict_GTX/980 to ../x") == "perfcast_predict_GTX_980_to_.._x.html"
    assert "/" not in file_name("../../etc/passwd")
