"""A method whose held-out estimates left the scale of the data (OLS at 127,614,103.8 % mean APE) carries a
note saying what that means, on the command line, in its JSON and on the page; a sane error carries none."""

import numpy as np

from modeling.newapp.results import ABSURD_APE, HeldOutEvaluation, MethodResult


def _methods():
    ols = MethodResult.from_errors("OLS", "model", [5.0, 8.0, 3.0, 1.0e9 + 1.4e7, 12.0, 7.0, 9.0, 4.0],
                                   groups=["a"] * 4 + ["b"] * 4)
    naive = MethodResult.from_errors("naive-pooled", "estimate", [20.0, 30.0, 10.0, 40.0, 25.0, 15.0, 35.0, 5.0],
                                     groups=["a"] * 4 + ["b"] * 4)
    return ols, naive


def test_an_absurd_mean_ape_has_a_note_and_a_sane_one_none():
    ols, naive = _methods()
    assert ols.mean_ape > 1e8 and ols.mean_ape > ABSURD_APE
    assert naive.note is None and "note" not in naive.to_dict()
    assert "not usable here" in ols.note and "extrapolated" in ols.note
    assert "half of its estimates are within 7.5 %" in ols.note
    assert ols.to_dict()["note"] == ols.note
    assert MethodResult.from_dict(ols.to_dict()) == ols  # the note is derived, not stored

    ev = HeldOutEvaluation(scenario={}, cv_label="leave one application out", n_workloads=8, excluded_rows=0,
                           groups=["a", "b"], methods=[naive, ols], warnings={})
    out = ev.summary().as_text()  # what the command line prints
    assert "note: OLS: not usable here: a mean APE of 126," in out
    assert f"{ols.mean_ape:,.0f}" in out  # the table prints the number whole, thousands separated


def test_the_page_says_the_same():
    from dashboard.newapp import views

    ols, naive = _methods()
    ev = HeldOutEvaluation(scenario={}, cv_label="leave one application out", n_workloads=8, excluded_rows=0,
                           groups=["a", "b"], methods=[naive, ols], warnings={})
    rows = {r["method"]: r for r in views.held_out_rows(ev)}
    assert rows["OLS"]["note"] == ols.note and rows["naive-pooled"]["note"] == ""
    assert any(c["field"] == "note" for c in views.held_out_columns(ev))
    assert np.isfinite(rows["OLS"]["mean_ape"])  # the number stays a number in the grid
