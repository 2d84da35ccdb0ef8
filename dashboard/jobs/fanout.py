"""One leaderboard over every worker (the redis backend): its (model, fold) fits shared out through Redis.

A leaderboard job is one Celery task, so on its own it trains on one worker however many are idle. With the
redis backend, :func:`runner` gives :func:`modeling.crossgen.ensemble.run_ensemble` a ``fit_runner`` that
spreads the fits:

* The job (the *parent*) writes the run's parameters and project under ``perfcast:fan:<id>:spec`` and
  every fit's name (``model|fold``) into the list ``...:todo``, then sends up to ``FANOUT_HELPERS`` Celery
  tasks (:func:`help_with`). A helper rebuilds the same :class:`~modeling.crossgen.ensemble.FitPlan` from
  the spec (the dataset read in the job's project), then takes fits from the list one at a time until it
  is empty or the run is stopped.
* The parent takes fits from the same list itself, so a run never waits for a free worker (when every
  worker is busy, the parent computes every fit, as the one-process run does).
* A fit taken is *claimed* by a lease (``...:claim:<fit>``, renewed every second, ``LEASE_SECONDS``); its
  result goes into the hash ``...:done`` as JSON (floats round-trip exactly). A fit neither done, nor in
  the list, nor claimed on two looks a second apart belonged to a worker that died: it goes back in the
  list and another process (or the parent) fits it again.
* Each fit is deterministic and the assembly does not depend on order, so the leaderboard is the
  one-process run's, number for number (tested); progress counts finished fits wherever they ran.
* Redis unreachable mid-run: the parent fits on alone, one fit at a time, and looks once a second whether
  Redis answers; when it does, the fits left (only those: a spec or list lost with Redis's data is written
  again) are shared out once more. A helper that meets the outage stops. A run that ends during the outage
  waits for Redis to mark itself stopped, so no helper queued behind the outage fits a list nobody needs.
* Cancel (or abandonment) stops the parent, which sets ``...:stop``, empties the list and revokes the
  helper tasks still queued: the fits not yet started are never run. The helpers do not rely on the parent
  for that (a parent inside a long call into C is killed by its pool's watcher, with no chance to clean up):
  each helper watches its parent job itself, as the parent's own watchdog does (Cancel's flag of the parent's
  task, the pages' heartbeat of its key, its run ended, the run's stop), and stops within a poll
  (``WATCH_SECONDS``), a fit in Python by the stop exception, a fit in C by its pool's watcher; a helper
  still queued starts, sees the parent stopped and returns at once, and Cancel on the page also revokes the
  helper tasks the parent recorded (``perfcast:helpers:<parent task>``).
* Quotas: a helper works on its parent's person's behalf, so while it works it keeps the parent job's ticket
  counting (:func:`dashboard.jobs.quotas.helping_out`): a job's ticket is released when the job has ended and
  its last helper has stopped, so a person whose helpers still finish after Cancel cannot start more work
  ahead of others meanwhile.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import uuid
from functools import lru_cache

import numpy as np

from dashboard import settings
from dashboard.jobs.codec import dumps, loads
from dashboard.jobs.outage import is_outage, retrying

TASK_NAME = "perfcast.fanout.help"
_log = logging.getLogger("perfcast")
#: how long a run's keys are kept (a run that outlives this would have expired its own results)
KEEP_SECONDS = 6 * 3600


def enabled() -> bool:
    """Are fits shared out? With the redis backend, unless ``PERFCAST_FANOUT=0``."""
    from dashboard.jobs.backend import active

    return settings.FANOUT and active().name == "redis"


def _k(fan: str, *parts) -> str:
    from dashboard.jobs.distributed import _k as key

    return key("fan", fan, *parts)


def _k_helpers(task: str) -> str:
    from dashboard.jobs.distributed import _k as key

    return key("helpers", task)


def _fit_name(model: str, fold) -> str:
    return f"{model}|{'all' if fold is None else int(fold)}"


def _parse(name: str) -> tuple[str, int | None]:
    model, _, fold = name.rpartition("|")
    return model, None if fold == "all" else int(fold)


def encode(out) -> str:
    """A fit's output as JSON (:mod:`dashboard.jobs.codec`'s text): ``(predictions or None, info or None,
    seconds)`` and who computed it."""
    pred, info, seconds = out
    return dumps({"pred": pred, "info": info, "seconds": seconds, "by": f"{socket.gethostname()}:{os.getpid()}"})


def decode(raw) -> tuple[tuple, str]:
    d = loads(raw)
    pred = None if d["pred"] is None else np.asarray(d["pred"], dtype=float)
    info = d["info"]
    if info is not None:
        info["pred"] = np.asarray(info["pred"], dtype=float)
    return (pred, info, d["seconds"]), d["by"]


def _claim(fan: str, name: str):
    from dashboard.jobs.distributed import Lease

    lease = Lease(_k(fan, "claim", name))
    lease.token = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex}"  # who holds it, for the record
    lease.acquire()
    return lease


# ---------------------------------------------------------------------------------------------- the parent

def runner(spec: dict, on_wait=None, helpers: int | None = None):
    """A ``fit_runner`` for :func:`modeling.crossgen.ensemble.run_scenario` that shares the fits out.

    ``spec`` holds what a helper needs to rebuild the plan: ``project`` (id), ``params`` (the scenario
    kind's parameters: dataset, host, target, metric, preset, cv, folds, transform, seed). ``on_wait()`` is
    called at least every second while the parent waits for others' fits (the job's progress reporter, where
    cancel and abandonment are noticed)."""
    helpers = settings.FANOUT_HELPERS if helpers is None else helpers

    def run(tasks, fit):
        from dashboard.jobs.distributed import client, parent

        c = client()
        from dashboard.jobs.quotas import current_ticket

        job = parent()  # the job sending the helpers (None: called outside a job, as in tests)
        if job is not None:  # the helpers count in its person's quota while they work (quotas.helping_out)
            job = {**job, "ticket": current_ticket()}
        spec_ = {**spec, "parent": job} if job is not None else spec
        fan = uuid.uuid4().hex
        names = [_fit_name(m, k) for m, k in tasks]
        have: set[str] = set()
        suspects: dict[str, float] = {}
        sent: list = []
        shared = _rejoin(c, fan, spec_, names, have, helpers, sent)
        looked, wait = time.monotonic(), 1.0
        ended = False
        try:
            while len(have) < len(names):
                if shared:
                    try:
                        yield from _share(c, fan, names, have, suspects, fit, on_wait)
                        continue
                    except Exception as exc:
                        if not is_outage(exc):
                            raise
                        _log.warning("Redis unreachable during run %s (%s): fitting here until it answers", fan, exc)
                        shared, looked, wait = False, time.monotonic(), 1.0
                # Redis unreachable: one fit at a time in this process (same numbers), and now and then (1 s,
                # doubling up to 30 s while it stays away: a look may itself wait for a connect timeout) a
                # look whether it answers again, to share the rest out once more, with new helpers (those
                # that met the outage stopped)
                name = next(n for n in names if n not in have)
                have.add(name)
                yield (*_parse(name), fit(*_parse(name)))
                if len(have) < len(names) and time.monotonic() - looked >= wait:
                    shared = _rejoin(c, fan, spec_, names, have, helpers, sent, again=True)
                    looked, wait = time.monotonic(), min(2 * wait, 30.0)
            ended = True
        finally:
            # a run that ends waits for Redis to mark it stopped; one unwinding on an error only briefly
            _stop(c, fan, sent, bound=None if ended else 5.0)

    return run


def _rejoin(c, fan, spec, names, have, helpers, sent, again: bool = False) -> bool:
    """Publish what is left of run ``fan`` (its spec, and the fits not yet here in its list), send the
    helpers (``again``: after an outage, a new set, since those that met it stopped), and say whether Redis
    answered. Also how a run resumes sharing after an outage: the fits computed here meanwhile leave the list,
    so do those a helper still holds a claim on (it fitted through a short outage; should it die, its claim
    runs out and the lost-fit look lists the fit again), and a spec or list lost with Redis's data is
    written again."""
    try:
        finished = {x.decode() for x in c.hkeys(_k(fan, "done"))}
        left = [n for n in names if n not in have and n not in finished]
        if again and left:
            held = _claimed(c, fan, left)
            left = [n for n in left if not held[n]]
        todo = _k(fan, "todo")
        pipe = c.pipeline()
        pipe.set(_k(fan, "spec"), json.dumps(spec), ex=KEEP_SECONDS)
        pipe.delete(todo)
        if left:
            pipe.rpush(todo, *left)
            pipe.expire(todo, KEEP_SECONDS)
        pipe.execute()
        if again or not sent:
            ids = _send_helpers(fan, helpers)
            sent.extend(ids)
            task = (spec.get("parent") or {}).get("task")
            if task and ids:  # Cancel on the page revokes them too (LeasedCeleryManager.terminate_job)
                pipe = c.pipeline()
                pipe.sadd(_k_helpers(task), *ids)
                pipe.expire(_k_helpers(task), KEEP_SECONDS)
                pipe.execute()
    except Exception as exc:
        if not is_outage(exc):
            raise
        return False
    return True


def _share(c, fan, names, have, suspects, fit, on_wait):
    """The parent's loop: collect others' fits, take one itself, or look for lost ones and wait."""
    todo, done_key = _k(fan, "todo"), _k(fan, "done")
    last_look = last_wait = 0.0
    while len(have) < len(names):
        # the fits others finished
        for name in [n for n in (x.decode() for x in c.hkeys(done_key)) if n not in have]:
            raw = c.hget(done_key, name)  # read before it counts as here: an outage now loses nothing
            if raw is None:  # gone with Redis's data: the lost-fit look lists it again
                continue
            out, _ = decode(raw)
            have.add(name)
            yield (*_parse(name), out)
        if len(have) == len(names):
            break
        # one of its own
        name = c.lpop(todo)
        if name is not None:
            name = name.decode()
            if name in have:
                continue
            lease = _claim(fan, name)
            try:
                out = fit(*_parse(name))
            finally:
                lease.release()
            have.add(name)
            yield (*_parse(name), out)
            c.hset(done_key, name, encode(out))  # for the record; an outage here loses no fit
            c.expire(done_key, KEEP_SECONDS)
            continue
        now = time.monotonic()
        if now - last_look >= 1.0:  # nothing left to take: is a fit lost with a dead worker?
            last_look = now
            _requeue_lost(c, fan, names, have, suspects, now)
        if on_wait and now - last_wait >= 1.0:
            last_wait = now
            on_wait()
        time.sleep(0.05)


def _send_helpers(fan: str, n: int) -> list:
    if n <= 0:
        return []
    from dashboard.jobs.celery_app import celery_app

    app = celery_app()
    return [app.send_task(TASK_NAME, args=[fan]).id for _ in range(n)]


def _claimed(c, fan: str, names: list) -> dict:
    """Whether a helper holds the claim on each of ``names`` (one round trip)."""
    pipe = c.pipeline()
    for n in names:
        pipe.exists(_k(fan, "claim", n))
    return dict(zip(names, pipe.execute()))


def _requeue_lost(c, fan, names, have, suspects, now) -> None:
    """Put back in the list a fit that is neither done, nor in the list, nor claimed, twice in a row."""
    waiting = {x.decode() for x in c.lrange(_k(fan, "todo"), 0, -1)}
    finished = {x.decode() for x in c.hkeys(_k(fan, "done"))}
    open_ = [n for n in names if n not in have and n not in waiting and n not in finished]
    if not open_:
        suspects.clear()
        return
    claimed = _claimed(c, fan, open_)
    for n in open_:
        if claimed[n]:
            suspects.pop(n, None)
        elif n in suspects:
            suspects.pop(n)
            c.rpush(_k(fan, "todo"), n)  # its worker died: fit it again
            _log.warning("fit %s of run %s was lost with its worker: fitting it again", n, fan)
        else:
            suspects[n] = now


def _stop(c, fan: str, sent: list, bound: float | None = None) -> None:
    """The run is over (done, cancelled or failed): nothing more is taken; queued helpers are revoked. While
    Redis is unreachable this waits for it (as the job's own result does), so that no helper queued behind
    the outage fits a list nobody waits for."""
    def stop_now():
        pipe = c.pipeline()
        pipe.set(_k(fan, "stop"), "1", ex=KEEP_SECONDS)
        pipe.delete(_k(fan, "todo"))
        pipe.execute()
        if sent:
            from dashboard.jobs.celery_app import celery_app

            celery_app().control.revoke(sent)

    try:
        retrying(stop_now, bound=bound)
    except Exception as exc:  # noqa: BLE001 - still unreachable: the keys expire; a queued helper then stops
        _log.warning("run %s: could not mark it stopped (%s)", fan, exc)


# ---------------------------------------------------------------------------------------------- a helper

@lru_cache(maxsize=2)
def _plan(spec_json: str):
    """The fit plan of a spec, rebuilt in this worker process (kept for the next helper of the same run)."""
    from dashboard.access import projects
    from dashboard.state import datasets
    from modeling.crossgen.ensemble import scenario_plan

    spec = json.loads(spec_json)
    p = spec["params"]
    with projects.scope(spec["project"]):
        scen = datasets.get(p["dataset"]).scenario(p["host"], p["target"], p["metric"])
    return scenario_plan(scen, models=p["preset"], cv=p["cv"], folds=p["folds"], transform=p["transform"],
                         seed=p["seed"])


def _parent_stopped(c, fan: str, job: dict | None) -> bool:
    """Is the run over, or its parent job cancelled or ended (abandonment: the parent's watchdog, as the
    helper's own guard below)?"""
    if c.exists(_k(fan, "stop")):
        return True
    if not job:
        return False
    from dashboard.jobs.distributed import _k as key

    ended = key("run", job["run"], "ended") if job.get("run") else None
    return bool(c.exists(key("cancel", job["task"]))) or bool(ended and c.exists(ended))


def help_with(fan: str) -> int:
    """The Celery task: fit what is left of run ``fan`` until nothing is; returns how many fits it did.
    It watches its parent job while it fits (the module's docstring: Cancel and abandonment stop it within a
    poll). Redis unreachable: it stops (the parent fits what is left itself, and shares it out again later)."""
    import contextlib

    from dashboard.jobs.distributed import client, guard
    from dashboard.jobs.quotas import helping_out
    from dashboard.jobs.runner import JobAbandoned, JobCancelled

    c = client()
    done = 0
    try:
        spec = c.get(_k(fan, "spec"))
        job = json.loads(spec).get("parent") if spec is not None else None
        if spec is None or _parent_stopped(c, fan, job):
            return 0
        watch = (guard(job["key"], job.get("run"), task=job["task"], also=lambda: _parent_stopped(c, fan, job))
                 if job else contextlib.nullcontext())
        with helping_out((job or {}).get("ticket")), watch:
            while not c.exists(_k(fan, "stop")):
                name = c.lpop(_k(fan, "todo"))
                if name is None:
                    break
                name = name.decode()
                lease = _claim(fan, name)
                try:
                    out = _plan(spec.decode()).fit(*_parse(name))
                    pipe = c.pipeline()  # the record expires even when the parent records no fit of its own
                    pipe.hset(_k(fan, "done"), name, encode(out))
                    pipe.expire(_k(fan, "done"), KEEP_SECONDS)
                    pipe.execute()
                finally:
                    lease.release()
                done += 1
    except (JobCancelled, JobAbandoned) as exc:
        _log.info("helper of run %s: its job stopped (%s) after %d fits", fan, exc, done)
    except Exception as exc:
        if not is_outage(exc):
            raise
        _log.warning("helper of run %s: Redis unreachable (%s), stopping after %d fits", fan, exc, done)
    return done


def register(app) -> None:
    """Make :func:`help_with` a task of the Celery app (web servers send it, workers run it)."""
    app.task(name=TASK_NAME, ignore_result=True, acks_late=False)(help_with)
