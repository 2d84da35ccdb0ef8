"""Who sees what, in headless Chromium and by forged requests: user A (editor of project X) uploads and saves a
dataset; user B (project Y) finds nothing of it by pages, share links, forged callbacks or downloads and cannot
delete it; a viewer of X sees a disabled delete button and is told why; A's share link switches A back into X
from another project (audited), and the project menu switches projects."""

import secrets

import numpy as np
import pandas as pd
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait
from sqlalchemy import select

from testkit.dash_client import DashClient
from testkit.signin import Account
from dashboard.access import database, projects
from dashboard.access.models import AuditEvent
from dashboard.state import datasets
from pc_browser import callbacks_settled, choose, fresh_browser, present, screenshot, share_link, start, text_in
from tests import signed_in

TAG = secrets.token_hex(4)
X, Y = f"chips-x-{TAG}", f"chips-y-{TAG}"
SECRET_NAME = f"unannounced-{TAG}"


def _csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 24
    a = rng.uniform(1, 10, n)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "application": [f"app{i % 4}" for i in range(n)],
                       f"secretctr_{TAG}": a, "host_time": 2 * a, "target_time": 3 * a + rng.uniform(0, 0.1, n)})
    path = tmp_path / f"{SECRET_NAME}.csv"
    df.to_csv(path, index=False)
    return path


def _as(driver, person):
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    person.sign_in_browser(driver)


def _alert_text(driver, timeout=20):
    return text_in(driver, ".alert", timeout)


def _client(base, person, path):
    client = DashClient(base, account=Account(person.name, person.password))
    client.open(path)
    return client


