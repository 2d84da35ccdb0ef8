"""Fair job slots (dashboard/jobs/quotas.py), on both backends (``backend``: local and a real Redis): a person's
and a project's quota of running and queued jobs, taken atomically by concurrent submissions, freed when a job
ends or dies, and the waiting job's label naming the jobs that hold the slots by project and kind only."""

import multiprocessing as mp
import os
import signal
import threading
import time

from dashboard import jobs
from dashboard.access import projects
from dashboard.jobs import quotas
from dashboard.jobs.runs import new_run
from tests import signed_in

KEY_A = jobs.result_key("scenario", {"test": "quota-a"}, "fp")
KEY_B = jobs.result_key("countsall", {"test": "quota-b"}, "fp")
KEY_C = jobs.result_key("phases", {"test": "quota-c"}, "fp")


def _user(name: str, project: str, role: str = "editor") -> tuple[int, int]:
    """(user id, project id) of ``name``, a member of ``project``."""
    from dashboard.access import accounts, database

    signed_in.member(name, project, role)
    with database.session() as db:
        return accounts.find_user(db, name).id, accounts.ensure_project(db, project).id


def test_a_person_with_two_jobs_running_or_queued_is_refused_a_third(backend, var):
    me, proj = _user("quota-alice", "quota-gpu-next")
    _me, other = _user("quota-alice", "quota-second")
    assert quotas.reserve(new_run(), me, proj, "scenario", KEY_A) is None
    assert quotas.reserve(new_run(), me, other, "countsall", KEY_B) is None
    refused = quotas.reserve(new_run(), me, proj, "phases", KEY_C)
    assert refused.startswith("You already have 2 jobs running or queued (at most 2 per person)")
    # which jobs, where to cancel them, and what to do
    assert "a cross-generation training (/scenario) of project 'quota-gpu-next', queued" in refused
    assert "a count prediction of every program (/counts) of project 'quota-second', queued" in refused
    assert "Wait for one of them to finish, or cancel one on its page, then run again." in refused


def test_a_project_at_its_quota_refuses_another_members_job(backend, var):
    a, proj = _user("quota-p-a", "quota-busy")
    b, _ = _user("quota-p-b", "quota-busy")
    c, _ = _user("quota-p-c", "quota-busy", "viewer")
    assert quotas.reserve(new_run(), a, proj, "scenario", KEY_A) is None
    assert quotas.reserve(new_run(), a, proj, "scenario", KEY_A) is None
    assert quotas.reserve(new_run(), b, proj, "countsall", KEY_B) is None
    refused = quotas.reserve(new_run(), c, proj, "phases", KEY_C)
    assert refused.startswith("Project 'quota-busy' already has 3 jobs running or queued (at most 3 per project)")
    assert "quota-p-a" not in refused and "quota-p-b" not in refused  # never the person
    # a member of another project is not held up by this one
    d, elsewhere = _user("quota-p-d", "quota-quiet")
    assert quotas.reserve(new_run(), d, elsewhere, "phases", KEY_C) is None


def _submit_together(barrier, user, project, out):
    barrier.wait()
    out.put(quotas.reserve(new_run(), user, project, "scenario", KEY_A))


def test_concurrent_submissions_cannot_exceed_the_quota(backend, var):
    """Six submissions of one person at the same moment (six processes, as six tabs through two web workers):
    exactly two are taken."""
    me, proj = _user("quota-tabs", "quota-tabs")
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(6), ctx.Queue()
    procs = [ctx.Process(target=_submit_together, args=(barrier, me, proj, out)) for _ in range(6)]
    for p in procs:
        p.start()
    answers = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(10)
    assert sum(a is None for a in answers) == 2
    assert all(a.startswith("You already have 2 jobs") for a in answers if a is not None)


def test_cancel_gives_a_queued_jobs_ticket_back(backend, var, monkeypatch):
    me, proj = _user("quota-cancel", "quota-cancel")
    first, second = new_run(), new_run()
    assert quotas.reserve(first, me, proj, "scenario", KEY_A) is None
    assert quotas.reserve(second, me, proj, "scenario", KEY_A) is None
    monkeypatch.setattr(quotas, "current_user", lambda: me + 1000)
    quotas.cancel(first)  # someone else's cancel changes nothing
    assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is not None
    monkeypatch.setattr(quotas, "current_user", lambda: me)
    quotas.cancel(first)
    assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is None


def test_a_double_click_replaces_the_queued_ticket(backend, var):
    me, proj = _user("quota-double", "quota-double")
    first = new_run()
    assert quotas.reserve(first, me, proj, "scenario", KEY_A) is None
    assert quotas.reserve(new_run(), me, proj, "scenario", KEY_A, replaces=first) is None
    assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is None  # the first click's ticket is gone


