"""The "out of date" mark of a job page (drawn by ``assets/stale.js``): from Run until the job ends, what the
page shows is the previous settings' result. It is dimmed, the line placed here says so, and the page's
downloads (its ``P-download…`` buttons and every grid's ``…-csv`` export) are disabled, so a file taken in that
time cannot be mistaken for the new result. The mark goes when the job ends: its result drawn, cancelled or
failed (the result on screen is then the one its provenance names, as before).

Plain browser code, not a Dash callback: a callback listening to the job's stores would be held back by Dash
until the running job's callback chain resolves, i.e. until the mark is no longer needed. The script watches
the ``disabled`` attribute the job's background callback sets on the page's Run button instead. It changes
nothing on the server; every download is still answered from the server's own ``P-ready`` key.
"""

from __future__ import annotations

from dash import html


def stale_note(prefix: str) -> html.Div:
    """Where the out-of-date line of the job panel ``prefix`` goes."""
    return html.Div(id=f"{prefix}-stale", className="stale-slot")
