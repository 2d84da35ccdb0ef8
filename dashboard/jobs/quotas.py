"""Fair job slots: how many jobs one person and one project may have running or queued, and what a waiting
job's page says it waits for.

Every job holds a *ticket* from the moment it is submitted (Run, or a shared link's lookup) until it ends:
``{run, user, project, kind, key, submitted, started}``. A submission is refused, with the jobs that hold the
quota named by kind and project, when the person already has ``JOBS_PER_USER`` tickets (over all their
projects) or the project ``JOBS_PER_PROJECT`` (over all its members). The check and the new ticket are one
atomic step, so two tabs submitting at the same moment cannot both pass:

* local backend: a ``flock`` on ``var/jobs/quotas.lock`` around reading and rewriting ``var/jobs/quotas.json``
  (every web worker and job process of the machine takes the same lock);
* redis backend: the tickets are one Redis hash, read and rewritten in a ``WATCH``/``MULTI`` transaction that
  is retried when another server changed the hash meanwhile.

A ticket stops counting when its job ends (the job releases it), and without anyone releasing it when its
job is gone:

* started (the job process claimed it, :func:`claim`): while the job process holds its liveness: a
  ``flock`` on ``var/jobs/running/<run>.lock`` (local: the kernel drops it when the process dies or is
  killed by Cancel) or a Redis lease renewed every second (redis: it runs out ``LEASE_SECONDS`` after the
  worker died);
* not started yet (a Celery task still queued, or a page that closed before its job began): while a page
  beats for its key, up to ``JOB_ABANDON_SECONDS`` after the submission or the last beat (the rule that
  abandons a job no page watches); Cancel releases it at once (:func:`cancel`).

A job store posted without Run (a forged or replayed request) is claimed by the job itself: when it has no
ticket of its user, the job takes one under the same quotas or is refused.

What a waiting job's page says (:func:`waiting`): the jobs that hold the slots, by kind and project, never
the person; a project the viewer is not a member of is "another project".
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from dataclasses import asdict, dataclass, replace

from dashboard import settings
from dashboard.jobs.runs import RUN, new_run

#: what a job of each kind is called on a page, and where it is run (and cancelled)
KINDS = {
    "scenario": ("cross-generation training", "/scenario"),
    "sweep": ("random-forest tree sweep", "/scenario"),
    "ranking": ("feature ranking", "/features"),
    "generations": ("comparison of generations", "/generations"),
    "apply": ("model applied to another dataset", "/apply"),
    "compare": ("comparison of two saved scenarios", "/compare"),
    "newapp": ("new-application prediction", "/new-app"),
    "operators": ("operators on a GPU given by its specs", "/operators"),
    "predict": ("cross-generation prediction", "/predict"),
    "counts": ("count prediction", "/counts"),
    "countsall": ("count prediction of every program", "/counts"),
    "countspredict": ("count prediction at new inputs", "/counts"),
    "phases": ("phase-level prediction", "/phases"),
    "phasesweep": ("phase-level sweep", "/phases"),
    "phasesnew": ("phase-level prediction of a new program", "/phases"),
}
#: the runner's progress label while a job waits for a slot (dashboard/jobs/runner.py): replaced by :func:`waiting`
QUEUED = "queued:"


@dataclass(frozen=True)
class Ticket:
    run: str
    user: int | None
    project: int
    kind: str
    key: str
    submitted: float
    started: float | None = None
    holder: str | None = None  # the liveness the job process holds once started (its run lock or lease)


def _tickets_of(raw: dict) -> dict[str, Ticket]:
    out = {}
    for run, text in raw.items():
        try:
            out[run] = Ticket(**json.loads(text))
        except (TypeError, ValueError):
            continue  # not a ticket this code wrote: dropped at the next write
    return out


# ---------------------------------------------------------------- the two stores


class _Local:
    """Tickets in ``var/jobs/quotas.json`` under a ``flock``; a started job holds ``var/jobs/running/<run>.lock``."""

    held: dict[str, object] = {}

    @staticmethod
    def _run_lock(run: str):
        return settings.var_path("jobs", "running") / f"{run}.lock"

    def update(self, change):
        """``change(tickets) -> (answer, tickets)`` under the machine-wide lock; the new tickets are written."""
        root = settings.var_path("jobs")
        with open(root / "quotas.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                path = root / "quotas.json"
                try:
                    raw = json.loads(path.read_text())
                except (OSError, ValueError):
                    raw = {}
                tickets = _tickets_of(raw if isinstance(raw, dict) else {})
                answer, after = change(dict(tickets))
                if after != tickets:
                    tmp = path.with_suffix(f".{os.getpid()}.tmp")
                    tmp.write_text(json.dumps({r: json.dumps(asdict(t)) for r, t in after.items()}))
                    os.replace(tmp, path)
                return answer
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def started_alive(self, run: str) -> bool:
        path = self._run_lock(run)
        if not path.exists():
            return False
        with open(path, "a") as fh:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return True  # held: the job process lives
            fcntl.flock(fh, fcntl.LOCK_UN)
        path.unlink(missing_ok=True)
        return False

    def hold(self, run: str) -> None:
        fh = open(self._run_lock(run), "a")  # noqa: SIM115 - held until the job ends (or its process dies)
        fcntl.flock(fh, fcntl.LOCK_EX)
        self.held[run] = fh

    def drop(self, run: str) -> None:
        fh = self.held.pop(run, None)
        if fh is not None:
            self._run_lock(run).unlink(missing_ok=True)
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    def keep(self, holder: str, run: str, ticket: Ticket) -> None:
        """Nothing to do: the tickets are a file, not lost while the job runs."""

    def helping(self, run: str) -> bool:
        """No job of the local backend sends helpers."""
        return False


class _Redis:
    """Tickets in the hash ``perfcast:quota:tickets``; a started job holds the lease ``perfcast:quota:alive:<run>``."""

    held: dict[str, object] = {}

    @staticmethod
    def _name(*parts) -> str:
        from dashboard.jobs.distributed import _k

        return _k("quota", *parts)

    def update(self, change):
        from redis.exceptions import WatchError

        from dashboard.jobs.distributed import client

        name = self._name("tickets")
        while True:
            with client().pipeline() as pipe:
                try:
                    pipe.watch(name)
                    raw = {k.decode(): v.decode() for k, v in pipe.hgetall(name).items()}
                    tickets = _tickets_of(raw)
                    answer, after = change(dict(tickets))
                    pipe.multi()
                    gone = [r for r in raw if r not in after]
                    if gone:
                        pipe.hdel(name, *gone)
                    for run, t in after.items():
                        if tickets.get(run) != t:
                            pipe.hset(name, run, json.dumps(asdict(t)))
                    pipe.execute()  # WatchError when another server changed the tickets meanwhile: again
                    return answer
                except WatchError:
                    continue

    def started_alive(self, run: str) -> bool:
        from dashboard.jobs.distributed import client

        return bool(client().exists(self._name("alive", run)))

    def hold(self, run: str) -> None:
        from dashboard.jobs.distributed import Lease

        lease = Lease(self._name("alive", run))
        lease.acquire()
        self.held[run] = lease

    def drop(self, run: str) -> None:
        lease = self.held.pop(run, None)
        if lease is not None:
            lease.release()

    def keep(self, holder: str, run: str, ticket: Ticket) -> None:
        """Should Redis lose its data while the job runs, its ticket is written again when the job takes its
        liveness lease back (within a second), so the job goes on counting."""
        from dashboard.jobs.distributed import client

        lease = self.held.get(holder)
        if lease is not None:
            text = json.dumps(asdict(ticket))
            lease.on_retaken = lambda: client().hsetnx(self._name("tickets"), run, text)

    def helping(self, run: str) -> bool:
        """Is a helper task of the job of ticket ``run`` still running (:func:`helping_out`)? Helpers that are
        gone are forgotten on the way."""
        from dashboard.jobs.distributed import client

        c = client()
        names = c.smembers(self._name("helpers", run))
        if not names:
            return False
        pipe = c.pipeline()
        for name in names:
            pipe.exists(name)
        alive = pipe.execute()
        gone = [n for n, a in zip(names, alive) if not a]
        if gone:
            c.srem(self._name("helpers", run), *gone)
        return any(alive)


def _store():
    from dashboard.jobs.backend import name

    return _Redis() if name() == "redis" else _Local()


def _alive(store, t: Ticket, now: float) -> bool:
    if t.started is not None:  # the job's process lives, or a helper it sent out still works for it
        return (bool(t.holder) and store.started_alive(t.holder)) or store.helping(t.run)
    from dashboard.jobs.backend import active

    try:
        beat = active().last_beat(t.key) or 0.0
    except ValueError:
        beat = 0.0
    return now - max(t.submitted, beat) < settings.JOB_ABANDON_SECONDS


def _live(store, tickets: dict[str, Ticket]) -> dict[str, Ticket]:
    now = time.time()
    return {r: t for r, t in tickets.items() if _alive(store, t, now)}


# ---------------------------------------------------------------- who, and what the page says


def current_user() -> int | None:
    """The user of this request, or of the request that started this job (its session, looked up on the
    server), else None."""
    from flask import has_request_context

    if has_request_context():
        from dashboard.access import gate

        user = gate.signed_in_user()
        return user.user_id if user else None
    from dashboard.access import projects

    found = projects._job_session()  # the job's own session, as projects.job_scope finds it
    return found[1] if found else None


def project_names(user: int | None) -> dict[int, str]:
    """The names of ``user``'s projects by id (the only project names that user may read)."""
    if user is None:
        return {}
    from sqlalchemy import select

    from dashboard.access import database
    from dashboard.access.models import Membership, Project

    with database.session() as db:
        rows = db.execute(select(Project.id, Project.name).join(Membership, Membership.project_id == Project.id)
                          .where(Membership.user_id == user))
        return {pid: name for pid, name in rows}


