"""A viewer sees every Save and upload control disabled with the reason beside it (they used to look usable
until clicked); an editor sees them usable. The server refuses a viewer's change either way."""

import pytest

from dash import dcc, html

from dashboard.access import projects

PAGES = ["data", "newapp", "logca", "counts", "plan", "phases", "predict", "scenario"]


def _walk(c):
    yield c
    kids = getattr(c, "children", None)
    for k in (kids if isinstance(kids, (list, tuple)) else [kids]):
        if hasattr(k, "to_plotly_json"):
            yield from _walk(k)


def _controls(page):
    out = []
    for c in _walk(page):
        if isinstance(c, dcc.Upload):
            out.append(("upload", c))
        elif isinstance(c, html.Button) and isinstance(c.children, str) and c.children.startswith("Save"):
            out.append(("save", c))
    return out


@pytest.mark.parametrize("name", PAGES)
def test_save_and_upload_controls_as_each_role_sees_them(var, name):
    import importlib

    import app  # noqa: F401 - registers the pages

    mod = importlib.import_module(f"dashboard.pages.{name}")
    here = projects.current_id()
    with projects.scope(here, role="viewer"):
        page = mod.layout()
    controls = _controls(page)
    assert controls, f"/{name} has no save or upload control"
    text = str(page)
    for kind, c in controls:
        assert c.disabled is True, (name, kind, getattr(c, "id", None))
    assert "viewers cannot" in text
    with projects.scope(here, role="editor"):
        page = mod.layout()
    for kind, c in _controls(page):
        if kind == "save" or name != "newapp":  # /new-app's device upload is off on the shipped dataset anyway
            assert not getattr(c, "disabled", False), (name, kind, getattr(c, "id", None))
    assert "viewers cannot" not in str(page)