def test_another_project_sees_nothing_and_a_viewer_cannot_delete(dash_duo, perfcast_app, tmp_path):
    a = signed_in.member(f"ada-{TAG}", X, "editor")
    b = signed_in.member(f"bob-{TAG}", Y, "editor")
    viewer = signed_in.member(f"vic-{TAG}", X, "viewer")
    x_id = signed_in.project_id(X)

    # A uploads and saves in X
    _as(dash_duo.driver, a)
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_contains_text("#project-current", X, timeout=20)
    assert "editor" in dash_duo.find_element("#project-current").text
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(_csv(tmp_path)))
    dash_duo.wait_for_contains_text("#data-preview", "w0", timeout=20)
    choose(dash_duo, "#data-targets", "target_time")
    choose(dash_duo, "#data-host-col", "host_time")
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 24 workloads", timeout=20)
    with projects.scope(x_id):
        (meta,) = datasets.list_datasets()
    ds = meta["id"]
    assert meta["name"] == SECRET_NAME
    dash_duo.driver.get(dash_duo.server_url + f"/scenario?dataset={ds}")
    link = share_link(dash_duo, "scenario")
    assert f"project={X}" in link and f"dataset={ds}" in link
    assert "project=" not in dash_duo.driver.current_url  # the address bar keeps the page's own parameters

    # B: the pages and the share link show nothing of it; the link reads exactly as one to nothing
    other = fresh_browser(signed_in=False)
    try:
        _as(other, b)
        other.get(dash_duo.server_url + "/data")
        text_in(other, "#project-current")
        assert Y in other.find_element("css selector", "#project-current").text
        for page in ("/data", "/scenario", "/trash", "/predict"):
            other.get(dash_duo.server_url + page)
            text_in(other, "h1")
            callbacks_settled(other)  # every callback of the page answered
            assert ds not in other.page_source and SECRET_NAME not in other.page_source, page
        other.get(link)
        shown = _alert_text(other)
        other.get(link.replace(ds, "ds-00000000000000ff").replace(X, f"nothing-{TAG}"))
        nothing = _alert_text(other)
        assert "not found" in shown and shown.replace(ds, "ID") == nothing.replace("ds-00000000000000ff", "ID")
        assert SECRET_NAME not in other.page_source
        assert Y in other.find_element("css selector", "#project-current").text  # B was not moved into X
    finally:
        other.quit()

    # B's forged callbacks: deleting A's dataset changes nothing; its rows never reach B
    client = _client(dash_duo.server_url, b, "/data")
    got = client.call("data-delete-status.children", {("data-confirm-delete", "submit_n_clicks"): 1,
                                                     ("data-delete-id", "data"): ds})
    assert ds not in str(got) and SECRET_NAME not in str(got)
    with projects.scope(x_id):
        assert datasets.verify_dataset(ds)

    # downloads: A's prediction in X's cache; A downloads it, B forging its key gets nothing
    from dashboard.crossgen.kinds import cached
    from dashboard.predict.kinds import PREDICT

    with projects.scope(x_id):
        key, _ = cached(PREDICT, PREDICT.request({"model": "NNLS", "transform": "logratio"})["params"])
    download = {("predict-download-csv", "n_clicks"): 1, ("predict-ready", "data"): {"key": key}}
    mine = _client(dash_duo.server_url, a, "/predict").call("predict-download.data", download)
    assert mine["predict-download"]["data"]["filename"].endswith(".csv")
    assert _client(dash_duo.server_url, b, "/predict").call("predict-download.data", download) == {}

    # a viewer of X sees the dataset with a disabled delete button saying why; a forged confirm is refused
    _as(dash_duo.driver, viewer)
    dash_duo.driver.get(dash_duo.server_url + "/data")
    dash_duo.wait_for_contains_text("#data-datasets", ds, timeout=20)
    button = present(dash_duo.driver, f'button[id*="{ds}"]')[0]
    assert not button.is_enabled() and "viewers cannot delete" in button.get_attribute("title")
    viewer_client = _client(dash_duo.server_url, viewer, "/data")
    got = viewer_client.call("data-delete-status.children", {("data-confirm-delete", "submit_n_clicks"): 1,
                                                            ("data-delete-id", "data"): ds})
    assert f"Viewers cannot delete in project {X}; ask an owner of project {X} to make you an editor." in str(got)
    with projects.scope(x_id):
        assert datasets.verify_dataset(ds)
    refused = viewer_client.call("data-save-status.children", {("data-save", "n_clicks"): 1})
    assert "Viewers cannot save" in str(refused)

    # A is also in Y: the menu switches to Y; A's share link asks, and its button brings A back into X (audited)
    signed_in.member(a.name, Y, "viewer")
    _as(dash_duo.driver, a)
    dash_duo.driver.get(dash_duo.server_url + "/data")
    dash_duo.wait_for_element("#project-select")
    dash_duo.driver.find_element("css selector", f'#project-select option[value="{Y}"]').click()
    dash_duo.find_element("#project-switch").click()
    dash_duo.wait_for_contains_text("#project-current", f"{Y} · viewer", timeout=20)
    screenshot(dash_duo.driver, "project-menu")
    assert ds not in dash_duo.driver.page_source
    dash_duo.driver.get(link)  # a link never switches by itself: it asks (a GET changes no project)
    dash_duo.wait_for_element("#share-switch", timeout=20).click()
    dash_duo.wait_for_contains_text("#project-current", f"{X} · editor", timeout=20)
    dash_duo.wait_for_contains_text("#scenario-dataset", SECRET_NAME, timeout=20)
    with database.session() as db:
        opened = db.scalars(select(AuditEvent).where(AuditEvent.action == "share-link open",
                                                     AuditEvent.user_name == a.name).order_by(AuditEvent.id)).all()
        switched = db.scalars(select(AuditEvent).where(AuditEvent.action == "project switched",
                                                       AuditEvent.user_name == a.name).order_by(AuditEvent.id)).all()
    assert [(e.detail.get("switched"), e.detail.get("asked")) for e in opened] == [("False", "switch"),
                                                                                    ("False", None)]
    assert opened[-1].project_id == x_id
    assert [e.detail.get("to") for e in switched] == [Y, X]

    # A deletes the dataset (it goes to X's trash) and restores it; X's owner reads all of it in X's trail
    dash_duo.driver.get(dash_duo.server_url + "/data")
    dash_duo.wait_for_contains_text("#data-datasets", ds, timeout=20)
    present(dash_duo.driver, f'button[id*="{ds}"]')[0].click()
    WebDriverWait(dash_duo.driver, 10).until(expected_conditions.alert_is_present()).accept()
    dash_duo.wait_for_contains_text("#data-delete-status", "trash", timeout=15)
    with projects.scope(x_id):
        assert not any(m["id"] == ds for m in datasets.list_datasets())
    dash_duo.driver.get(dash_duo.server_url + "/trash")
    dash_duo.wait_for_contains_text("#trash-table", ds, timeout=20)
    present(dash_duo.driver, 'button[id*="trash-restore"]')[0].click()
    dash_duo.wait_for_contains_text("#trash-status", "Restored the dataset", timeout=20)
    with projects.scope(x_id):
        assert datasets.verify_dataset(ds)
    owner = signed_in.member(f"olga-{TAG}", X, "owner")
    _as(dash_duo.driver, owner)
    dash_duo.driver.get(dash_duo.server_url + "/audit")
    dash_duo.wait_for_contains_text("#audit-verdict", "chain is intact", timeout=30)
    trail = text_in(dash_duo.driver, "#audit-table")
    for action in ("upload staged", "dataset saved", "share-link open", "dataset deleted", "dataset restored",
                   "refused"):
        assert action in trail, action
    assert a.name in trail and viewer.name in trail and b.name not in trail  # B acted only in Y
    screenshot(dash_duo.driver, "audit-of-x")


