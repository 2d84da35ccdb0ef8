"""The "out of date" mark of a job page (drawn by ``assets/stale.js``): from Run until the job ends, what the
page shows is the previous settings' result. It is dimmed, the line placed here says so, and the page's
downloads (its ``P-download…`` buttons and every grid's ``…-csv`` export) are disabled, so a file taken in that
time cannot be mistaken for the new result. The mark goes when the job ends: its result drawn, cancelled or
failed (the result on screen is then the one its provenance names, as before).

Plain browser code, not a Dash callback: a callback listening to the job's stores would be held back by Dash
until the running job's callback chain resolves, i.e. until the mark is no longer needed. The script watches
the ``disabled`` attribute the job's background callback sets on the page's Run button instead. It changes
nothing on the server; every download is still answered from the server's own ``P-ready`` key. On a page that
shows no result yet (the first run) the line says the result will appear, not that a previous one is shown: the
``P-changed`` slot's class ``has-result`` tells the script which.

The other stale case, inputs changed before Run: ``dashboard.jobs.panel.inputs_changed`` compares the key of
the form's current inputs with the key of the result on screen (``P-ready``), and the job panel's callback
puts the note :data:`CHANGED` in ``P-changed`` while they differ, on every page with a job panel.
"""

from __future__ import annotations

from dash import html


CHANGED = "Computed for other inputs: the result below is not for the inputs above. Run to update."


def changed_note(prefix: str, shown: bool) -> html.Div:
    """The slot of the "computed for other inputs" note; its class says whether a result is on screen."""
    return html.Div(id=f"{prefix}-changed", className="changed-slot" + (" has-result" if shown else ""))


def stale_note(prefix: str) -> html.Div:
    """Where the out-of-date line of the job panel ``prefix`` goes."""
    return html.Div(id=f"{prefix}-stale", className="stale-slot")
