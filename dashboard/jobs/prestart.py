"""Every check before any process or task exists.

A background callback's job function (a page's ``JobPanel.job``, dashboard/jobs/panel.py) checks the signed-in
project, the job's key and its quota ticket again where it runs. A request that fails those checks must not get
that far: a forged or replayed job request would otherwise start a process (local backend) or queue a Celery
task (redis backend) just to be refused there, and an account in no project could start them without limit.
So a job function that is a method (``JobPanel.job``) may have a *before-start* check, its object's
``before_start(*args) -> answer | None`` (``JobPanel.before_start``), run by both job managers in the request
that asks for the job, before they start anything: None lets the job start; anything else is the job's answer
(its refusal, in the shape of the callback's outputs), handed to the page as if the job had returned it, with no
process and no task.
"""

from __future__ import annotations

ATTR = "before_start"
#: the job id a manager returns for an answer given before start: no process, never running
NO_JOB = -1
_CHECKS: dict[int, object] = {}


def register(fn, job_fn) -> None:
    """Called by a manager's ``make_job_fn``: remember the before-start check of ``fn`` (a method: its object's
    ``before_start``) for its ``job_fn``."""
    check = getattr(getattr(fn, "__self__", None), ATTR, None)
    if check is not None:
        _CHECKS[id(job_fn)] = check


def answer_before_start(job_fn, args):
    """The answer to give without starting the job (its refusal), or None to start it."""
    check = _CHECKS.get(id(job_fn))
    if check is None:
        return None
    if isinstance(args, dict):
        return check(**args)
    return check(*args) if isinstance(args, (list, tuple)) else check(args)


def no_job(job) -> bool:
    """Is ``job`` (a manager's job id, as the page sends it back) the id of an answer given before start?"""
    try:
        return int(job) == NO_JOB
    except (TypeError, ValueError):
        return str(job) == str(NO_JOB)
