"""The one output block of the job pages (dashboard/ui/prediction_panel.py): every page's download, report, save
and saved-list callbacks are the panel's, a forged click does nothing anywhere, and the save's answers (refused,
nothing to save, saved, saved before, a full disk) are the same words on every page."""

import inspect

import pytest
from dash import no_update
from dash._callback import GLOBAL_CALLBACK_MAP

from dashboard.access import projects
from dashboard.state.files import StorageError

#: the output block's callbacks of each job page, by their outputs (as Dash names them)
OUTPUTS = {
    "/predict": ["predict-download.data", "predict-report.data",
                 "..predict-save-status.children...predict-saved-list.children.."],
    "/scenario": ["scenario-report.data", "..scenario-save-status.children...scenario-saved-list.children.."],
    "/counts": ["counts-pred-download.data", "counts-pred-report.data", "counts-pred-save-status.children"],
    "/phases": ["phases-new-download.data", "phases-new-report.data", "phases-new-save-status.children"],
    "/new-app": ["newapp-report.data"],
}
SAVES = [o for outs in OUTPUTS.values() for o in outs if "save-status" in o]


def _callback(output: str):
    import app  # registers the pages

    # Dash moves the registered callbacks into the app's own map when it first serves (an earlier test may have
    # made a request): look in both
    return inspect.unwrap({**GLOBAL_CALLBACK_MAP, **app.app.callback_map}[output]["callback"])


def _status(answer):
    return answer[0] if isinstance(answer, tuple) else answer


def test_every_job_pages_output_block_is_the_one_panel():
    pasted = [(page, o) for page, outs in OUTPUTS.items() for o in outs
              if _callback(o).__module__ != "dashboard.ui.prediction_panel"]
    assert pasted == []


@pytest.mark.parametrize("output", SAVES)
def test_a_forged_click_saves_nothing_and_a_real_one_is_answered(var, monkeypatch, output):
    from dashboard import jobs

    save = _callback(output)
    monkeypatch.setattr(jobs, "result_for", lambda ready: None)
    for forged in (True, "1", 0, -1, None, 1.0):
        answer = save(forged, {"key": "x"}, "name")
        assert all(a is no_update for a in (answer if isinstance(answer, tuple) else [answer])), forged
    first = str(_status(save(1, {"key": "x"}, "name")))
    assert "first; then save" in first and "alert-info" in first


@pytest.mark.parametrize("output", SAVES)
def test_a_viewer_is_refused_before_the_result_is_read(var, monkeypatch, output):
    from dashboard import jobs

    def never(ready):
        raise AssertionError("the result was read for a viewer")

    save = _callback(output)
    monkeypatch.setattr(jobs, "result_for", never)
    with projects.scope(projects.current_id(), role="viewer"):
        answer = save(1, {"key": "x"}, "name")
    assert "viewer" in str(_status(answer)).lower()
    if isinstance(answer, tuple):
        assert answer[1] is no_update  # the saved list stays as it is


def _panel(store, listed_on=None):
    from dashboard.ui import prediction_panel as panel

    return panel.Panel("t", lambda ready: {"ready": ready} if ready else None, key_of=lambda ready: f"k-{ready}",
                       saving=panel.Saving(store, "Run first; then save it.", listed_on))


def test_the_save_says_what_happened_in_the_same_words_on_every_page(var):
    seen = []

    def store(res, key, name):
        seen.append((res, key, name))
        return {"name": name or "untitled", "id": "pr-1", "existing": len(seen) > 1}

    from dashboard.ui.prediction_panel import save_answer

    status, saved = save_answer(_panel(store, "/predict"), 1, "r", "mine")
    assert saved and seen == [({"ready": "r"}, "k-r", "mine")]
    text = str(status)
    assert "Saved as" in text and "(pr-1); it is listed on " in text and "/predict" in text
    status, saved = save_answer(_panel(store), 2, "r", ["forged", "name"])
    assert saved and seen[-1][2] is None and "Already saved as" in str(status) and "(pr-1)." in str(status)
    status, saved = save_answer(_panel(store), 1, None, "mine")
    assert not saved and "Run first; then save it." in str(status) and len(seen) == 2


def test_a_full_disk_is_said_and_nothing_is_listed(var):
    def full(res, key, name):
        raise StorageError("the server's disk is full")

    from dashboard.ui.prediction_panel import save_answer

    status, saved = save_answer(_panel(full), 1, "r", "mine")
    assert not saved and "disk is full" in str(status)


def test_downloads_and_reports_need_a_click_a_result_and_a_file():
    from dashboard.ui import prediction_panel as panel

    made = []
    p = panel.Panel("t", lambda ready: {"r": 1} if ready else None,
                    export=lambda res, fmt: made.append(fmt) or (b"x", f"t.{fmt}"),
                    report=lambda res: None)
    assert panel.export_answer(p, "t-download-csv", None) is no_update
    assert panel.export_answer(p, "t-download-xlsx", "r") is no_update and made == []
    assert panel.export_answer(p, "t-download-parquet", "r")["filename"] == "t.parquet" and made == ["parquet"]
    assert panel.report_answer(p, 1, "r") is no_update  # this result has no report (/new-app's measured one)
    assert panel.report_answer(p, True, "r") is no_update


def test_the_new_app_report_is_only_for_a_never_built_gpu(var, monkeypatch):
    from dashboard import jobs

    report = _callback("newapp-report.data")
    monkeypatch.setattr(jobs, "result_for", lambda ready: {"application": {"rows": []}, "params": {}})
    assert report(1, {"key": "x"}) is no_update


@pytest.mark.parametrize("page", ["scenario", "predict", "counts", "phases", "newapp"])
def test_every_download_button_is_held_by_the_out_of_date_mark(var, page):
    """assets/stale.js holds the buttons ``P-download…`` of the job panel ``P`` whose Run is running: a download
    button named otherwise would hand out the previous result while the new one is computed."""
    import importlib

    from dash import html

    import app  # noqa: F401 - registers the pages

    tree = importlib.import_module(f"dashboard.pages.{page}").layout()
    parts = [c for c in tree._traverse() if isinstance(getattr(c, "id", None), str)]
    jobs = [c.id[:-len("-run")] for c in parts if c.id.endswith("-run")]
    buttons = [c.id for c in parts if isinstance(c, html.Button) and "download" in c.id]
    assert jobs and buttons
    assert [b for b in buttons if not any(b.startswith(f"{j}-download") for j in jobs)] == []
