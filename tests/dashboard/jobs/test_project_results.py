"""The result cache never crosses projects, on both backends: the project id is part of every key (taken on
the server from the current project), and results live in the project's name space, so a key copied from
another project's link finds nothing; two members of one project share a result."""

import pytest

from dashboard import jobs
from dashboard.access import projects
from dashboard.crossgen.kinds import SCENARIO
from dashboard.ui.url_state import InvalidParameter
from tests import signed_in


@pytest.fixture()
def two_projects():
    return signed_in.project_id("chips-x"), signed_in.project_id("chips-y")


def test_same_inputs_in_two_projects_have_two_keys_and_one_project_shares(backend, two_projects):
    x, y = two_projects
    raw = {"dataset": "rodinia", "host": "GTX-680", "target": "GTX-980"}
    with projects.scope(x):
        kx = SCENARIO.request(raw)["key"]
        assert SCENARIO.request(raw)["key"] == kx  # another member of x: the same key
    with projects.scope(x, role="viewer"):
        assert SCENARIO.request(raw)["key"] == kx  # the key does not depend on the role
    with projects.scope(y):
        ky = SCENARIO.request(raw)["key"]
        # a request store copied from project x (its key, its params) is refused in y: the key is recomputed
        with pytest.raises(InvalidParameter, match="does not match"):
            SCENARIO.from_store({"kind": "scenario", "params": SCENARIO.request(raw)["params"], "key": kx})
    assert kx != ky


def test_a_result_of_one_project_is_not_found_in_another(backend, two_projects):
    x, y = two_projects
    with projects.scope(x):
        key = jobs.result_key("scenario", {"test": "cross-project"}, "fp")
        jobs.put_result(key, {"secret": "x's numbers"})
        assert jobs.get_result(key) == {"secret": "x's numbers"} and jobs.has_result(key)
    with projects.scope(y):
        assert jobs.get_result(key) is None and not jobs.has_result(key)
        assert jobs.result_for({"key": key}) is None
        assert jobs.run_job(key, lambda report: {"secret": "y's own"}) == {"key": key}  # computed anew, in y
        assert jobs.get_result(key) == {"secret": "y's own"}
    with projects.scope(None):
        assert jobs.get_result(key) is None and not jobs.has_result(key)
    with projects.scope(x, role="viewer"):  # any member of x reads x's result
        assert jobs.get_result(key) == {"secret": "x's numbers"}


def test_a_process_pointed_at_another_state_directory_reads_that_directorys_statuses(tmp_path, monkeypatch):
    """The result store is opened once per process and directory: a process that switched directories once kept
    reading the first one it opened, and a test of a server's job (its own directory) never saw the job run."""
    from dashboard.jobs import local_results

    KEY = "scenario-" + "0" * 32  # noqa: N806
    first, second = tmp_path / "first", tmp_path / "second"
    monkeypatch.setattr("dashboard.settings.VAR_DIR", first)
    local_results.set_status(KEY, "running")
    monkeypatch.setattr("dashboard.settings.VAR_DIR", second)
    assert local_results.status(KEY) is None
    local_results.set_status(KEY, "done")
    monkeypatch.setattr("dashboard.settings.VAR_DIR", first)
    assert local_results.status(KEY)["state"] == "running"
