"""/new-app's views: grid columns wide enough for their values and headers (nothing cut at 1280 px), and the
headline facts read from the result types."""

import numpy as np

from dashboard.newapp import views
from dashboard.ui import components as px
from modeling.newapp.application import estimate_application
from modeling.newapp.data import shipped_table
from modeling.newapp.results import MethodResult


def width(cols, field):
    return next(c for c in cols if c["field"] == field)["minWidth"]


def test_text_columns_are_as_wide_as_their_longest_value_up_to_a_cap():
    rows = [{"id": "bpnn_adjust_weights_cuda:10240x0", "application": "backprop", "kernel": "bpnn_adjust_weights_cuda",
             "class": "latency"},
            {"id": "x" * 80, "application": "a", "kernel": "k", "class": "memory"}]
    cols = views.hypo_columns("s", rows[:1])
    assert width(cols, "id") >= len(rows[0]["id"]) * px.CHAR_PX + px.CELL_PAD_PX
    assert width(cols, "kernel") >= len(rows[0]["kernel"]) * px.CHAR_PX + px.CELL_PAD_PX
    # a one-word header keeps room for itself and the filter icon ("applica…" before)
    assert width(cols, "application") >= len("application") * px.CHAR_PX + px.CELL_PAD_PX + px.HEADER_ICON_PX
    long = views.hypo_columns("s", rows)
    assert width(long, "id") == px.MAX_COL_PX and next(c for c in long if c["field"] == "id")["tooltipField"] == "id"
    assert views.hypo_columns("s")[0]["pinned"] == "left"  # before any result: the defaults


def test_headers_wrap_after_hyphens_but_not_inside_a_slash_name():
    hyphen = views.fitted({"field": "f", "headerName": "naive-balanced low"})
    slash = views.fitted({"field": "f", "headerName": "NNLS/Backward/AIC"})
    assert hyphen["minWidth"] == len("balanced") * px.CHAR_PX + px.CELL_PAD_PX + px.HEADER_ICON_PX
    assert slash["minWidth"] == len("NNLS/Backward/AIC") * px.CHAR_PX + px.CELL_PAD_PX + px.HEADER_ICON_PX


def test_a_model_off_by_millions_of_percent_is_shown_whole():
    app = estimate_application(shipped_table("GTX-680", "GTX-980"), "lud", models=[])
    huge = MethodResult.from_errors("OLS", "model", np.array([111074668.6, 2.0, np.nan]))
    app.methods.append(huge)
    cols = views.method_columns(app)
    text = f"{huge.mean_ape:,.1f}"
    assert width(cols, "mean_ape") >= len(text) * px.CHAR_PX + px.CELL_PAD_PX
    assert width(cols, "within_10") < width(cols, "mean_ape")  # percentages stay narrow
    assert [c["field"] for c in cols] == [c["field"] for c in views.method_columns()]


def test_track_columns_fit_the_pooled_architectures():
    rows = [{"target": "all pairs pooled", "architecture": "Kepler, Maxwell, Pascal"}]
    assert width(views.track_columns(rows), "architecture") >= len(rows[0]["architecture"]) * px.CHAR_PX


def test_facts_and_notes_read_the_result():
    t = shipped_table("GTX-680", "GTX-980")
    hw = [i for i, g in zip(t.ids, t.groups) if g == "heartwall"]
    app = estimate_application(t, "heartwall", [{"id": hw[4]}], models=[])
    facts = {f.label: f.value for f in app.summary().facts}
    means = {m.method: m.mean_ape for m in app.methods if m.mean_ape is not None}
    best = min(means, key=means.get)
    assert facts["lowest mean APE"] == f"{best}: {means[best]:.1f} %"
    assert facts["naive-pooled mean APE"] == f"{means['naive-pooled']:.1f} %"
    roof = app.method("roofline")
    note = views.method_note(roof, app)
    assert note.startswith(", ".join(f"{n} {c}-bound" for c, n in roof.class_counts.items()))
    assert views.method_note(app.method("one-run"), app).startswith("heartwall_kernel: ratio")
    text = views.calibration_text(app, hw[4])
    assert f"other {len(hw) - 1} input(s)" in text


def test_an_uploads_card_names_its_metric_as_the_page_does(var):
    """The card's sentence names the metric the page's parameters chose (an upload's: its target column's values),
    not the one its table's scenario carries; without specs the roofline's are "none chosen"."""
    import pandas as pd

    from dashboard.newapp import work
    from dashboard.newapp.kinds import NEWAPP
    from dashboard.state import datasets

    rng = np.random.default_rng(1)
    host = rng.uniform(1, 10, 24)
    df = pd.DataFrame({"w": [f"w{i}" for i in range(24)], "app": np.repeat(["a", "b", "c"], 8),
                       "x1": rng.uniform(1, 2, 24), "host_t": host, "t": host * 0.5})
    meta = datasets.save_dataset(df, "three apps", {"id_col": "w", "group_col": "app", "targets": ["t"],
                                                    "features": ["x1", "host_t"], "host_col": "host_t",
                                                    "repeat_col": None})
    run = work.newapp_result(NEWAPP.request({"dataset": meta["id"], "application": "b", "models": "none"})["params"])
    s = run.summary()
    assert "the target column's values; roofline specs: none chosen." in s.lead
    assert s.fact("best").value == "naive-pooled: 0.0 %"
