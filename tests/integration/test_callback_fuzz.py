"""Every registered callback, fed forged values the way a hostile client would post them.

The callbacks are discovered from ``/_dash-dependencies`` (a new page is
covered without new code). For each server-side callback and each of its
inputs and states in turn, the fuzzer posts to ``/_dash-update-component``
the values a page would hold, except that one slot gets a value of the wrong
type, out of range, outside a dropdown's options, huge, deeply nested or
null. Background callbacks are polled to their answer. Every answer must be
a message or no update: never an HTTP 5xx, and never a traceback (or the
"callback raised" line of ``dashboard.callback_errors``) in the server's log.

It also runs signed out (every callback answers HTTP 401) and as an owner of another project, who posts the
victim project's ids, trash entries and result keys into every slot: no answer may hold anything of the
victim's (names, column names, result numbers, ids the request did not name) and nothing of the victim's
changes on disk or in the result cache.
"""

import base64
import json
import time

import pytest

from testkit.dash_client import DashClient
from dashboard.callback_errors import MARK

PAGES = ["/", "/scenario", "/compare", "/features", "/generations", "/repeats", "/apply", "/data", "/trash", "/logca",
         "/accelerometer", "/counts", "/phases", "/new-app", "/operators", "/members", "/audit", "/plan",
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


def _slot(item, value, concrete="ds-0123456789abcdef"):
    if item["id"].startswith("{"):  # a pattern-matching (ALL) input: one concrete component
        pattern = json.loads(item["id"])
        named = {k: (concrete if v == ["ALL"] else v) for k, v in pattern.items()}
        return [{"id": named, "property": item["property"], "value": value}]
    return {"id": item["id"], "property": item["property"], "value": value}


def _body(dep, values, bad_slot=None, bad_value=None, concrete="ds-0123456789abcdef", clicked=None):
    """A callback request at the page's ``values``, slot ``bad_slot`` set to ``bad_value``; a pattern-matching
    input names the component ``concrete`` (with the value ``clicked`` when given: a click on it)."""
    slots = dep["inputs"] + dep.get("state", [])

    def filled(items, offset):
        out = []
        for j, x in enumerate(items):
            value = bad_value if offset + j == bad_slot else values.get((x["id"], x["property"]))
            if clicked is not None and offset + j != bad_slot and x["id"].startswith("{"):
                value = clicked
            out.append(_slot(x, value, concrete))
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


def _two_saved_scenarios() -> None:
    from dashboard.crossgen.kinds import SCENARIO
    from dashboard.state import scenarios

    for seed in ("41", "42"):
        params = SCENARIO.request({"target": "Tesla-K40", "preset": "halwpe", "seed": seed})["params"]
        scenarios.save_scenario("scenario", params, {"best": "OLS", "e_out": 0.0}, f"fuzz {seed}")


def _short(body):
    text = json.dumps(body)
    return text if len(text) < 400 else text[:400] + "…"


def test_every_callback_survives_forged_values(server_state):
    from dashboard.crossgen.kinds import cached
    from dashboard.predict.kinds import PREDICT

    base, _var, log = server_state
    cached(PREDICT, PREDICT.request({"model": "NNLS", "transform": "logratio"})["params"])  # in the server's cache
    _two_saved_scenarios()  # /compare's form then holds two of them (with fewer it only says how to save some)
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
    assert str(values.get(("compare-b", "value"))).startswith("sc-")  # /compare's form holds two saved scenarios
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


def _dependencies(base):
    """The server's callbacks (read signed in as the test session's user) and a page's signed ``endId``."""
    client = DashClient(base)
    client.open("/data")
    return [d for d in client.deps.values() if not d.get("clientside_function")], client.end_id


def test_signed_out_every_callback_is_refused(live_server):
    import requests

    base = live_server[0]
    deps, end_id = _dependencies(base)
    anonymous = requests.Session()
    statuses = {}
    for dep in deps:
        r = anonymous.post(f"{base}/_dash-update-component?endId={end_id}", json=_body(dep, {}), timeout=60)
        statuses[dep["output"][:80]] = (r.status_code, r.text[:200])
    assert len(statuses) > 50
    assert {code for code, _ in statuses.values()} == {401}, [k for k, v in statuses.items() if v[0] != 401][:5]
    assert all('"Sign in first."' in text for _, text in statuses.values())
    assert anonymous.get(base + "/_dash-layout", timeout=30).status_code == 401


def _tree(root):
    import hashlib

    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _answers(http, url, dep, body):
    """Every answer to ``body``: the first, and for a background callback its polls until it answers."""
    r = http.post(url, json=body, timeout=120)
    out = [r]
    if dep.get("background") and r.status_code == 200 and "cacheKey" in r.json():
        handles = {k: r.json()[k] for k in ("cacheKey", "job")}
        deadline = time.time() + 90
        while time.time() < deadline:
            time.sleep(0.1)
            r = http.post(url, params=handles, json=body, timeout=120)
            out.append(r)
            if r.status_code >= 500 or r.status_code == 204 or "response" in r.json():
                break
    return out


def test_a_member_of_another_project_sees_and_changes_nothing(server_state):
    import secrets

    import pandas as pd

    from testkit.signin import Account
    from dashboard import jobs
    from dashboard.access import projects
    from dashboard.crossgen.kinds import RANKING, SCENARIO, cached
    from dashboard.state import datasets, scenarios, trash
    from tests import signed_in

    base, _var, _log = server_state
    tag = secrets.token_hex(4)
    # the victim: the test user's project, with a dataset, a saved scenario, a trash entry and a cached result
    n = 30
    frame = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "application": [f"a{i % 5}" for i in range(n)],
                          f"victimctr_{tag}": [float(i + 1) for i in range(n)],
                          "other": [float((7 * i) % 11 + 1) for i in range(n)],
                          "t": [float(2 * i + 3 + (i % 3)) for i in range(n)]})
    mapping = {"id_col": "workload", "group_col": "application", "targets": ["t"],
               "features": [f"victimctr_{tag}", "other"]}
    ds = datasets.save_dataset(frame, f"victim-data-{tag}", mapping)["id"]
    gone = datasets.save_dataset(frame, f"victim-deleted-{tag}", mapping)["id"]
    entry = datasets.delete_dataset(gone)["entry"]
    sc = scenarios.save_scenario("scenario", {"dataset": ds, "folds": 5}, {"best": "OLS"}, f"victim-sc-{tag}")["id"]
    request = SCENARIO.request({"dataset": ds, "target": "t"})
    key = request["key"]
    jobs.put_result(key, {"marker": f"victim-result-{tag}"})
    # a real result on the victim's data, which /features draws with the victim's column names
    ranked, _ = cached(RANKING, RANKING.request({"dataset": ds})["params"])
    victim_dir = projects.project_dir(projects.current_id())
    before = _tree(victim_dir)
    secrets_shown = [f"victim-data-{tag}", f"victim-deleted-{tag}", f"victim-sc-{tag}", f"victimctr_{tag}",
                     f"victim-result-{tag}"]
    ids = [ds, gone, entry, sc, key, ranked]
    forged = [*ids, {"key": key}, {"key": ranked}, request,
              {**request, "attempt": 1, "cancels": 0, "run": "r-" + "0" * 16},
              f"/scenario?dataset={ds}&project=default"]

    mallory = signed_in.member(f"mallory-{tag}", f"elsewhere-{tag}", "owner")
    client = DashClient(base, account=Account(mallory.name, mallory.password))
    values: dict = {}
    for page in PAGES:
        _walk(client.open(page), values)
    deps = [d for d in client.deps.values() if not d.get("clientside_function")]
    url = f"{base}/_dash-update-component?endId={client.end_id}"
    leaks, errors, posted = [], [], 0

    def check(dep, body):
        nonlocal posted
        sent = json.dumps(body)
        for r in _answers(client.http, url, dep, body):
            posted += 1
            if r.status_code >= 500:
                errors.append((dep["output"][:80], r.status_code, _short(body)))
            text = r.text
            shown = [s for s in secrets_shown if s in text] + [i for i in ids if i in text and i not in sent]
            if shown:
                leaks.append((dep["output"][:80], shown, _short(body)))

    for dep in deps:
        n_slots = len(dep["inputs"]) + len(dep.get("state", []))
        if any(x["id"].startswith("{") for x in dep["inputs"]):  # a click on the victim's item (delete, restore)
            for item in ids:
                check(dep, _body(dep, values, concrete=item, clicked=1))
        for slot in range(n_slots):
            for value in forged:
                check(dep, _body(dep, values, slot, value, concrete=ds, clicked=1))
    print(f"\nanother project: {len(deps)} callbacks, {posted} answers, {len(leaks)} leaks")
    assert len(deps) > 50
    assert not errors, errors[:10]
    assert not leaks, leaks[:10]
    # nothing changed: the victim's files, its trash, its cached result
    assert _tree(victim_dir) == before
    assert entry in [r["entry"] for r in trash.list_trash()]
    assert datasets.verify_dataset(ds) and jobs.get_result(key) == {"marker": f"victim-result-{tag}"}
    assert jobs.has_result(ranked)
    # and mallory's own project holds nothing of the victim's either
    with projects.scope(signed_in.project_id(f"elsewhere-{tag}")):
        assert datasets.list_datasets() == [] and trash.list_trash() == []
