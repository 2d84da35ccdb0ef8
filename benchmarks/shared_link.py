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

``--results``: result pages against the plain app. A /predict link of 6,000 predictions (an uploaded table of
6,000 workloads), the default /scenario leaderboard and a /plan round, each cached first and opened by a
signed-in member, and beside each the simplest Dash app that draws one chart of the same shape
(``benchmarks/plain_app.py``: Dash's defaults, no sign-in, no callbacks; its figure is the page's own first
chart as the browser drew it), both served by gunicorn and opened in new browser profiles in turns
(``--opens`` each per page). Reports per page the medians to the first chart and to the first row of the table,
the bytes transferred, and the page's first chart over the plain app's (goal: at most 1.5).

    .venv/bin/python benchmarks/shared_link.py --results [--opens 5] [--rows 6000]
        [--result-pages /predict,/scenario,/plan]
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
#: result pages (``--results``): their first rows of the table, their first chart's trace
RESULT_MARKS = {
    "/predict": ("#predict-table .ag-cell", "#predict-graph .trace"),
    "/scenario": ("#scenario-leaderboard .ag-cell", "#scenario-workload-graph .trace"),
    "/plan": ("#plan-batch .ag-cell", "#plan-replay .trace"),
}
RESULT_GRAPH = {"/predict": "predict-graph", "/scenario": "scenario-workload-graph", "/plan": "plan-replay"}
PLAIN_MARKS = ("#plain-graph .main-svg", "#plain-graph .trace")


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


def _predict_link(rows: int) -> str:
    """A /predict link of ``rows`` predictions: the shipped workloads' GTX-680 counters, repeated with each
    repeat's counters scaled (1 + k/100), uploaded as a table and predicted (NNLS on the log ratio, cached)."""
    import base64

    import pandas as pd

    from dashboard.crossgen.kinds import cached
    from dashboard.predict.inputs import store_upload
    from dashboard.predict.kinds import PREDICT
    from dashboard.ui.url_state import to_query
    from modeling import shipped

    w = shipped.workloads()
    feats = shipped.counters()["counter"].tolist()
    cols = [f"{f}@GTX-680" for f in feats]
    base = w[w[cols].notna().all(axis=1)]
    parts, k = [], 0
    while sum(len(p) for p in parts) < rows:
        part = pd.DataFrame({"workload": [f"{x}#{k}" for x in base["workload"]],
                             "application": base["application"].to_numpy(),
                             **{f: base[f"{f}@GTX-680"].to_numpy() * (1 + k / 100) for f in feats}})
        parts.append(part)
        k += 1
    table = pd.concat(parts, ignore_index=True).head(rows)
    contents = "data:text/csv;base64," + base64.b64encode(table.to_csv(index=False).encode()).decode()
    scen = {"dataset": "rodinia", "host": "GTX-680", "target": "GTX-980", "metric": "duration"}
    meta, _ = store_upload(contents, "to_predict.csv", scen)
    params = PREDICT.request({**scen, "model": "NNLS", "transform": "logratio", "source": meta["id"]})["params"]
    cached(PREDICT, params)
    return f"/predict{to_query(params)}"


def _result_links(rows: int, only=("/predict", "/scenario", "/plan")) -> dict:
    """The result pages' links (those of ``only``), each result computed and cached first (in the benchmark's
    project)."""
    from dashboard.crossgen.kinds import SCENARIO, cached
    from dashboard.plan.kinds import PLAN
    from dashboard.ui.url_state import to_query

    links = {"/predict": _predict_link(rows)} if "/predict" in only else {}
    for path, kind in (("/scenario", SCENARIO), ("/plan", PLAN)):
        if path not in only:
            continue
        params = kind.request({})["params"]
        cached(kind, params)
        links[path] = f"{path}{to_query(params)}"
    return links


#: the figure of a drawn chart as plain JSON lists (what a Dash app's figure is by default): a typed array, or
#: plotly.js's base64 form of one, as a list (a gap as null), plotly.js's own keys (``_...``) left out
FIGURE_OF = """const gd = document.querySelector('#' + arguments[0] + ' .js-plotly-plot');
const list = a => Array.from(a, x => Number.isFinite(x) ? x : null);
const plain = (k, v) => {
  if (k && k[0] === '_') return undefined;
  if (v && typeof v === 'object' && typeof v.bdata === 'string' && v.dtype) {
    const raw = atob(v.bdata), bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return list(new ({f8: Float64Array, f4: Float32Array, i4: Int32Array, u1: Uint8Array}[v.dtype])(bytes.buffer));
  }
  return ArrayBuffer.isView(v) ? list(v) : v;
};
return gd && gd.data ? JSON.stringify({data: gd.data, layout: gd.layout}, plain) : null"""


def _drawn_figure(url: str, graph: str, marks, cookie) -> tuple[str, int]:
    """The figure of the page's chart ``graph`` as the browser drew it (JSON), and how many rows the page's
    table holds in the browser (rows sent to it so far)."""
    from selenium.webdriver.support.ui import WebDriverWait
    from testkit.signin import set_browser_cookie

    d = _browser()
    try:
        set_browser_cookie(d, url.split("/", 3)[0] + "//" + url.split("/", 3)[2], cookie)
        _watch(d, marks)
        d.get(url)
        WebDriverWait(d, 120, poll_frequency=0.1).until(
            lambda d: d.execute_script("const m = window.__marks; return m && m.numbers && m.all"))
        fig = WebDriverWait(d, 60, poll_frequency=0.2).until(lambda d: d.execute_script(FIGURE_OF, graph))
        return fig, len(d.find_elements("css selector", "#" + marks[0].split()[0][1:] + " .ag-row"))
    finally:
        d.quit()