def test_an_upload_is_saved_only_into_the_project_its_form_showed(dash_duo, perfcast_app, tmp_path):
    """A's /data form is laid out in X; in another tab A switches to Y; Save on the first tab's form saves
    nothing (into neither project) and says why; reloaded, the form saves into Y, the project it shows."""
    a = signed_in.member(f"amy-{TAG}", X, "editor")
    signed_in.member(a.name, Y, "editor")
    _as(dash_duo.driver, a)
    start(dash_duo, perfcast_app, "/data")
    dash_duo.wait_for_contains_text("#project-current", X, timeout=20)
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(_csv(tmp_path)))
    dash_duo.wait_for_contains_text("#data-preview", "w0", timeout=20)
    choose(dash_duo, "#data-targets", "target_time")
    choose(dash_duo, "#data-host-col", "host_time")
    first = dash_duo.driver.current_window_handle
    dash_duo.driver.switch_to.new_window("tab")
    dash_duo.driver.get(dash_duo.server_url + "/data")
    dash_duo.wait_for_element("#project-select")
    dash_duo.driver.find_element("css selector", f'#project-select option[value="{Y}"]').click()
    dash_duo.find_element("#project-switch").click()
    dash_duo.wait_for_contains_text("#project-current", Y, timeout=20)
    dash_duo.driver.close()
    dash_duo.driver.switch_to.window(first)
    before = {pid: _dataset_ids(pid) for pid in (signed_in.project_id(X), signed_in.project_id(Y))}
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", f"this page was opened in project {X}", timeout=20)
    assert {pid: _dataset_ids(pid) for pid in before} == before  # saved nowhere
    dash_duo.driver.refresh()  # the form now shows Y: the same file saves there
    dash_duo.wait_for_contains_text("#project-current", Y, timeout=20)
    dash_duo.wait_for_element("#data-upload input[type=file]").send_keys(str(_csv(tmp_path)))
    dash_duo.wait_for_contains_text("#data-preview", "w0", timeout=20)
    choose(dash_duo, "#data-targets", "target_time")
    choose(dash_duo, "#data-host-col", "host_time")
    dash_duo.find_element("#data-save").click()
    dash_duo.wait_for_contains_text("#data-save-status", "Saved 24 workloads", timeout=20)  # A was refused
    # nothing else: the failed save kept the upload staged for Y's form
    assert len(_dataset_ids(signed_in.project_id(Y))) == len(before[signed_in.project_id(Y)]) + 1


def _dataset_ids(project_id):
    with projects.scope(project_id):
        return {m["id"] for m in datasets.list_datasets()}
