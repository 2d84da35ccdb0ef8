"""Scenario page in headless Chromium: run, compare with the modeling API, share, cancel, fail."""

import os
import signal
import time

import numpy as np
import pytest

from dashboard.state import datasets
from dashboard import jobs
from dashboard.crossgen.kinds import GENERATIONS, SCENARIO
from modeling import shipped
from modeling.crossgen.ensemble import run_ensemble

from long_job import query, save_long_job_dataset
from pc_browser import choose, present, fresh_browser, screenshot, share_link, start, text_in, until, wait_text


def _api_best(host, target, preset="halwpe", transform="none", seed=0):
    s = shipped.scenario(host, target, "duration")
    res = run_ensemble(s["X"], s["y"], models=preset, cv="kfold", folds=10, groups=s["groups"], transform=transform,
                       host_index=s["host_index"], seed=seed, feature_names=s["feature_names"],
                       workload_ids=s["workload_ids"], drop_constant=True, n_jobs=1)
    return res.best(), res


def test_run_compare_share_and_cached_open(dash_duo, perfcast_app):
    start(dash_duo, perfcast_app, "/scenario")
    dash_duo.wait_for_element("#scenario-run")
    choose(dash_duo, "#scenario-target", "Tesla-K40")
    dash_duo.find_element("#scenario-run").click()
    # no wait for the progress label here: this job can end before the page's first progress poll (the
    # progress of a long job is test_progress_and_cancel_stop_the_job's)
    eout = wait_text(dash_duo, "#scenario-best-eout", timeout=180)
    best, res = _api_best("GTX-680", "Tesla-K40")
    star, star_e = res.star  # the ★: the lowest E_out, the baseline counted
    assert eout == f"{star_e:.2f} %"
    assert dash_duo.find_element("#scenario-best-model").text == star
    assert dash_duo.find_element("#scenario-n-workloads").text == str(res.n_workloads)
    # leaderboard holds every model and the baseline, best first
    dash_duo.wait_for_contains_text("#scenario-leaderboard", best.model)
    # every model and the baseline are rows of the grid (read through its API: rows out of view are not drawn)
    models = dash_duo.driver.execute_script(
        "const out = []; dash_ag_grid.getApi('scenario-leaderboard').forEachNode(n => out.push(n.data.model));"
        "return out;")
    assert "Baseline (host x median ratio)" in models and "NNLS/Backward/BIC" in models and len(models) == 14
    dash_duo.wait_for_element("#scenario-workload-graph .scatterlayer")
    screenshot(dash_duo.driver, "scenario")

    link = share_link(dash_duo, "scenario")
    assert "target=Tesla-K40" in link and "seed=0" in link
    key = SCENARIO.request({k: v for k, v in (kv.split("=") for kv in link.split("?", 1)[1].split("&"))
                            if k in SCENARIO.names})["key"]
    before = jobs.status(key)
    other = fresh_browser()
    try:
        t0 = time.perf_counter()
        other.get(link)
        assert text_in(other, "#scenario-best-eout") == eout
        t_numbers = time.perf_counter() - t0
        present(other, "#scenario-workload-graph .scatterlayer .trace", timeout=30)
        elapsed = time.perf_counter() - t0
        print(f"\nshared link (cached), fresh browser: numbers {t_numbers:.2f} s, chart drawn {elapsed:.2f} s")
        assert other.find_element("id", "scenario-best-model").text == star
    finally:
        other.quit()
    assert jobs.status(key) == before  # served from the result cache: no job ran


@pytest.fixture()
def long_job_dataset(perfcast_app):
    return {**save_long_job_dataset(), "seed": "11"}


