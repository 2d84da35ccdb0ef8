"""Time from opening a shared link (result cached) to the numbers and the chart, in headless Chromium.

Starts the server with the project's gunicorn settings on loopback, caches the
default scenario, then opens its link in Chromium: first in a new browser
profile (the JavaScript bundles are fetched cold), then again in the same
browser (bundles in the browser's cache, as for a colleague who has used the
tool before). Times are taken inside the page (from navigation start to the
moment the best E_out, and the first trace of the per-workload chart, appear).
Reports medians in seconds and the chart's ratio to the 1 s budget, when the page's last chart is
drawn (``all_charts_s``), and the bytes a new profile transfers on its first visit, for each side in the
same run:

* ``full`` (before): Dash's full plotly.js bundle and its lazy graph chunk, Babel's polyfill,
  the page delivered by Dash's router callback after the first layout, every chart drawn in one task,
  and scripts compressed for every request (``PERFCAST_PLOTLY_BUNDLE=full``, ``PERFCAST_POLYFILL=babel``,
  ``PERFCAST_FIRST_PAGE=router``, ``PERFCAST_CHART_ORDER=together``,
  ``PERFCAST_STATIC_COMPRESSION=per-request``);
* ``partial`` (after): the vendored partial bundle (its factory compiled eagerly), the small generator
  runtime, the page inside the first layout, the charts drawn one after another, and scripts compressed
  once per worker;
* ``partial-router`` (optional): the partial bundle with Babel's polyfill and the router callback,
  to see the bundle apart from the other two changes.

``pages`` is the same measurement for the shared link of every page with a chart
(results cached first), for each side: first numbers and first chart trace.

    .venv/bin/python benchmarks/shared_link.py [--opens 5] [--bundles full,partial[,partial-router]]
        [--pages all|none]

``--before REV --page PATH``: one page's shared link (cached results first, as ``pages``), opened by a
signed-in member, served by the code of commit ``REV`` (a temporary git worktree) and by this code, the two
servers taking turns (``--rounds``, each ``--opens`` new browser profiles), in the same run and on the same
database: what this code changed in the time to the first chart (both with today's ``partial`` settings).

    .venv/bin/python benchmarks/shared_link.py --before main --page /logca --opens 5 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BUDGET_S = 1.0
#: the server's environment on each side (module docstring)
SIDES = {"full": {"PERFCAST_PLOTLY_BUNDLE": "full", "PERFCAST_FIRST_PAGE": "router", "PERFCAST_POLYFILL": "babel",
                  "PERFCAST_CHART_ORDER": "together", "PERFCAST_STATIC_COMPRESSION": "per-request",
                  "PERFCAST_GRID_LOADING": "eager", "PERFCAST_LAYOUT_REQUEST": "renderer"},
         "partial": {"PERFCAST_PLOTLY_BUNDLE": "partial", "PERFCAST_FIRST_PAGE": "layout", "PERFCAST_POLYFILL": "none",
                     "PERFCAST_CHART_ORDER": "one-by-one", "PERFCAST_STATIC_COMPRESSION": "kept"},
         "partial-router": {"PERFCAST_PLOTLY_BUNDLE": "partial", "PERFCAST_FIRST_PAGE": "router",
                            "PERFCAST_POLYFILL": "babel", "PERFCAST_CHART_ORDER": "together",
                            "PERFCAST_STATIC_COMPRESSION": "per-request",
                            "PERFCAST_GRID_LOADING": "eager", "PERFCAST_LAYOUT_REQUEST": "renderer"}}


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options

    o = Options()
    for a in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"):
        o.add_argument(a)
    return webdriver.Chrome(options=o)


MARKS = """
window.__marks = {};
new MutationObserver(() => {
  const m = window.__marks, e = document.querySelector(%(numbers)s);
  if (!m.numbers && e && e.textContent.trim()) m.numbers = performance.now();
  if (!m.chart && document.querySelector(%(chart)s)) m.chart = performance.now();
  const graphs = [...document.querySelectorAll('.dash-graph')];
  if (!m.all && m.chart && graphs.every(g => g.querySelector('.main-svg'))) m.all = performance.now();
}).observe(document, {childList: true, subtree: true, characterData: true});
"""
SCENARIO_MARKS = ("#scenario-best-eout", "#scenario-workload-graph .scatterlayer .trace")
#: per page: (its numbers, its first chart's trace); a trace of any type (bars, lines, heatmaps)
PAGE_MARKS = {
    "/scenario": SCENARIO_MARKS,
    "/features": ("#features-top-feature", "#features-bars .trace"),
    "/generations": ("#generations-summary-grid .ag-cell", "#generations-speedup-graph .trace"),
    "/new-app": ("#newapp-best", "#newapp-graph .trace"),
    "/logca": ("#logca-grid .ag-cell", "#logca-speedup-graph .trace"),
    "/accelerometer": ("#accel-speedup-now", "#accel-bounds-graph .trace"),
    "/counts": ("#counts-summary", "#counts-heatmap .trace"),
    "/phases": ("#phases-summary", "#phases-trace .trace"),
}


def _watch(driver, marks=SCENARIO_MARKS) -> None:
    """Record, inside the page, when the numbers and the chart first appear (ms from navigation start)."""
    src = MARKS % {"numbers": json.dumps(marks[0]), "chart": json.dumps(marks[1])}
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": src})


BYTES = """return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
  .reduce((a, e) => a + (e.transferSize || 0), 0)"""


def _open(driver, url) -> tuple[float, float, int, float]:
    """Seconds from navigation start to the numbers, to the chart and to the page's last chart, as the page
    saw them, and bytes moved."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    marks = WebDriverWait(driver, 60, poll_frequency=0.05).until(
        lambda d: d.execute_script("const m = window.__marks; return m && m.numbers && m.all ? m : null"))
    return marks["numbers"] / 1000, marks["chart"] / 1000, int(driver.execute_script(BYTES)), marks["all"] / 1000


