"""The check behind the job-service notice (:mod:`dashboard.ui.service_notice`): while the notice is shown, every
few seconds ask the job backend whether it answers, and hide the notice when it does. It lives with the jobs,
which it asks; the notice itself is plain page furniture and knows nothing of them."""

from __future__ import annotations

from dash import Input, Output, callback, no_update

from dashboard.jobs.backend import active
from dashboard.jobs.outage import is_outage
from dashboard.ui.service_notice import CHECK, NOTICE


def reachable() -> bool:
    """Does the job service answer? (Always, with the local backend.)"""
    try:
        return bool(active().ping())
    except Exception as exc:
        if is_outage(exc):
            return False
        raise


@callback(Output(NOTICE, "hidden"), Output(CHECK, "disabled"), Input(CHECK, "n_intervals"),
          prevent_initial_call=True)
def _check(_n):
    if reachable():
        return True, True
    return no_update, no_update