def _claim_and_hold(user, project, run, ready):
    quotas.current_user = lambda: user
    with projects.scope(project):
        got = quotas.claim(run, "scenario", KEY_A)
    ready.put(got.refusal)
    signal.pause()


def test_a_started_job_holds_its_ticket_until_its_process_dies(backend, var, monkeypatch):
    """A started job counts while its process lives (Cancel on the local backend kills it; a worker that dies
    stops renewing its lease) and stops counting without anyone releasing it."""
    monkeypatch.setattr("dashboard.settings.JOBS_PER_USER", 1)
    me, proj = _user("quota-killed", "quota-killed")
    run = new_run()
    assert quotas.reserve(run, me, proj, "scenario", KEY_A) is None
    ctx = mp.get_context("fork")
    ready = ctx.Queue()
    job = ctx.Process(target=_claim_and_hold, args=(me, proj, run, ready))
    job.start()
    assert ready.get(timeout=30) is None
    monkeypatch.setattr("dashboard.settings.JOB_ABANDON_SECONDS", 0.0)  # only a started ticket counts now
    assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is not None  # not yet: the started one lives
    os.kill(job.pid, signal.SIGKILL)
    job.join(10)
    deadline = time.time() + 30
    while quotas.reserve(new_run(), me, proj, "phases", KEY_C) is not None:
        assert time.time() < deadline, "the dead job's ticket still counts"
        time.sleep(0.2)


def test_a_job_store_posted_without_run_is_refused_beyond_the_quota(backend, var, monkeypatch):
    me, proj = _user("quota-forged", "quota-forged")
    assert quotas.reserve(new_run(), me, proj, "scenario", KEY_A) is None
    assert quotas.reserve(new_run(), me, proj, "scenario", KEY_A) is None
    monkeypatch.setattr(quotas, "current_user", lambda: me)
    with projects.scope(proj):
        got = quotas.claim(None, "phases", KEY_C)  # no ticket: the job would take a third
    assert got.refusal.startswith("Refused: You already have 2 jobs")
    with projects.scope(proj):
        ok = quotas.claim(new_run(), "phases", KEY_C)
    assert ok.refusal is not None


def test_the_waiting_label_names_project_and_kind_never_the_person(backend, var, monkeypatch):
    viewer, mine = _user("quota-viewer", "quota-gpu-next", "viewer")
    owner, _ = _user("quota-owner-one", "quota-gpu-next")
    stranger, secret = _user("quota-owner-two", "quota-secret-project")
    runs = []
    for user, project, kind, key in ((owner, mine, "scenario", KEY_A), (stranger, secret, "countsall", KEY_B)):
        run = new_run()
        assert quotas.reserve(run, user, project, kind, key) is None
        monkeypatch.setattr(quotas, "current_user", lambda u=user: u)
        with projects.scope(project):
            got = quotas.claim(run, kind, key)
        assert got.refusal is None
        jobs.active().set_status(key, "running", run=run)  # it holds a slot
        runs.append(got)
    text = quotas.waiting(new_run(), viewer)
    assert text == ("queued: waiting for a free slot; a cross-generation training (/scenario) of project "
                    "'quota-gpu-next' and a count prediction of every program of another project are running")
    assert "quota-secret-project" not in text and "quota-owner" not in text
    # the job's progress label: the runner's "queued: ..." is replaced, any other passes through
    label = quotas.Waiting(new_run(), viewer)
    assert label("queued: other jobs are training, waiting for a free slot") == text
    assert label("fold 3 of 10") == "fold 3 of 10"
    for got in runs:
        quotas.release(got)
    assert quotas.waiting(new_run(), viewer) is None


def test_the_runner_says_queued_as_the_label_expects():
    """The runner's label for a job waiting for a slot is the one the waiting label replaces."""
    import inspect

    from dashboard.jobs import runner

    assert f'"{quotas.QUEUED} ' in inspect.getsource(runner.run_job)


def test_every_job_kind_has_a_name_on_the_page():
    import importlib

    found = set()
    for page in ("counts", "crossgen", "newapp", "operators", "phases", "predict"):
        module = importlib.import_module(f"dashboard.{page}.kinds")
        found |= {v.name for v in vars(module).values() if isinstance(v, jobs.JobKind)}
    assert len(found) >= 14 and found <= set(quotas.KINDS)


def _hold_the_slot(user, project, ready):
    quotas.current_user = lambda: user
    with projects.scope(project):
        got = quotas.claim(new_run(), "scenario", KEY_A)

        def compute(report):
            ready.put("running")
            while True:
                report(0.5, "training")
                time.sleep(0.05)
        jobs.run_job(KEY_A, compute, run=got.run)


