"""The result on screen is marked when the form's inputs are no longer those it was computed for (the /new-app
heartwall result stayed unmarked after the mode was switched), on every page with a job panel: one mechanism in
the panel, tested here as the plain function it calls."""

import pathlib

from dashboard.crossgen.kinds import SCENARIO
from dashboard.jobs.panel import inputs_changed, job_panel
from dashboard.state.datasets import SHIPPED_ID
from dashboard.ui.stale import CHANGED


def _values(**over):
    v = {"dataset": SHIPPED_ID, "host": "GTX-680", "target": "GTX-980", "metric": "duration", "preset": "halwpe",
         "cv": "kfold", "folds": 10, "transform": "none", "seed": 0, **over}
    return [v.get(n) for n in SCENARIO.names]


def test_a_result_for_other_inputs_is_marked_and_one_for_these_is_not(var):
    shown = {"key": SCENARIO.request(dict(zip(SCENARIO.names, _values())))["key"]}
    assert inputs_changed(SCENARIO, _values(), shown) is None
    assert inputs_changed(SCENARIO, _values(seed=7), shown) == CHANGED
    assert inputs_changed(SCENARIO, _values(folds=5), shown) == CHANGED
    assert inputs_changed(SCENARIO, _values(folds=999), shown) == CHANGED  # no valid request: not this result
    assert "Run to update" in CHANGED
    # nothing on screen yet (the first run), or a forged ready store: nothing to mark
    assert inputs_changed(SCENARIO, _values(seed=7), None) is None
    assert inputs_changed(SCENARIO, _values(seed=7), {"key": "../x"}) is None


def test_the_panel_says_whether_a_result_is_on_screen(var):
    """The out-of-date line of a running job reads the slot's class: with no result on screen (a first run) it
    must not speak of a previous run's result."""
    def slot(panel):
        return next(c for c in panel.children if getattr(c, "id", None) == "scenario-changed")

    assert "has-result" not in slot(job_panel("scenario", None)).className
    js = (pathlib.Path(__file__).resolve().parents[2] / "assets" / "stale.js").read_text()
    assert "has-result" in js and "the result appears below when this run finishes" in js