def _measure(url: str, opens: int, marks=SCENARIO_MARKS, cookie=None) -> dict:
    """``cookie``: the session cookie (testkit/signin.py) each new browser starts with, so it opens the
    link signed in without loading the sign-in page first."""
    from testkit.signin import set_browser_cookie

    cold, warm = [], []
    for i in range(opens):  # each a new browser profile: nothing cached
        d = _browser()
        if cookie:
            set_browser_cookie(d, url.split("/", 3)[0] + "//" + url.split("/", 3)[2], cookie)
        _watch(d, marks)
        try:
            cold.append(_open(d, url))
            if i == opens - 1:  # the same browser again: its cache holds the bundles
                for _ in range(opens):
                    d.get("about:blank")
                    warm.append(_open(d, url))
        finally:
            d.quit()

    def summary(xs):
        num = [x[0] for x in xs]
        chart = [x[1] for x in xs]
        return {"opens": len(xs), "numbers_s": round(statistics.median(num), 3),
                "chart_s": round(statistics.median(chart), 3),
                "chart_s_range": [round(min(chart), 3), round(max(chart), 3)],
                "chart_over_budget": round(statistics.median(chart) / BUDGET_S, 2),
                "all_charts_s": round(statistics.median(x[3] for x in xs), 3),
                "first_visit_kb": round(statistics.median(x[2] for x in xs) / 1024)}
    return {"new_browser_profile": summary(cold), "browser_used_before": summary(warm)}


def _page_links(only: str | None = None) -> dict:
    """Each page's default link (or page ``only``'s), its result computed and cached first (pages without a
    job draw at once)."""
    from dashboard.counts.kinds import COUNTS
    from dashboard.crossgen.kinds import GENERATIONS, RANKING, SCENARIO, cached
    from dashboard.newapp.kinds import NEWAPP
    from dashboard.phases.kinds import PHASES
    from dashboard.ui.url_state import to_query

    links = {}
    for path, kind in (("/scenario", SCENARIO), ("/features", RANKING), ("/generations", GENERATIONS),
                       ("/new-app", NEWAPP), ("/counts", COUNTS), ("/phases", PHASES)):
        if only and path != only:
            continue
        params = kind.request({})["params"]
        cached(kind, params)
        links[path] = f"{path}{to_query(params)}"
    links["/logca"] = "/logca"
    links["/accelerometer"] = "/accelerometer"
    return {p: link for p, link in links.items() if not only or p == only}


def run_pages(opens: int = 5, bundles=("full", "partial")) -> dict:
    """First numbers and first chart of every page's shared link, per plotly.js bundle, medians of ``opens``."""
    from benchmarks.load import _free_port, _gunicorn, _wait_up
    from testkit.signin import create_account, session_cookie, work_in_project

    account = create_account(dict(os.environ))
    work_in_project(dict(os.environ))
    links = _page_links()  # computed in the account's project (create_account + work_in_project)
    out = {path: {} for path in links}
    for bundle in bundles:
        port = _free_port()
        server = _gunicorn(port, {**os.environ, **SIDES[bundle]}, 4)
        try:
            _wait_up(f"http://127.0.0.1:{port}")
            cookie = session_cookie(f"http://127.0.0.1:{port}", account)
            for path, link in links.items():
                out[path][bundle] = _measure(f"http://127.0.0.1:{port}{link}", opens, PAGE_MARKS[path], cookie)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(30)
    return out