def test_a_job_waiting_for_a_slot_says_which_jobs_hold_it(backend, var, monkeypatch):
    """The runner's label of a job queued for a slot, as its page shows it: the job holding the slot by kind and
    project ("another project" for one the viewer is not in), then the job runs when the slot frees."""
    monkeypatch.setattr("dashboard.settings.MAX_CONCURRENT_JOBS", 1)
    owner, elsewhere = _user("quota-slot-owner", "quota-slot-elsewhere")
    viewer, mine = _user("quota-slot-viewer", "quota-slot-mine")
    ctx = mp.get_context("fork")
    ready = ctx.Queue()
    holder = ctx.Process(target=_hold_the_slot, args=(owner, elsewhere, ready))
    holder.start()
    try:
        assert ready.get(timeout=60) == "running"
        monkeypatch.setattr(quotas, "current_user", lambda: viewer)
        with projects.scope(mine):
            got = quotas.claim(new_run(), "phases", KEY_C)
        waiting, labels, done = quotas.Waiting(got.run, viewer), [], []
        expected = "queued: waiting for a free slot; a cross-generation training of another project is running"

        def job():
            done.append(jobs.run_job(KEY_C, lambda report: {"ok": 1}, run=got.run,
                                     progress=lambda frac, label: labels.append(waiting(label))))
        thread = threading.Thread(target=job)
        thread.start()
        deadline = time.time() + 30
        while expected not in labels:
            assert time.time() < deadline, labels[-3:]
            time.sleep(0.1)
        assert not done  # still waiting for the slot
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.join(10)
    thread.join(60)
    assert done == [{"key": KEY_C}]
    quotas.release(got)


def test_a_jobs_ticket_counts_until_the_helpers_it_sent_have_stopped(backend, var, monkeypatch):
    """A leaderboard's fan-out helper (dashboard/jobs/fanout.py ``help_with``) still fitting for a job that has
    ended (Cancel, say, while the helper is inside a fit) keeps the job's ticket counting for its person; the
    ticket goes when the helper stops."""
    import json

    import pytest

    if backend != "redis":
        pytest.skip("only the redis backend sends helper tasks")
    from dashboard.jobs import fanout
    from dashboard.jobs.distributed import client

    monkeypatch.setattr("dashboard.settings.JOBS_PER_USER", 1)
    me, proj = _user("quota-helped", "quota-helped")
    run = new_run()
    assert quotas.reserve(run, me, proj, "scenario", KEY_A) is None
    monkeypatch.setattr(quotas, "current_user", lambda: me)
    with projects.scope(proj):
        got = quotas.claim(run, "scenario", KEY_A)
    assert got.refusal is None and quotas.current_ticket() == got.run

    inside, finish = threading.Event(), threading.Event()

    class Plan:
        def fit(self, model, fold):
            inside.set()
            assert finish.wait(60)
            return None, None, 0.0

    monkeypatch.setattr(fanout, "_plan", lambda spec: Plan())
    fan = new_run()
    parent = {"task": new_run(), "key": KEY_A, "run": run, "ticket": got.run}
    client().set(fanout._k(fan, "spec"), json.dumps({"project": proj, "params": {}, "parent": parent}))
    client().rpush(fanout._k(fan, "todo"), "m|0")
    helper = threading.Thread(target=fanout.help_with, args=(fan,))
    helper.start()
    try:
        assert inside.wait(30)
        quotas.release(got)  # the job ends (Cancel) while its helper is inside a fit
        assert quotas.current_ticket() is None
        refused = quotas.reserve(new_run(), me, proj, "phases", KEY_C)
        assert refused is not None and refused.startswith("You already have 1 job running or queued")
    finally:
        finish.set()
        helper.join(30)
    assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is None  # the helper stopped: the ticket went


def test_a_running_jobs_ticket_is_written_again_when_redis_loses_its_data(backend, var, monkeypatch):
    """Redis restarted without persistence (here: its data flushed) while a job runs: the job takes its liveness
    lease back within a second and writes its ticket again, so it goes on counting for its person."""
    import pytest

    if backend != "redis":
        pytest.skip("the local backend's tickets are a file")
    from dashboard.jobs.distributed import client

    monkeypatch.setattr("dashboard.settings.JOBS_PER_USER", 1)
    me, proj = _user("quota-flushed", "quota-flushed")
    run = new_run()
    assert quotas.reserve(run, me, proj, "scenario", KEY_A) is None
    monkeypatch.setattr(quotas, "current_user", lambda: me)
    with projects.scope(proj):
        got = quotas.claim(run, "scenario", KEY_A)
    try:
        client().flushall()
        deadline = time.time() + 30
        while not client().hexists("perfcast:quota:tickets", got.run):
            assert time.time() < deadline, "the running job's ticket was not written again"
            time.sleep(0.1)
        assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is not None
    finally:
        quotas.release(got)
    assert quotas.reserve(new_run(), me, proj, "phases", KEY_C) is None
