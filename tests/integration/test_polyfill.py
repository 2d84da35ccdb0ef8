"""The small generator runtime instead of Babel's polyfill: pages load it and not the polyfill, it runs a
compiled generator body as Babel's regenerator does, and no bundle a page loads asks for more of it."""

import re
from pathlib import Path

import dash
import dash_ag_grid

from pc_browser import present, start

ROOT = Path(__file__).resolve().parents[2]


def test_pages_load_the_small_runtime_not_the_polyfill(perfcast_app):
    html = perfcast_app.server.test_client().get("/logca").get_data(as_text=True)
    assert "generator-runtime.js" in html
    assert "polyfill" not in html


def test_no_loaded_bundle_uses_more_than_mark_and_wrap():
    """The runtime implements mark and wrap for bodies without try/catch regions (their fourth argument)."""
    bundles = [*Path(dash.__file__).parent.glob("dash-renderer/build/*.min.js"),
               *Path(dash.__file__).parent.glob("dcc/*.js"), *Path(dash.__file__).parent.glob("html/*.js"),
               *Path(dash_ag_grid.__file__).parent.glob("*.js"), *(ROOT / "assets" / "vendor").glob("*.js")]
    used, calls = set(), 0
    for path in bundles:
        text = path.read_text(errors="ignore")
        used |= set(re.findall(r"regeneratorRuntime\.([A-Za-z]+)", text))
        for m in re.finditer(r"regeneratorRuntime\.wrap\(", text):
            args = _arguments(text, m.end())
            assert "[[" not in args[args.rfind("}"):], path  # no try/catch locations after the body
            calls += 1
    assert used == {"mark", "wrap"} and calls >= 2


def _arguments(text, start):
    """The text of a call's arguments, from just after its "(" to the matching ")"."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[start:i]
    raise AssertionError("unbalanced call")


GENERATOR = """
var body = function (t) {
  for (;;) switch (t.prev = t.next) {
    case 0: t.next = 2; return 'first';
    case 2: if (t.sent !== 1) { return t.abrupt('return', 'wrong value sent'); } t.next = 4; return 'second';
    case 4: return t.abrupt('return', t.sent + 1);
    case 'end': return t.stop();
  }
};
var g = regeneratorRuntime.wrap(body, regeneratorRuntime.mark(function f() {}), null);
var steps = [g.next(), g.next(1), g.next(5), g.next()];
var h = regeneratorRuntime.wrap(function (t) {
  for (;;) switch (t.prev = t.next) { case 0: t.next = 2; return 'x'; case 2: case 'end': return t.stop(); }
}, null, null);
steps.push(h.next(), h.next(), h.next());
var thrown = null;
try { regeneratorRuntime.wrap(body, null, null).throw(new Error('stop')); } catch (e) { thrown = e.message; }
return [steps, thrown];
"""


def test_the_runtime_runs_a_compiled_generator_body(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca")
    present(dash_duo.driver, "#logca-speedup-graph .main-svg", timeout=30)  # the lazy components came in
    steps, thrown = dash_duo.driver.execute_script(GENERATOR)
    assert steps == [{"value": "first", "done": False}, {"value": "second", "done": False},
                     {"value": 6, "done": True}, {"value": None, "done": True},
                     {"value": "x", "done": False}, {"value": None, "done": True}, {"value": None, "done": True}]
    assert thrown == "stop"
