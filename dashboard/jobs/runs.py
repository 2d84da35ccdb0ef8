"""Run ids: each run of a job is named by a random id the server makes when the page starts it.

The id travels in the page's ``pending`` store to the job, which records its status and its liveness under
it; the page's watchdog judges only that run. So a status left by an earlier run of the same key (a worker
that died, a cancelled run) never condemns a new run, and a new run is never taken for an old one.
"""

from __future__ import annotations

import re
import uuid

RUN = re.compile(r"^[0-9a-f]{32}$")


def new_run() -> str:
    return uuid.uuid4().hex


def job_run(pending) -> str:
    """The run a job's store names: the page's run id, or for a store posted without one (no Run: a script, a
    forged or replayed request) an id made from the store's content, the same in the request that admits the
    job (dashboard/jobs/quotas.py ``admit``, before any process exists) and in the job that claims it."""
    import hashlib
    import json

    run = run_of(pending)
    if run is not None:
        return run
    text = json.dumps(pending, sort_keys=True, default=str)
    return hashlib.sha256(("no-run:" + text).encode()).hexdigest()[:32]


def run_of(ref) -> str | None:
    """The run id of a page store (it comes from the browser: checked), or None."""
    run = ref.get("run") if isinstance(ref, dict) else None
    return run if isinstance(run, str) and RUN.match(run) else None


def requester() -> str:
    """The person of this request (``user:<id>``; ``-`` signed out, or no request: the server's own start or
    stop of a job), as a job's starter is recorded and compared on Cancel: a job handle is signed for the page
    load that started the job, not for its person, so the backends cancel a job only for its starter."""
    from flask import has_request_context

    if not has_request_context():
        return "-"
    from dashboard.access import gate

    user = gate.signed_in_user()
    return "-" if user is None else f"user:{user.user_id}"
