"""The notice every page shows while the job service (Redis, the redis backend) does not answer.

A callback that meets an outage (:func:`dashboard.jobs.outage.is_outage`) cannot read a cached result, save
one, or lay a page out from one; instead of leaving the page silent (Dash's "no update"), the app's error
handler (:mod:`dashboard.callback_errors`) shows this notice and starts a check every few seconds; the check
(:mod:`dashboard.jobs.service_check`, on the jobs floor above this one) hides the notice as soon as the service
answers again. Nothing a page holds is lost meanwhile, and nothing
is half-saved (saves write their files only after the result was read).
"""

from __future__ import annotations

from dash import dcc, html, set_props

NOTICE = "service-notice"
CHECK = "service-notice-check"
CHECK_MS = 3000
TEXT = ("The job service is unreachable: results cannot be read, run or saved until it answers again. "
        "Nothing was lost; this notice goes away by itself when it answers, and then you can try again.")


def layout():
    """The (hidden) notice and its check, for the app's layout."""
    return html.Div([
        html.Div(TEXT, id=NOTICE, hidden=True, role="status", className="service-notice"),
        dcc.Interval(id=CHECK, interval=CHECK_MS, disabled=True),
    ])


def show() -> None:
    """Show the notice from inside a callback (the error handler of an outage), and start the check."""
    set_props(NOTICE, {"hidden": False, "children": TEXT})
    set_props(CHECK, {"disabled": False})


DISK_FULL = ("The server's disk is full: what you just did was not saved. Nothing was lost; tell the "
             "administrator, then try again.")


def show_disk_full() -> None:
    """Show the notice with :data:`DISK_FULL` from inside a callback whose write found the disk full (the
    error handler's net under every write a callback does not answer itself); it stays until the page is
    reloaded."""
    set_props(NOTICE, {"hidden": False, "children": DISK_FULL})
