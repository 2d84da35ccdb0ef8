"""Every registered callback, fed forged values the way a hostile client would post them.

The callbacks are discovered from ``/_dash-dependencies`` (a new page is
covered without new code). For each server-side callback and each of its
inputs and states in turn, the fuzzer posts to ``/_dash-update-component``
the values a page would hold, except that one slot gets a value of the wrong
type, out of range, outside a dropdown's options, huge, deeply nested or
null. Background callbacks are polled to their answer. Every answer must be
a message or no update: never an HTTP 5xx, and never a traceback (or the
"callback raised" line of ``dashboard.callback_errors``) in the server's log.
"""

import base64
import json
import time

import pytest

from benchmarks.dash_client import DashClient
from dashboard.callback_errors import MARK

PAGES = ["/", "/scenario", "/features", "/generations", "/repeats", "/apply", "/data", "/trash", "/logca",
         "/accelerometer",
         "/predict", "/predict?model=NNLS&transform=logratio"]  # the last: a cached prediction (ready to export, save)

BAD = [None, True, 5, -1, 2**63, 1e308, "", "NOPE", "../../../../tmp/perfcast-fuzz", "x" * 100_000,
       [], ["NOPE", 3], [None], {}, {"a": {"b": {"c": [1, {"d": None}]}}}, [[[[[[[[[[]]]]]]]]]],
       {"key": "../../../../tmp/perfcast-fuzz", "params": 5}, {"key": ["x"], "params": {"dataset": ["a"]}},
       {"params": {"dataset": "rodinia", "host": {"x": 1}}, "key": "scenario-" + "0" * 32, "attempt": "x"},
       "ds-0123456789abcdef", "data:text/csv;base64,@@@"]


def _walk(node, out):
    if isinstance(node, list):
        for n in node:
            _walk(n, out)
    elif isinstance(node, dict) and "props" in node:
        props = node["props"]
        if isinstance(props.get("id"), str):
            for prop, value in props.items():
                out[(props["id"], prop)] = value
        for value in props.values():
            _walk(value, out)


def _outputs(spec):
    parts = spec.strip(".").split("...") if spec.startswith("..") else [spec]
    outs = [dict(zip(("id", "property"), p.rsplit(".", 1))) for p in parts]
    return outs if spec.startswith("..") else outs[0]


def _slot(item, value):
    if item["id"].startswith("{"):  # a pattern-matching (ALL) input: one concrete component
        pattern = json.loads(item["id"])
        concrete = {k: ("ds-0123456789abcdef" if v == ["ALL"] else v) for k, v in pattern.items()}
        return [{"id": concrete, "property": item["property"], "value": value}]
    return {"id": item["id"], "property": item["property"], "value": value}


def _body(dep, values, bad_slot=None, bad_value=None):
    slots = dep["inputs"] + dep.get("state", [])

    def filled(items, offset):
        out = []
        for j, x in enumerate(items):
            value = bad_value if offset + j == bad_slot else values.get((x["id"], x["property"]))
            out.append(_slot(x, value))
        return out
    inputs = filled(dep["inputs"], 0)
    changed = slots[bad_slot] if bad_slot is not None and bad_slot < len(dep["inputs"]) else dep["inputs"][0]
    return {"output": dep["output"], "outputs": _outputs(dep["output"]), "inputs": inputs,
            "state": filled(dep.get("state", []), len(dep["inputs"])),
            "changedPropIds": [f"{changed['id']}.{changed['property']}"]}


def _post(http, base, end_id, dep, body, failures):
    url = f"{base}/_dash-update-component?endId={end_id}"
    r = http.post(url, json=body, timeout=120)
    if r.status_code >= 500:
        failures.append((dep["output"][:80], body, r.status_code))
        return
    if dep.get("background") and r.status_code == 200 and "cacheKey" in r.json():
        handles = {k: r.json()[k] for k in ("cacheKey", "job")}
        deadline = time.time() + 90
        while time.time() < deadline:
            time.sleep(0.1)
            r = http.post(url, params=handles, json=body, timeout=120)
            if r.status_code >= 500:
                failures.append((dep["output"][:80], body, r.status_code))
                return
            if r.status_code == 204 or "response" in r.json():
                return
        failures.append((dep["output"][:80], body, "background job did not answer in 90 s"))


