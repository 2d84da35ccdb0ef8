"""A /predict link of 6,000 predictions: the page's first answer carries no row of the table (the grid asks
for a block of rows at a time, sorted and filtered over all 6,000 on the server) and the chart in packed form
(the same numbers, bit for bit); the export still holds every row."""

import base64
import json
from dataclasses import replace

import numpy as np
import plotly
import pytest

from dashboard import jobs
from dashboard.jobs.progress import silent
from dashboard.predict import figures, views
from dashboard.predict.kinds import PREDICT
from dashboard.ui import paged_rows

FAST = {"model": "NNLS", "transform": "logratio"}
N = 6000


@pytest.fixture(scope="module")
def small():
    return PREDICT.run(PREDICT.request(FAST)["params"], silent)


def _tiled(run, n=N):
    """``run``'s predictions repeated to ``n`` workloads (each repeat's values scaled by 1 + k/1000)."""
    p, m = run.prediction, len(run.prediction.ids)
    reps = -(-n // m)

    def tile(xs, scaled=False):
        if xs is None:
            return None
        return [None if x is None else (x * (1 + k / 1000) if scaled else x)
                for k in range(reps) for x in xs][:n]

    ids = [f"{w}#{k}" for k in range(reps) for w in p.ids][:n]
    num = {f: tile(getattr(p, f), True) for f in ("predicted", "lower", "upper", "baseline", "baseline_lower",
                                                   "baseline_upper")}
    return replace(run, prediction=replace(p, ids=ids, groups=tile(p.groups), applicable=tile(p.applicable),
                                           why=tile(p.why), out_of_range=tile(p.out_of_range),
                                           distance=tile(p.distance), **num))


def _components(node, out):
    if isinstance(node, dict):
        if node.get("type") and isinstance(node.get("props"), dict):
            out.append(node)
        for v in node.values():
            _components(v, out)
    elif isinstance(node, list):
        for v in node:
            _components(v, out)
    return out


def _decoded(spec):
    if isinstance(spec, dict):
        return np.frombuffer(base64.b64decode(spec["bdata"]), dtype="<" + spec["dtype"]).tolist()
    return spec


def test_the_first_answer_of_a_6000_row_result_holds_no_row_and_a_packed_chart(var, small):
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import predict as page

    params = PREDICT.request(FAST)["params"]
    run = _tiled(small)
    key = PREDICT.key(params)
    jobs.put_result(key, run)
    rows = views.table_rows(run)
    assert len(rows) == N

    first = json.loads(json.dumps(page.layout(**{k: str(v) for k, v in params.items()}),
                                  cls=plotly.utils.PlotlyJSONEncoder))
    grids = [c for c in _components(first, []) if c["type"] == "AgGrid"]
    table = next(g for g in grids if g["props"]["id"] == "predict-table")
    assert table["props"]["rowModelType"] == "infinite"
    assert sum(len(g["props"].get("rowData") or []) for g in grids) < 50  # no row of the 6,000 (other grids: few)
    assert not table["props"].get("rowData")
    text = json.dumps(first)
    assert text.count(rows[-1]["why"] or "inside the training data") <= 2  # the table's "why" column is not sent
    assert len(text) < 1_100_000  # the chart of 6,000 workloads packed (1.78 MB as plain lists)

    # the chart: every workload's numbers, identical to the plain figure's
    graph = next(c for c in _components(first, []) if c["props"].get("id") == "predict-graph")
    plain = figures.predictions(run, page._values_label(params), views.unit(run))
    packed = graph["props"]["figure"]
    assert len(packed["data"]) == len(plain["data"])
    for a, b in zip(packed["data"], plain["data"]):
        assert a["name"] == b["name"] and a["hovertemplate"] == b["hovertemplate"]
        keep = [i for i, y in enumerate(b["y"]) if y is not None] if "x0" not in a else range(N)
        xs = [1 + i for i in range(N)] if "x0" in a else _decoded(a["x"])
        assert xs == [b["x"][i] for i in keep]
        assert _decoded(a["y"]) == [b["y"][i] for i in keep]
        assert a["text"] == [b["text"][i] for i in keep]
        for bar in ("array", "arrayminus"):
            got = [None if np.isnan(v) else v for v in _decoded(a["error_y"][bar])]
            assert got == [b["error_y"][bar][i] for i in keep]
    assert packed["layout"]["yaxis"] == plain["layout"]["yaxis"]

    # the grid's blocks, cut from all 6,000 rows on the server
    got, cols = page._rows_of({"key": key})
    assert got == rows
    block, count = paged_rows.page(got, paged_rows.checked({"startRow": 0, "endRow": paged_rows.BLOCK},
                                                           page_kinds(cols)))
    assert count == N and block == rows[:paged_rows.BLOCK]
    last, _ = paged_rows.page(got, paged_rows.checked(
        {"startRow": 5900, "endRow": 6000, "sortModel": [{"colId": "id", "sort": "desc"}]}, page_kinds(cols)))
    assert [r["id"] for r in last] == sorted((r["id"] for r in rows), reverse=True)[5900:]
    assert len(views.export_frame(run)) == N  # the download: every row


def page_kinds(cols):
    from dashboard.ui.paged_grid import kinds_of

    return kinds_of(cols)


def test_a_forged_request_for_rows_shows_a_sentence_and_no_row(var, small):
    """The grid's callback, as the server runs it, on requests no grid makes."""
    import app  # noqa: F401 - registers the pages
    from dashboard.pages import predict as page
    from dashboard.ui.paged_grid import NOTHING, kinds_of

    key = PREDICT.key(PREDICT.request(FAST)["params"])
    jobs.put_result(key, small)
    rows, cols = page._rows_of({"key": key})
    assert set(kinds_of(cols)) == {"id", "applicable", "why", "application", "predicted", "lower", "upper",
                                   "baseline", "baseline_lower", "baseline_upper"}
    assert kinds_of(cols)["predicted"] == "number" and kinds_of(cols)["why"] == "text"
    assert page._rows_of(None) is None and page._rows_of({"key": "nope"}) is None
    assert NOTHING == {"rowData": [], "rowCount": 0}
