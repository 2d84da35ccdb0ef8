"""A scripted browser for load tests: speaks the Dash renderer's HTTP protocol.

It opens a page the way the renderer does (the page, the layout, the callback
graph, the pages router callback), fires callbacks by their output, and runs
background callbacks to the end by polling with the signed job handles the
server hands out. Loopback only: it is pointed at a server this process started.
"""

from __future__ import annotations

import json
import re
import time

import requests

CONFIG = re.compile(r'<script id="_dash-config" type="application/json">(.*?)</script>', re.S)


class DashError(RuntimeError):
    """The server answered a request with an unexpected status."""

    def __init__(self, status: int, what: str):
        super().__init__(f"HTTP {status} for {what}")
        self.status = status


class DashClient:
    """One user: a requests session, signed in with ``account`` (default ``testkit.signin.DEFAULT_ACCOUNT``)
    through /login, plus the page load's signed ``endId``."""

    def __init__(self, base: str, timeout: float = 60.0, on_request=None, account=None):
        from testkit import signin

        self.base = base.rstrip("/")
        self.http = requests.Session()
        account = account or signin.DEFAULT_ACCOUNT
        if account is not None:
            signin.sign_in(self.http, self.base, account, timeout)
        self.timeout = timeout
        self.end_id = None
        self.deps: dict[str, dict] = {}
        self.on_request = on_request or (lambda kind, seconds, status: None)
        self.reset_polls = 0

    def _send(self, kind: str, method: str, url: str, **kw) -> requests.Response:
        t = time.perf_counter()
        try:
            r = self.http.request(method, self.base + url, timeout=self.timeout, **kw)
        except requests.RequestException:
            self.on_request(kind, time.perf_counter() - t, 0)
            raise
        self.on_request(kind, time.perf_counter() - t, r.status_code)
        if r.status_code >= 400:
            raise DashError(r.status_code, f"{method} {url[:80]}")
        return r

    def open(self, path: str) -> dict:
        """Load ``path`` as the renderer does; returns the page layout (the router's output)."""
        page = self._send("page", "GET", path)
        cfg = json.loads(CONFIG.search(page.text).group(1))
        self.end_id = cfg.get("end_id")
        self._send("layout", "GET", "/_dash-layout")
        if not self.deps:
            self.deps = {d["output"]: d for d in self._send("dependencies", "GET", "/_dash-dependencies").json()}
        pathname, _, search = path.partition("?")
        out = self.call("_pages_content.children", {("_pages_location", "pathname"): pathname,
                                                    ("_pages_location", "search"): f"?{search}" if search else ""})
        self.layout = out["_pages_content"]["children"]
        return self.layout

    def layout_value(self, component_id: str, prop: str = "data"):
        """``prop`` of the component ``component_id`` in the page last opened (as the browser would send it as
        a State, e.g. the project a form was laid out in); None when the page has no such component."""
        stack = [getattr(self, "layout", None)]
        while stack:
            node = stack.pop()
            if isinstance(node, list):
                stack.extend(node)
            elif isinstance(node, dict):
                props = node.get("props", {})
                if props.get("id") == component_id:
                    return props.get(prop)
                stack.extend(v for v in props.values() if isinstance(v, (list, dict)))
        return None

    def _dep(self, output: str) -> dict:
        for spec, dep in self.deps.items():
            names = spec.strip(".").split("...") if spec.startswith("..") else [spec]
            if output in names:
                return dep
        raise KeyError(f"no callback has the output {output}")

    def _body(self, dep: dict, values: dict) -> dict:
        spec = dep["output"]
        outs = [dict(zip(("id", "property"), o.rsplit(".", 1)))
                for o in (spec.strip(".").split("...") if spec.startswith("..") else [spec])]

        def filled(items):
            return [{"id": x["id"], "property": x["property"], "value": values.get((x["id"], x["property"]))}
                    for x in items]
        inputs = filled(dep["inputs"])
        return {"output": spec, "outputs": outs if spec.startswith("..") else outs[0], "inputs": inputs,
                "state": filled(dep.get("state", [])),
                "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"]}

    def call(self, output: str, values: dict, kind: str = "callback") -> dict:
        """Fire the callback that writes ``output`` with the given (id, prop) -> value inputs and states."""
        r = self._send(kind, "POST", f"/_dash-update-component?endId={self.end_id}", json=self._body(
            self._dep(output), values))
        return r.json()["response"] if r.status_code == 200 else {}

    def run_background(self, output: str, values: dict, poll: float = 0.5, limit: float = 600.0,
                       tick=None, poll_through: DashClient | None = None) -> dict:
        """Start a background callback and poll it to its answer (``{}`` if it was stopped).

        ``tick()`` runs between polls (a page's own timers, e.g. its watchdog). ``poll_through``: another
        client (another web server) that the polls go to, as behind a load balancer."""
        body = self._body(self._dep(output), values)
        url = f"/_dash-update-component?endId={self.end_id}"
        first = self._send("job-start", "POST", url, json=body).json()
        handles = {"cacheKey": first["cacheKey"], "job": first["job"]}
        self.last_job = first["job"]  # the signed job id the server gave (its value in clear, then its MAC)
        deadline = time.time() + limit
        while time.time() < deadline:
            time.sleep(poll)
            try:
                if tick:
                    tick()
                r = (poll_through or self)._send("job-poll", "POST", url, params=handles, json=body)
                got = None if r.status_code == 204 else r.json()
            except (requests.ConnectionError, requests.JSONDecodeError):
                # the worker answering died (a reset, or a body cut short: urllib3 < 2 does not enforce
                # Content-Length): poll again, as a page's next tick does
                self.reset_polls += 1
                continue
            if got is None:
                return {}
            if "response" in got:
                return got["response"]
        raise TimeoutError(f"background callback {output} did not answer in {limit:.0f} s")
