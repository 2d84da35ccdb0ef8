"""The owner's pages in headless Chromium: /members lists the project's people, cannot add an account by name,
creates an invitation link that the invited person opens and accepts in their own browser, and changes roles
(never the last owner away); /audit shows the project's events, not another project's, with the
chain's verdict, and downloads them as CSV; a viewer reads the members and is refused the trail. A row edited
directly in the database is reported on /audit."""

import csv
import io
import secrets
import time

from pc_browser import choose, present, screenshot, start, text_in
from selenium.webdriver.common.keys import Keys
from sqlalchemy import update

from dashboard import audit_log
from dashboard.access import database, members, projects
from dashboard.access.models import AuditEvent
from tests import signed_in

TAG = secrets.token_hex(4)
X, Y = f"owners-x-{TAG}", f"owners-y-{TAG}"


def _as(driver, person):
    driver.execute_cdp_cmd("Network.clearBrowserCookies", {})
    person.sign_in_browser(driver)


def test_owner_manages_members_and_reads_the_projects_trail(dash_duo, perfcast_app, tmp_path):
    owner = signed_in.member(f"olga-{TAG}", X, "owner")
    viewer = signed_in.member(f"vic-{TAG}", X, "viewer")
    other = signed_in.member(f"otto-{TAG}", Y, "owner")
    newcomer = signed_in.member(f"nina-{TAG}", Y, "editor")  # an account; not yet in X
    with projects.scope(signed_in.project_id(X)):
        audit_log.record("dataset saved", "10.1.2.3", dataset="ds-00000000000000aa", name=f"x-secret-{TAG}")
    with projects.scope(signed_in.project_id(Y)):
        audit_log.record("dataset saved", "10.9.9.9", dataset="ds-00000000000000bb", name=f"y-secret-{TAG}")

    _as(dash_duo.driver, owner)
    start(dash_duo, perfcast_app, "/members")
    dash_duo.wait_for_contains_text("h1", f"Members of {X}", timeout=30)
    table = text_in(dash_duo.driver, "#members-table")
    assert owner.name in table and viewer.name in table and newcomer.name not in table
    dash_duo.find_element("#members-name").send_keys(newcomer.name)
    choose(dash_duo, "#members-role", "editor")
    dash_duo.find_element("#members-set").click()  # nobody joins without consenting: an invitation instead
    dash_duo.wait_for_contains_text("#members-status", "create an invitation", timeout=20)
    assert newcomer.name not in text_in(dash_duo.driver, "#members-table")
    choose(dash_duo, "#members-invite-role", "editor")
    dash_duo.find_element("#members-invite").click()
    dash_duo.wait_for_contains_text("#members-invite-status", "/invite?token=", timeout=20)
    link = text_in(dash_duo.driver, "#members-invite-link")
    dash_duo.wait_for_contains_text("#members-waiting", "editor", timeout=20)

    _as(dash_duo.driver, newcomer)  # the invited person opens the link in their browser and accepts
    dash_duo.driver.get(link)
    dash_duo.wait_for_contains_text("main", f"join project {X} as an editor", timeout=30)
    assert newcomer.name not in members.member_names(signed_in.project_id(X))  # opening the link changes nothing
    screenshot(dash_duo.driver, "invitation")
    dash_duo.find_element("#invite-accept").click()
    dash_duo.wait_for_contains_text("body", X, timeout=30)  # the navbar: the session works in the project joined
    assert newcomer.name in members.member_names(signed_in.project_id(X))

    _as(dash_duo.driver, owner)
    start(dash_duo, perfcast_app, "/members")
    dash_duo.wait_for_contains_text("#members-table", newcomer.name, timeout=30)
    dash_duo.wait_for_contains_text("#members-waiting", "No invitation is waiting", timeout=20)
    box = dash_duo.find_element("#members-name")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    box.send_keys(owner.name)
    choose(dash_duo, "#members-role", "viewer")
    dash_duo.find_element("#members-set").click()
    dash_duo.wait_for_contains_text("#members-status", "last owner", timeout=20)
    screenshot(dash_duo.driver, "members")

    start(dash_duo, perfcast_app, "/audit")
    dash_duo.wait_for_contains_text("#audit-verdict", "chain is intact", timeout=30)
    trail = text_in(dash_duo.driver, "#audit-table")
    assert "member joined" in trail and "invitation created" in trail and f"x-secret-{TAG}" in trail
    assert "10.1.2.3" in trail
    assert f"y-secret-{TAG}" not in trail and "10.9.9.9" not in trail  # another project's events
    screenshot(dash_duo.driver, "audit")
    dash_duo.driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(tmp_path)})
    dash_duo.find_element("#audit-download-csv").click()
    deadline = time.time() + 30
    while time.time() < deadline and not list(tmp_path.glob("perfcast-audit-*.csv")):
        time.sleep(0.2)
    body = next(tmp_path.glob("perfcast-audit-*.csv")).read_text()
    rows = list(csv.reader(io.StringIO(body.rsplit("\n# ", 1)[0])))
    actions = [r[4] for r in rows[1:]]
    assert "member joined" in actions and "dataset saved" in actions and f"y-secret-{TAG}" not in body
    assert body.rstrip().endswith("is the one the head names.")  # the verdict closes the export

    # a viewer reads who is in the project, manages nothing and does not read the trail
    _as(dash_duo.driver, viewer)
    start(dash_duo, perfcast_app, "/members")
    dash_duo.wait_for_contains_text("#members-read-only", "Only its owners manage members", timeout=30)
    assert not dash_duo.driver.find_elements("css selector", "#members-set")
    start(dash_duo, perfcast_app, "/audit")
    dash_duo.wait_for_contains_text(".alert", f"Only owners of {X} read its audit trail", timeout=30)
    assert not dash_duo.driver.find_elements("css selector", "#audit-table")

    # the owner of another project does not see X's trail either
    _as(dash_duo.driver, other)
    start(dash_duo, perfcast_app, "/audit")
    dash_duo.wait_for_contains_text("h1", f"Audit trail of {Y}", timeout=30)
    assert f"x-secret-{TAG}" not in text_in(dash_duo.driver, "#audit-table")

    # someone edits a row of the trail directly in the database: the page says so
    with database.session() as db:
        db.execute(update(AuditEvent).where(AuditEvent.action == "dataset saved", AuditEvent.address == "10.9.9.9")
                   .values(address="10.0.0.1"))
    start(dash_duo, perfcast_app, "/audit")
    dash_duo.wait_for_contains_text("#audit-verdict", "altered outside perfcast", timeout=30)
    with database.session() as db:  # put back, for the tests after this one
        db.execute(update(AuditEvent).where(AuditEvent.action == "dataset saved", AuditEvent.address == "10.0.0.1")
                   .values(address="10.9.9.9"))
    present(dash_duo.driver, "#audit-verdict")