def run(opens: int = 5, bundles=("full", "partial"), pages: bool = True) -> dict:
    var = tempfile.mkdtemp(prefix="perfcast-link-")
    os.environ["PERFCAST_VAR_DIR"] = var
    from benchmarks.load import _free_port, _gunicorn, _wait_up
    from testkit.signin import create_account, session_cookie, work_in_project
    from dashboard.crossgen.kinds import SCENARIO, cached
    from dashboard.ui.url_state import to_query

    account = create_account({**os.environ, "PERFCAST_VAR_DIR": var})
    work_in_project({**os.environ, "PERFCAST_VAR_DIR": var})
    params = SCENARIO.request({})["params"]
    cached(SCENARIO, params)  # in the account's project (work_in_project)
    out = {}
    for bundle in bundles:
        port = _free_port()
        server = _gunicorn(port, {**os.environ, "PERFCAST_VAR_DIR": var, **SIDES[bundle]}, 4)
        try:
            _wait_up(f"http://127.0.0.1:{port}")
            cookie = session_cookie(f"http://127.0.0.1:{port}", account)
            out[bundle] = _measure(f"http://127.0.0.1:{port}/scenario{to_query(params)}", opens, cookie=cookie)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(30)
    if "full" in out and "partial" in out:
        out["chart_speedup_new_profile"] = round(out["full"]["new_browser_profile"]["chart_s"]
                                                 / out["partial"]["new_browser_profile"]["chart_s"], 2)
        out["first_visit_bytes_ratio"] = round(out["partial"]["new_browser_profile"]["first_visit_kb"]
                                               / out["full"]["new_browser_profile"]["first_visit_kb"], 2)
    if pages:
        out["pages"] = run_pages(opens, bundles)
    return out


def _server_in(where: Path, port: int, env: dict):
    """gunicorn with the project's settings, running the code in ``where`` (benchmarks/load.py's ``_gunicorn``
    runs this checkout's)."""
    import subprocess

    exe = Path(sys.executable).parent / "gunicorn"
    return subprocess.Popen([str(exe), "app:server", "-c", "gunicorn.conf.py", "--threads", "4", "--bind",
                             f"127.0.0.1:{port}", "--log-level", "warning"], cwd=where, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def run_before(rev: str, path: str, opens: int = 5, rounds: int = 2) -> dict:
    """``path``'s shared link served by commit ``rev``'s code and by this one, in turns (module docstring)."""
    import subprocess

    var = tempfile.mkdtemp(prefix="perfcast-link-")
    os.environ["PERFCAST_VAR_DIR"] = var
    from benchmarks.load import _free_port, _wait_up
    from testkit.signin import create_account, session_cookie, work_in_project

    account = create_account(dict(os.environ))
    work_in_project(dict(os.environ))
    link = _page_links(path)[path]
    before = Path(tempfile.mkdtemp(prefix="perfcast-before-")) / "tree"
    subprocess.run(["git", "worktree", "add", "--detach", str(before), rev], cwd=ROOT, check=True,
                   capture_output=True)
    runs: dict[str, list] = {"before": [], "now": []}
    try:
        for _ in range(rounds):
            for side, where in (("before", before), ("now", ROOT)):
                port = _free_port()
                server = _server_in(where, port, {**os.environ, **SIDES["partial"]})
                try:
                    _wait_up(f"http://127.0.0.1:{port}")
                    cookie = session_cookie(f"http://127.0.0.1:{port}", account)
                    runs[side].append(_measure(f"http://127.0.0.1:{port}{link}", opens, PAGE_MARKS[path],
                                               cookie)["new_browser_profile"])
                finally:
                    os.killpg(server.pid, signal.SIGTERM)
                    server.wait(30)
                print(f"[shared_link] {side}: {runs[side][-1]}", file=sys.stderr, flush=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, capture_output=True)
    med = {side: statistics.median(r["chart_s"] for r in rs) for side, rs in runs.items()}
    return {"page": path, "link": link, "before": rev, "opens_per_round": opens, "rounds": rounds,
            "chart_s_median_of_rounds": {k: round(v, 3) for k, v in med.items()},
            "before_over_now": round(med["before"] / med["now"], 2), "rounds_detail": runs}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--opens", type=int, default=5)
    ap.add_argument("--bundles", default="full,partial", help=f"sides, of {', '.join(SIDES)}")
    ap.add_argument("--pages", default="all", choices=["all", "none"])
    ap.add_argument("--before", default=None, help="a commit whose code serves the page beside this one's")
    ap.add_argument("--page", default="/logca", choices=list(PAGE_MARKS), help="with --before")
    ap.add_argument("--rounds", type=int, default=2, help="with --before")
    a = ap.parse_args()
    if a.before:
        print(json.dumps(run_before(a.before, a.page, a.opens, a.rounds), indent=2))
        return
    print(json.dumps(run(a.opens, tuple(b for b in a.bundles.split(",") if b), a.pages == "all"), indent=2))


if __name__ == "__main__":
    main()