def describe(t: Ticket, names: dict[int, str], state: bool = False) -> str:
    """"a count prediction of every program (/counts) of project 'x'", for a viewer whose projects are ``names``
    (another project: "of another project"); never who started it."""
    what, page = KINDS.get(t.kind, (f"{t.kind} job", None))
    where = f"project '{names[t.project]}'" if t.project in names else "another project"
    text = f"a {what}{f' ({page})' if page and t.project in names else ''} of {where}"
    return f"{text}, {'running' if t.started is not None else 'queued'}" if state else text


def _listed(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _refusal(user, project: int, mine: list[Ticket], theirs: list[Ticket]) -> str | None:
    def jobs(n):
        return f"{n} job{'s' if n != 1 else ''}"

    if len(mine) >= settings.JOBS_PER_USER:
        names = project_names(user)
        return (f"You already have {jobs(len(mine))} running or queued (at most {settings.JOBS_PER_USER} per "
                f"person): {_listed([describe(t, names, state=True) for t in mine])}. Wait for one of them to "
                "finish, or cancel one on its page, then run again.")
    if len(theirs) >= settings.JOBS_PER_PROJECT:
        names = project_names(user)
        here = f"Project '{names[project]}'" if project in names else "This project"
        return (f"{here} already has {jobs(len(theirs))} running or queued (at most {settings.JOBS_PER_PROJECT} "
                f"per project): {_listed([describe(t, names, state=True) for t in theirs])}. Wait for one of "
                "them to finish (a job of yours can be cancelled on its page), then run again.")
    return None


# ---------------------------------------------------------------- submit, claim, release


def reserve(run: str, user: int | None, project: int, kind: str, key: str,
            replaces: str | None = None) -> str | None:
    """Take a ticket for run ``run`` (refusal text, or None when taken). ``replaces``: the run this page
    submitted before (a double click): dropped when it has not started."""
    store = _store()

    def change(tickets):
        live = _live(store, tickets)
        if replaces and replaces in live and live[replaces].user == user and live[replaces].started is None:
            del live[replaces]
        live.pop(run, None)
        mine = [t for t in live.values() if t.user == user]
        theirs = [t for t in live.values() if t.project == project]
        refused = _refusal(user, project, mine, theirs)
        if refused is None:
            live[run] = Ticket(run, user, project, kind, key, time.time())
        return refused, live

    return store.update(change)


def submit(run: str, kind: str, key: str, replaces: str | None = None) -> str | None:
    """Run (or a link's lookup) submits run ``run`` of ``kind`` for the current user and project: the refusal
    text, or None when the job may start."""
    from dashboard.access import projects

    cur = projects.current_project()
    return reserve(run, current_user(), cur.id, kind, key, replaces if isinstance(replaces, str) else None)


def admit(run, kind: str, key: str) -> str | None:
    """In the request that asks for a job, before its process or task exists (dashboard/jobs/prestart.py): None
    when run ``run`` may start, with a ticket of the current user and project; else the refusal. A run that Run
    or a link's lookup submitted has its unstarted ticket; a store posted without Run (forged, or replayed after
    its job ended) takes a ticket under the quotas now, or is refused now; a run id that is not one, or whose
    ticket is another's or has started already (a replay of a running job), is refused."""
    from dashboard.access import projects

    if not isinstance(run, str) or not RUN.match(run):
        return "Refused: this job request names no run: run it from its page."
    store, user, project = _store(), current_user(), projects.current_id()

    def change(tickets):
        live = _live(store, tickets)
        mine = live.get(run)
        if mine is not None:
            ok = mine.started is None and mine.user == user and mine.project == project
            return (None if ok else "Refused: this job request did not come from Run: run it from its page."), live
        refused = _refusal(user, project, [t for t in live.values() if t.user == user],
                           [t for t in live.values() if t.project == project])
        if refused is None:
            live[run] = Ticket(run, user, project, kind, key, time.time())
        return (f"Refused: {refused}" if refused else None), live

    return store.update(change)


@dataclass(frozen=True)
class Claim:
    """A job's hold on its ticket: ``run`` names the ticket, ``holder`` the liveness the job process holds;
    ``refusal`` is set (and nothing held) when the job may not run."""
    run: str
    holder: str
    refusal: str | None = None


def claim(run: str | None, kind: str, key: str) -> Claim:
    """In the job process, before it computes: the job holds its ticket's liveness from now on. A job with no
    unstarted ticket of its user (a store posted without Run, or replayed) takes a ticket of its own under the
    quotas, or is refused. Release it with :func:`release`."""
    from dashboard.access import projects
    from dashboard.jobs.outage import retrying

    store, user, project = _store(), current_user(), projects.current_id()
    run = run if isinstance(run, str) and RUN.match(run) else new_run()
    holder = new_run()
    retrying(store.hold, holder)

    def change(tickets):
        live, now = _live(store, tickets), time.time()
        mine = live.get(run)
        if mine is not None and mine.started is None and mine.user == user and mine.project == project:
            live[run] = replace(mine, started=now, holder=holder, kind=kind, key=key)
            return Claim(run, holder), live
        own = run if mine is None else new_run()  # a ticket that is not this job's: the job takes its own
        refused = _refusal(user, project, [t for t in live.values() if t.user == user],
                           [t for t in live.values() if t.project == project])
        if refused is None:
            live[own] = Ticket(own, user, project, kind, key, now, now, holder)
        return Claim(own, holder, f"Refused: {refused}" if refused else None), live

    def kept(tickets):  # the claim, and the ticket it holds (written again should Redis lose it)
        got, live = change(tickets)
        return (got, live.get(got.run)), live

    try:
        got, ticket = retrying(store.update, kept)
    except BaseException:
        store.drop(holder)
        raise
    if got.refusal:
        store.drop(holder)
    else:
        store.keep(holder, got.run, ticket)
        _CURRENT.run = got.run
    return got


def release(got: Claim) -> None:
    """The job ends: its ticket stops counting (while the job service is unreachable, its lease runs out),
    unless helper tasks it sent out still work for it: then the ticket counts until the last of them stops
    (:func:`helping_out`)."""
    from dashboard.jobs.outage import is_outage

    store = _store()
    _CURRENT.run = None
    try:
        store.update(lambda t: (None, {r: v for r, v in t.items() if r != got.run or store.helping(r)}))
    except Exception as exc:
        if not is_outage(exc):
            raise
    finally:
        store.drop(got.holder)


def cancel(run: str | None) -> None:
    """Cancel on the page of run ``run``: its ticket is released when it is the current user's and has not
    started (a Celery task still queued is revoked and never runs); a started job releases its own when it
    stops."""
    if not isinstance(run, str) or not RUN.match(run):
        return
    user = current_user()

    def change(tickets):
        t = tickets.get(run)
        if t is not None and t.user == user and t.started is None:
            return None, {r: v for r, v in tickets.items() if r != run}
        return None, tickets

    _store().update(change)


class Waiting:
    """The label of a job that waits for a slot: which jobs hold the slots, by kind and project (the
    viewer's projects by name, others as "another project"), never the person. Looked up at most every
    two seconds; other labels pass through."""

    def __init__(self, run: str, user: int | None):
        self.run, self.user = run, user
        self.at, self.text = 0.0, None

    def __call__(self, label: str) -> str:
        if not label.startswith(QUEUED):
            return label
        now = time.time()
        if now - self.at >= 2.0:
            self.at = now
            try:
                self.text = waiting(self.run, self.user)
            except Exception:  # noqa: BLE001 - the runner's own label is shown instead
                self.text = None
        return self.text or label


def running_tickets(exclude: str | None = None) -> list[Ticket]:
    """The live tickets whose job holds a slot (its status is ``running`` for its own run)."""
    from dashboard.jobs.backend import active

    store = _store()
    live = store.update(lambda t: (_live(store, t), t))
    out = []
    for t in sorted(live.values(), key=lambda t: t.started or t.submitted):
        if t.run == exclude or t.started is None:
            continue
        st = active().status(t.key) or {}
        if st.get("state") == "running" and st.get("run") in (None, t.run):
            out.append(t)
    return out


def waiting(run: str, user: int | None) -> str | None:
    """"queued: waiting for a free slot; a cross-generation training of project 'gpu-next' and a count
    prediction of another project are running", or None when no ticket holds a slot."""
    running = running_tickets(exclude=run)
    if not running:
        return None
    names = project_names(user)
    parts = [describe(t, names) for t in running[:4]]
    if len(running) > 4:
        parts.append(f"{len(running) - 4} more")
    verb = "is" if len(running) == 1 else "are"
    return f"queued: waiting for a free slot; {_listed(parts)} {verb} running"


_CURRENT = threading.local()  # the ticket of the job this thread runs (between claim and release)


def current_ticket() -> str | None:
    """The ticket (its run) of the job this thread runs, for the helper tasks it sends out; None outside a job."""
    return getattr(_CURRENT, "run", None)


@contextlib.contextmanager
def helping_out(run: str | None):
    """Held by a helper task (a leaderboard's fan-out, dashboard/jobs/fanout.py) while it works for the job of
    ticket ``run``: the ticket keeps counting for its person and project until the job has ended *and* its last
    helper has stopped, so that work still running on a person's behalf (after Cancel, say, until the helpers see
    it) counts against their quota, not against nobody's. A lease renewed every second (a helper whose worker
    died stops counting within ``LEASE_SECONDS``), listed under ``perfcast:quota:helpers:<run>``."""
    if not isinstance(run, str) or not RUN.match(run) or _store().__class__ is not _Redis:
        yield
        return
    from dashboard.jobs.distributed import Lease, client
    from dashboard.jobs.outage import is_outage

    store = _store()
    listed = store._name("helpers", run)
    lease = Lease(store._name("helper", run, new_run()))

    def listed_again():
        pipe = client().pipeline()
        pipe.sadd(listed, lease.name)
        pipe.expire(listed, 6 * 3600)
        pipe.execute()

    lease.on_retaken = listed_again  # lost with Redis's data: listed again when the lease is taken back
    try:
        if lease.acquire():
            listed_again()
    except Exception as exc:
        if not is_outage(exc):
            raise
    try:
        yield
    finally:
        lease.release()
        try:
            client().srem(listed, lease.name)
        except Exception as exc:
            if not is_outage(exc):
                raise


@contextlib.contextmanager
def held(run: str | None, kind: str, key: str):
    """:func:`claim` … :func:`release` around a job: yields the :class:`Claim` (its ``refusal`` set: nothing held)."""
    got = claim(run, kind, key)
    try:
        yield got
    finally:
        if got.refusal is None:
            release(got)
