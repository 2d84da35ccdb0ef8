"""The first layout holds the page the browser opened (its address from the Referer of the layout request),
built from the link's parameters; any other request gets Dash's empty page container, which the router
fills; and the router still moves between pages in a browser."""

import time

import pytest

from pc_browser import present, start

CONTENT, LOCATION = "_pages_content", "_pages_location"


def components(node):
    """Every component in a layout (Dash's JSON form), depth first."""
    if isinstance(node, list):
        for item in node:
            yield from components(item)
    elif isinstance(node, dict) and "props" in node:
        yield node
        yield from components(node["props"].get("children"))


def by_id(layout, cid):
    found = [c for c in components(layout) if c["props"].get("id") == cid]
    return found[0] if found else None


def first_layout(app, referer=None):
    headers = {"Referer": referer} if referer else {}
    r = app.server.test_client().get("/_dash-layout", headers=headers)
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "no-store" and "Referer" in r.headers["Vary"]  # one layout per page
    return r.get_json()


def test_the_opened_page_and_its_link_parameters_are_in_the_first_layout(perfcast_app):
    layout = first_layout(perfcast_app, "http://localhost/phases?target=power&features=counters%2Bhost")
    content = by_id(layout, CONTENT)
    assert content["props"]["children"], "the page container is empty"
    assert by_id(layout, "phases-target")["props"]["value"] == "power"
    assert by_id(layout, "phases-features")["props"]["value"] == "counters+host"
    location = by_id(layout, LOCATION)["props"]
    assert location["pathname"] == "/phases" and location["search"] == "?target=power&features=counters%2Bhost"
    assert by_id(layout, "_pages_store")["props"]["data"]["title"]


@pytest.mark.parametrize("referer", [None, "http://elsewhere.example/phases", "http://localhost/no-such-page",
                                     "ftp://localhost/phases", "http://localhost/" + "x" * 9000])
def test_any_other_layout_request_gets_the_empty_container(perfcast_app, referer):
    layout = first_layout(perfcast_app, referer)
    assert not by_id(layout, CONTENT)["props"].get("children")
    assert "pathname" not in by_id(layout, LOCATION)["props"]  # the Location reports the address: the router


def test_the_router_setting_keeps_dash_s_two_steps(perfcast_app, monkeypatch):
    monkeypatch.setattr("dashboard.ui.first_page.FIRST_PAGE", "router")
    layout = first_layout(perfcast_app, "http://localhost/logca")
    assert not by_id(layout, CONTENT)["props"].get("children")
    # the second step: Dash's router callback, posted as the browser posts it, answers with the /logca page
    with perfcast_app.server.test_client() as client:
        deps = client.get("/_dash-dependencies").get_json()
        router = next(d for d in deps if d["output"].startswith(f"..{CONTENT}.children") or
                      d["output"].startswith(f"{CONTENT}.children"))
        inputs = [{"id": i["id"], "property": i["property"],
                   "value": {"pathname": "/logca", "search": "", "hash": ""}.get(i["property"])}
                  for i in router["inputs"]]
        states = [{"id": st["id"], "property": st["property"], "value": None} for st in router["state"]]
        r = client.post("/_dash-update-component", json={
            "output": router["output"], "outputs": [{"id": o.split(".")[0].strip("."), "property": o.split(".")[1]}
                                                      for o in router["output"].strip(".").split("...")],
            "inputs": inputs, "state": states, "changedPropIds": [f"{LOCATION}.pathname"]},
            headers={"Origin": "http://localhost"})
    assert r.status_code == 200, r.get_data(as_text=True)[:300]
    page = r.get_json()["response"][CONTENT]["children"]
    ids = {c["props"].get("id") for c in components(page)}
    assert "logca-kernel" in ids or any(isinstance(i, str) and i.startswith("logca-") for i in ids)


def test_pages_opened_in_the_first_layout_still_navigate(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/logca")
    present(dash_duo.driver, "#logca-speedup-graph .main-svg", timeout=30)
    dash_duo.driver.find_element("id", "nav-accelerometer").click()
    present(dash_duo.driver, "#accel-bounds-graph .main-svg", timeout=30)
    assert "/accelerometer" in dash_duo.driver.current_url
    for _ in range(4):  # back through the accelerometer's own address updates to /logca
        if "/logca" in dash_duo.driver.current_url:
            break
        dash_duo.driver.back()
        time.sleep(0.3)
    present(dash_duo.driver, "#logca-speedup-graph .main-svg", timeout=30)
    assert "/logca" in dash_duo.driver.current_url
