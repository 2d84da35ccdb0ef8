"""Hops on the server from a click to the first chart: for a /scenario Run on a cached result and for opening a
cached /scenario link, how many of perfcast's own functions run (distinct, and calls), in how many modules, and
in how many browser round trips.

A real server (werkzeug, threaded, in this process) answers a scripted browser
(:class:`testkit.dash_client.DashClient`) that sends the requests the Dash
renderer sends; a profiler on the server's request threads records every call
into ``dashboard/``, ``modeling/`` and ``app.py``. When Run's answer does not
carry the views (older code), the callbacks its ready store triggers are sent
as the next round trip and counted too. ``--json`` prints the figures as JSON.

    .venv/bin/python -m benchmarks.hops
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OWN = tuple(str(ROOT / d) + os.sep for d in ("dashboard", "modeling")) + (str(ROOT / "app.py"),)
VIEWS = ("scenario-summary.children", "scenario-workload-graph.figure", "scenario-ir-graph.figure",
         "scenario-steps-grid.rowData", "scenario-predict-link.href")


class Calls:
    """Calls into perfcast's own code on the threads it is installed on."""

    def __init__(self):
        self.calls: Counter = Counter()
        self.on = False

    def __call__(self, frame, event, arg):
        if event == "call" and self.on:
            path = frame.f_code.co_filename
            if path.startswith(OWN):
                self.calls[(os.path.relpath(path, ROOT), frame.f_code.co_name)] += 1

    def figures(self) -> dict:
        return {"functions": len(self.calls), "calls": sum(self.calls.values()),
                "modules": len({m for m, _ in self.calls})}


def _server(app):
    from werkzeug.serving import make_server

    srv = make_server("127.0.0.1", 0, app.server, threaded=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_port}"


def measure() -> dict:
    os.environ.setdefault("PERFCAST_VAR_DIR", tempfile.mkdtemp(prefix="perfcast-hops-"))
    sys.path.insert(0, str(ROOT))
    from testkit import signin
    from testkit.dash_client import DashClient

    env = dict(os.environ)
    account = signin.create_account(env)
    signin.work_in_project(env)
    app = importlib.import_module("app").app
    from dashboard.crossgen.kinds import SCENARIO, cached
    from dashboard.ui.url_state import to_query

    params = SCENARIO.request({})["params"]
    cached(SCENARIO, params)  # the form's defaults: Run and the link find them in the cache
    srv, base = _server(app)
    calls = Calls()
    threading.setprofile(calls)
    try:
        out = {}
        client = DashClient(base, account=account)
        # a Run click on the page's default form
        client.open("/scenario")
        form = {(f"scenario-{n}", "value"): v for n, v in params.items()}
        values = {("scenario-run", "n_clicks"): 1, ("scenario-cancel", "n_clicks"): 0, **form,
                  ("scenario-model", "value"): "RandomForest",
                  ("scenario-ir-models", "value"): ["RandomForest", "OLS/Forward/BIC", "NNLS/Backward/BIC"],
                  ("scenario-steps", "value"): "OLS/Forward/BIC"}
        calls.calls.clear()
        calls.on = True
        answer = client.call("scenario-status.children", values)
        trips = 1
        drawn = [v for v in VIEWS if v.rsplit(".", 1)[0] in answer]
        if not drawn:  # older code: the views come in the next round trip, triggered by the ready store
            ready = answer["scenario-ready"]["data"]
            for view in VIEWS:
                client.call(view, {**values, ("scenario-ready", "data"): ready})
            trips = 2
        calls.on = False
        out["run_cached"] = {**calls.figures(), "round_trips": trips}
        # a colleague opens the shared link: the router's answer is the page, drawn from the cache
        link = client.__class__(base, account=account)
        calls.calls.clear()
        calls.on = True
        layout = link.open(f"/scenario{to_query(params)}")
        calls.on = False
        assert "scenario-best-eout" in json.dumps(layout), "the link's page carries no result"
        out["link_cached"] = {**calls.figures(), "round_trips": 1}
        return out
    finally:
        threading.setprofile(None)
        srv.shutdown()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    got = measure()
    if args.json:
        print(json.dumps(got))
        return
    for what, f in got.items():
        print(f"{what:12s} {f['round_trips']} round trip(s), {f['functions']} functions ({f['calls']} calls) "
              f"in {f['modules']} modules")


if __name__ == "__main__":
    main()