def test_progress_and_cancel_stop_the_job(dash_duo, perfcast_app, long_job_dataset):
    """Progress shows while the job runs; Cancel says so, ends the job's process with no result, and gives Run
    back. Each step waits for what the page and the job do (generous deadlines: a loaded machine is slow)."""
    start(dash_duo, perfcast_app, "/scenario?" + query(long_job_dataset))
    driver, key = dash_duo.driver, SCENARIO.request(long_job_dataset)["key"]
    dash_duo.wait_for_contains_text("#scenario-progress-label", "fits done", timeout=240)
    assert dash_duo.find_element("#scenario-run").get_attribute("disabled")
    pid = until(driver, lambda: (jobs.status(key) or {}).get("pid"))
    assert jobs.pid_alive(pid) and (jobs.status(key) or {}).get("state") == "running"
    dash_duo.find_element("#scenario-cancel").click()
    dash_duo.wait_for_contains_text("#scenario-job-status", "Cancelled", timeout=120)
    until(driver, lambda: not jobs.pid_alive(pid))  # the job stopped (it computes for a minute or more)
    assert jobs.get_result(key) is None
    until(driver, lambda: not dash_duo.find_element("#scenario-run").get_attribute("disabled"))  # Run is back


def test_navigating_away_stops_the_job(dash_duo, perfcast_app, monkeypatch):
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 3.0)  # the job process inherits it
    # six targets of 20 folds each: the job runs far past the abandonment window even on a fast machine
    query = ("dataset=rodinia&host=GTX-680&targets=Tesla-K20,Tesla-K40,GTX-970,GTX-980,Tesla-P100,TitanX"
             "&preset=rastsim&transform=log&folds=20&seed=13")
    start(dash_duo, perfcast_app, f"/generations?{query}")
    key = GENERATIONS.request(dict(kv.split("=") for kv in query.split("&")))["key"]
    dash_duo.wait_for_contains_text("#generations-progress-label", "fits done", timeout=30)
    pid = jobs.status(key)["pid"]
    dash_duo.driver.get(dash_duo.server_url + "/")  # the user leaves the page mid-job
    deadline = time.time() + 30
    while (jobs.pid_alive(pid) or jobs.status(key)["state"] != "abandoned") and time.time() < deadline:
        time.sleep(0.2)
    assert not jobs.pid_alive(pid)
    assert jobs.status(key)["state"] == "abandoned" and not jobs.has_result(key)


def test_killed_job_says_failed(dash_duo, perfcast_app, long_job_dataset):
    params = {**long_job_dataset, "seed": "12"}
    start(dash_duo, perfcast_app, "/scenario?" + query(params))
    key = SCENARIO.request(params)["key"]
    def running_pid():
        st = jobs.status(key) or {}
        return st["pid"] if st.get("state") == "running" and jobs.pid_alive(st["pid"]) else None

    deadline = time.time() + 60  # a busy machine can start the job late
    while running_pid() is None and time.time() < deadline:
        time.sleep(0.1)
    os.kill(running_pid(), signal.SIGKILL)
    dash_duo.wait_for_contains_text("#scenario-job-status", "job failed", timeout=20)
    assert "Run again" in dash_duo.find_element("#scenario-job-status").text


def test_training_error_replaces_the_spinner(dash_duo, perfcast_app):
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(30)], "a": rng.random(30), "b": rng.random(30),
                       "t": rng.random(30) + 1})
    meta = datasets.save_dataset(df, "no groups", {"id_col": "workload", "group_col": None, "targets": ["t"],
                                                "features": ["a", "b"], "host_col": None, "repeat_col": None})
    start(dash_duo, perfcast_app, f"/scenario?dataset={meta['id']}&cv=group")
    dash_duo.wait_for_contains_text("#scenario-job-status", "needs a group column", timeout=30)
    assert dash_duo.find_element("#scenario-progress-box").value_of_css_property("display") == "none"


@pytest.mark.parametrize("query, message", [
    ("host=NOPE", "invalid parameter host"),
    ("folds=abc", "invalid parameter folds"),
    ("seed=-4", "invalid parameter seed"),
    ("colour=blue", "invalid parameter colour"),
    ("dataset=ds-0123456789abcdef", "not found"),
    ("dataset=../../etc/passwd", "invalid parameter dataset"),
])
def test_bad_links_show_a_message_not_a_traceback(dash_duo, perfcast_app, query, message):
    start(dash_duo, perfcast_app, f"/scenario?{query}")
    dash_duo.wait_for_contains_text(".alert-error", message, timeout=15)
    body = dash_duo.find_element("body").text
    assert "Traceback" not in body
    dash_duo.wait_for_element("#scenario-run")  # the form is still usable