def _seeded(http, base, end_id, deps, values, rounds=2):
    """Values a page holds after a user's first steps: the layout's, then what its callbacks answer
    (twice round, background jobs excepted), starting from a real upload on the data page. So the
    forged values also reach the code behind a staged upload, a result or a fitted table."""
    csv = "workload,application,a,b,c,t\n" + "".join(f"w{i},app{i % 3},{i},{i * i % 7},{i % 5},{1 + i}\n"
                                                        for i in range(12))
    timing = "kernel,granularity_bytes,repeat,host_s,accel_s\n" + "".join(
        f"k,{g},{r},{g * 1e-8 + 1e-6},{g * 1e-9 + 2e-5}\n" for g in (16, 256, 4096, 65536, 1048576) for r in (0, 1))
    values[("data-upload", "contents")] = "data:text/csv;base64," + base64.b64encode(csv.encode()).decode()
    values[("data-upload", "filename")] = "fuzz.csv"
    values[("logca-upload", "contents")] = "data:text/csv;base64," + base64.b64encode(timing.encode()).decode()
    values[("logca-upload", "filename")] = "timing.csv"
    from tests.dashboard.predict.upload_table import data_url, workloads_to_predict

    values[("predict-upload", "contents")] = data_url(workloads_to_predict(4))  # valid: stored, then chosen
    values[("predict-upload", "filename")] = "to_predict.csv"
    url = f"{base}/_dash-update-component?endId={end_id}"
    for _ in range(rounds):
        for dep in deps:
            if dep.get("background") or any(x["id"].startswith("{") for x in dep["inputs"]):
                continue
            r = http.post(url, json=_body(dep, values), timeout=120)
            if r.status_code == 200 and "response" in r.json():
                for cid, props in r.json()["response"].items():
                    for prop, value in props.items():
                        values[(cid, prop.split("@")[0])] = value
    values[("data-targets", "value")] = ["t"]
    return values


def _short(body):
    text = json.dumps(body)
    return text if len(text) < 400 else text[:400] + "…"


def test_every_callback_survives_forged_values(server_state):
    from dashboard.crossgen.kinds import cached
    from dashboard.predict.kinds import PREDICT

    base, _var, log = server_state
    cached(PREDICT, PREDICT.request({"model": "NNLS", "transform": "logratio"})["params"])  # in the server's cache
    client = DashClient(base)
    values: dict = {}
    for page in PAGES:
        _walk(client.open(page), values)
    _walk(client.http.get(base + "/_dash-layout", timeout=30).json(), values)
    deps = [d for d in client.deps.values() if not d.get("clientside_function")]
    assert len(deps) > 50  # every page's callbacks were discovered
    _seeded(client.http, base, client.end_id, deps, values)
    assert isinstance(values.get(("data-token", "data")), str)  # the upload was staged: saves reach the mapping
    assert str(values.get(("predict-source", "value"))).startswith("wp-")  # the workloads to predict were stored
    assert (values.get(("predict-ready", "data")) or {}).get("key", "").startswith("predict-")
    failures: list = []
    posted = 0
    for dep in deps:
        n_slots = len(dep["inputs"]) + len(dep.get("state", []))
        if not dep.get("background"):  # everything at the page's values (a job would really train)
            _post(client.http, base, client.end_id, dep, _body(dep, values), failures)
            posted += 1
        for slot in range(n_slots):
            for bad in BAD:
                _post(client.http, base, client.end_id, dep, _body(dep, values, slot, bad), failures)
                posted += 1
        for bad in (None, "NOPE", {"a": [1]}):  # every slot forged at once
            body = _body(dep, values)
            for item in body["inputs"] + body["state"]:
                for x in (item if isinstance(item, list) else [item]):
                    x["value"] = bad
            _post(client.http, base, client.end_id, dep, body, failures)
            posted += 1
    assert client.http.get(base + "/scenario", timeout=30).status_code == 200  # still serving
    text = log.read_text()
    tracebacks = [chunk[:1500] for chunk in text.split("\n\n") if "Traceback" in chunk or MARK in chunk]
    print(f"\nfuzzer: {len(deps)} callbacks, {posted} forged requests, {len(failures)} 5xx")
    assert not failures, "\n".join(f"{o}: {s}: {_short(b)}" for o, b, s in failures[:20])
    assert not tracebacks, "\n---\n".join(tracebacks[:5])


@pytest.mark.parametrize("path", ["/etc/passwd", "/_dash-update-component"])
def test_stray_requests_are_not_server_errors(live_server, path):
    from tests.signed_in import http

    base, signed_in = live_server[0], http()
    assert signed_in.get(base + path, timeout=30).status_code < 500
    r = signed_in.post(base + "/_dash-update-component", data=b"{not json", timeout=30,
                       headers={"Content-Type": "application/json"})
    assert r.status_code < 500