def _open_fresh(url: str, marks, cookie=None) -> tuple[float, float, int, float]:
    """One open of ``url`` in a new browser profile (:func:`_open`)."""
    from testkit.signin import set_browser_cookie

    d = _browser()
    try:
        if cookie:
            set_browser_cookie(d, url.split("/", 3)[0] + "//" + url.split("/", 3)[2], cookie)
        _watch(d, marks)
        return _open(d, url)
    finally:
        d.quit()


def run_results(opens: int = 5, rows: int = 6000, only=tuple(RESULT_MARKS)) -> dict:
    """Each result page's shared link against the plain app drawing its chart, in turns (module docstring)."""
    import subprocess

    var = tempfile.mkdtemp(prefix="perfcast-results-")
    os.environ["PERFCAST_VAR_DIR"] = var
    from benchmarks.load import _free_port, _gunicorn, _wait_up
    from testkit.signin import create_account, session_cookie, work_in_project

    account = create_account(dict(os.environ))
    work_in_project(dict(os.environ))
    links = _result_links(rows, only)
    port = _free_port()
    server = _gunicorn(port, {**os.environ, **SIDES["partial"]}, 4)
    base = f"http://127.0.0.1:{port}"
    out = {"load_before": [round(x, 2) for x in os.getloadavg()]}
    try:
        _wait_up(base, 600)  # a worker lays out every page when it starts: minutes on a loaded machine
        cookie = session_cookie(base, account)
        for path, link in links.items():
            fig, rows_in_browser = _drawn_figure(base + link, RESULT_GRAPH[path], RESULT_MARKS[path], cookie)
            fig_file = Path(var) / f"figure{path.replace('/', '-')}.json"
            fig_file.write_text(fig)
            plain_port = _free_port()
            exe = Path(sys.executable).parent / "gunicorn"
            # gunicorn's own defaults (no project settings: started where there is no gunicorn.conf.py)
            plain = subprocess.Popen([str(exe), "plain_app:server", "--threads", "4",
                                      "--bind", f"127.0.0.1:{plain_port}", "--log-level", "warning"],
                                     cwd=ROOT / "benchmarks",
                                     env={**os.environ, "PERFCAST_PLAIN_FIGURE": str(fig_file)},
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            try:
                _wait_up(f"http://127.0.0.1:{plain_port}", 600)
                page, ref = [], []
                for _ in range(opens):  # in turns: the page, then the plain app
                    page.append(_open_fresh(base + link, RESULT_MARKS[path], cookie))
                    ref.append(_open_fresh(f"http://127.0.0.1:{plain_port}/", PLAIN_MARKS))
            finally:
                os.killpg(plain.pid, signal.SIGTERM)
                plain.wait(30)

            def med(xs, i):
                return round(statistics.median(x[i] for x in xs), 3)
            out[path] = {"link": link, "figure_kb": round(len(fig) / 1024), "rows_in_browser": rows_in_browser,
                         "page": {"first_rows_s": med(page, 0), "chart_s": med(page, 1),
                                  "chart_s_range": [round(min(x[1] for x in page), 3),
                                                    round(max(x[1] for x in page), 3)],
                                  "first_visit_kb": round(statistics.median(x[2] for x in page) / 1024)},
                         "plain_app": {"chart_s": med(ref, 1),
                                       "first_visit_kb": round(statistics.median(x[2] for x in ref) / 1024)}}
            out[path]["chart_over_plain"] = round(out[path]["page"]["chart_s"] / out[path]["plain_app"]["chart_s"], 2)
            print(f"[shared_link] {path}: {json.dumps(out[path])}", file=sys.stderr, flush=True)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)
    out["load_after"] = [round(x, 2) for x in os.getloadavg()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--opens", type=int, default=5)
    ap.add_argument("--bundles", default="full,partial", help=f"sides, of {', '.join(SIDES)}")
    ap.add_argument("--pages", default="all", choices=["all", "none"])
    ap.add_argument("--before", default=None, help="a commit whose code serves the page beside this one's")
    ap.add_argument("--page", default="/logca", choices=list(PAGE_MARKS), help="with --before")
    ap.add_argument("--rounds", type=int, default=2, help="with --before")
    ap.add_argument("--results", action="store_true", help="result pages against the plain Dash app")
    ap.add_argument("--rows", type=int, default=6000, help="with --results: the /predict link's predictions")
    ap.add_argument("--result-pages", default=",".join(RESULT_MARKS), help="with --results: which of them")
    a = ap.parse_args()
    if a.results:
        print(json.dumps(run_results(a.opens, a.rows, tuple(a.result_pages.split(","))), indent=2))
        return
    if a.before:
        print(json.dumps(run_before(a.before, a.page, a.opens, a.rounds), indent=2))
        return
    print(json.dumps(run(a.opens, tuple(b for b in a.bundles.split(",") if b), a.pages == "all"), indent=2))


if __name__ == "__main__":
    main()
