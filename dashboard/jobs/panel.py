"""The job panel of a page: Run, Cancel, progress and the stores that carry a job through its life.

For a page prefix ``P`` the panel holds: Run and Cancel buttons, a progress
bar with its label, a status line, a share link with a copy button, and the
stores that carry a job through its life::

    P-request   {"params", "key"}: set by the layout from a shared link whose result was not cached
    P-pending   the request, when its result is not cached yet (starts the job): set by Run or the lookup
    P-result    {"key"} from the cache, without a job (the lookup of a link, the watchdog)
    P-job-result {"key"} or {"key", "error"} from the job
    P-ready     {"key"} of a result to draw; the page's own callbacks listen here. Run sets it itself on a
                cache hit: from the click to the first chart, two round trips (Run, then the page's views), or
                one when the page gives its views to ``register_job`` (Run's answer draws them)
    P-drawn     {"key"} whose views Run's answer drew: the page's callbacks skip that ready store
    P-failed    {"key", "attempt"} of a job whose process died (set by the watchdog)
    P-service   what the page says while the job service (Redis) is unreachable

Each run has a run id (:mod:`dashboard.jobs.runs`) made here when the job is
submitted; the watchdog judges only that run, so a status an earlier run left
behind never condemns it. The watchdog beats while the job is shown running,
and delivers a result that is in the cache even when the job's answer did not
reach the page (a poll that ended during a Redis outage).

A request carries ``cancels``, the Cancel button's click count when it was
made: a job is cancelled exactly when the button has been clicked since. The
status line for "cancelled" or "failed" is decided in the browser from that
count and the watchdog's finding, so the order in which the cancel, the kill
and a watchdog tick reach the server cannot turn a cancel into a failure.

Only small JSON goes through the stores; results stay in the server's cache.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from collections.abc import Callable

from dash import Input, Output, State, callback, clientside_callback, dcc, html, no_update

from dashboard import audit_log, jobs
from dashboard.access import projects
from dashboard.jobs import quotas
from dashboard.jobs.outage import UNREACHABLE, UNREACHABLE_NEW, is_outage
from dashboard.jobs.runs import job_run, new_run, run_of
from dashboard.jobs.startup_checks import job_key_refusal
from dashboard.settings import POLL_MS
from dashboard.ui.components import alert, answer
from dashboard.ui.stale import CHANGED, changed_note, stale_note
from dashboard.ui.format import message  # noqa: F401 - pages import it from here too
from dashboard.ui.url_state import InvalidParameter

CANCELLED = "Cancelled. Change the inputs or run again."


FAILED = "The job failed: its process stopped before finishing. Run again."


def job_panel(prefix: str, request: dict | None, run_label: str = "Run") -> html.Div:
    """Run/cancel buttons, progress and the job's stores.

    A link whose result is already cached starts out ready: the views render
    on the first round trip instead of after the lookup chain.
    """
    ready = {"key": request["key"]} if request and _has_result_or_none(request["key"]) else None
    return html.Div([
        html.Div([
            html.Button(run_label, id=f"{prefix}-run", className="btn btn-primary", n_clicks=0),
            html.Button("Cancel", id=f"{prefix}-cancel", className="btn", n_clicks=0, disabled=True),
            html.Div([
                html.Progress(id=f"{prefix}-progress", value="0", max="1", className="progress"),
                html.Span(id=f"{prefix}-progress-label", className="progress-label"),
            ], id=f"{prefix}-progress-box", className="progress-box", style={"display": "none"}),
        ], className="run-row"),
        html.Div(id=f"{prefix}-status"),
        stale_note(prefix),
        changed_note(prefix, shown=ready is not None),
        html.Div(id=f"{prefix}-job-status"),
        html.Div(id=f"{prefix}-service"),
        dcc.Store(id=f"{prefix}-request", data=None if ready else request),
        dcc.Store(id=f"{prefix}-pending"),
        dcc.Store(id=f"{prefix}-result"),
        dcc.Store(id=f"{prefix}-job-result"),
        dcc.Store(id=f"{prefix}-ready", data=ready),
        dcc.Store(id=f"{prefix}-drawn"),  # the ready store whose views Run drew itself (register_job's views)
        dcc.Store(id=f"{prefix}-failed"),
        dcc.Interval(id=f"{prefix}-watchdog", interval=1500, disabled=True),
    ], className="job-panel")


def inputs_changed(kind, values, ready) -> str | None:
    """:data:`CHANGED` when a result is on screen (``ready``: its ``{"key"}``) and the form's ``values`` (in
    ``kind.names`` order) make another key, or make no valid request at all; None otherwise."""
    shown = jobs.key_of(ready)
    if shown is None:
        return None
    try:
        key = kind.request(dict(zip(kind.names, values)))["key"]
    except (InvalidParameter, LookupError, TypeError, ValueError):
        return CHANGED
    return None if key == shown else CHANGED


def _has_result_or_none(key: str) -> bool:
    """Is the result cached (False while the job service is unreachable: the page then says so)?"""
    try:
        return jobs.has_result(key)
    except Exception as exc:
        if not is_outage(exc):
            raise
        return False


def _unreachable(exc: Exception, text: str = UNREACHABLE):
    """The page's note for a job service outage; any other exception is raised again."""
    if not is_outage(exc):
        raise exc
    return alert(text)


def count(n) -> int:
    """A click count from the browser: a non-negative integer, anything else counts as 0."""
    return n if isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 2**53 else 0


class _Progress:
    """The job's progress to its page; while the job service is unreachable progress is dropped (for a
    few seconds after each failed write) instead of stopping the job."""

    def __init__(self, set_progress):
        self.set_progress, self.failed_at = set_progress, 0.0

    def __call__(self, value: str, label: str) -> None:
        import time

        if time.time() - self.failed_at < 5.0:
            return
        try:
            self.set_progress((value, label))
        except Exception as exc:
            if not is_outage(exc):
                raise
            self.failed_at = time.time()


@dataclass(frozen=True)
class Views:
    """What a page draws from a result, drawn by Run's own answer when the result is cached: from the click to
    the first chart, one round trip.

    ``outputs``: name -> ``(component id, property)``, the same outputs the page's own callbacks draw when a
    job finishes (they skip the ready store Run set, :func:`drawn_by_run`); ``choices``: ``(id, property)`` of
    the views' own controls (a model dropdown); ``draw(result, *choices) -> {name: value}``.
    """

    outputs: dict
    choices: list
    draw: Callable


def drawn_by_run(prefix: str, ready, drawn) -> bool:
    """In a page callback that draws from ``P-ready``: was it triggered by a ready store whose views Run drew
    in its own answer (``P-drawn`` names the same key)? Then there is nothing to draw again."""
    from dash import ctx

    return ctx.triggered_id == f"{prefix}-ready" and bool(drawn) and jobs.key_of(drawn) == jobs.key_of(ready)


def register_job(prefix: str, kind: jobs.JobKind, form_ids: list[str], views: Views | None = None) -> JobPanel:
    """Wire the job life cycle of a page: its :class:`JobPanel`'s callbacks, registered with Dash.

    kind: the job kind (its parameters make the key; its ``compute`` runs in the job process).
    form_ids: the page's controls holding the kind's parameters, in ``kind.names`` order.
    views: what Run draws itself on a cache hit (:class:`Views`); the page's callbacks skip that ready store.
    """
    panel = JobPanel(prefix, kind, form_ids, views)
    panel.register_callbacks()
    return panel


class JobPanel:
    """The callbacks of a page's job panel (its layout is :func:`job_panel`), one method each, as Dash's
    background-callback managers and explainerdashboard's components (``layout``, ``component_callbacks``) are
    written: :meth:`register_callbacks` registers each method with its outputs and inputs.

    The life of a job, in the order the callbacks run: :meth:`run_clicked` (Run) or :meth:`lookup` (a shared
    link's request) :meth:`submit` the request; the pending store starts :meth:`job`, Dash's background
    callback (:meth:`before_start` in the request that asks for it, then :meth:`run` where it runs, which calls
    ``kind.run``, which calls the kind's ``compute``); :meth:`ready` turns its answer into the ready store the
    page draws from; :meth:`watchdog` tells a dead job from a slow one; :meth:`cancelled` gives a cancelled
    job's quota back; the status line says "cancelled" or "failed" in the browser (:meth:`_register_status`).

    Every request the browser sends back (request and pending stores) is parsed again by ``kind.from_store``:
    its key is derived here and a request whose key does not match its inputs is refused, so no one can put a
    result under another input's key.
    """

    def __init__(self, prefix: str, kind: jobs.JobKind, form_ids: list[str], views: Views | None = None):
        assert len(form_ids) == len(kind.names), (prefix, kind.names)
        self.prefix, self.kind, self.form_ids, self.views = prefix, kind, form_ids, views

    def id(self, name: str) -> str:
        """The id of the panel's component ``name`` (``P-name``)."""
        return f"{self.prefix}-{name}"

    def register_callbacks(self) -> None:
        self._register_run()
        self._register_inputs_changed()
        self._register_lookup()
        self._register_job()
        self._register_ready()
        self._register_watchdog()
        self._register_cancelled()
        self._register_status()

    # ------------------------------------------------------------------ submitting a request

    def submit(self, request: dict, attempt, cancels, previous=None) -> dict:
        """What submitting a checked request sets: on a cache hit the ready store (the page draws at once);
        otherwise the pending store (which starts the job) and the watchdog, or the refusal when the person or
        the project already has its quota of jobs (:mod:`dashboard.jobs.quotas`; ``previous``: the pending
        store this submission replaces); during an outage, the notice."""
        run = new_run()  # this run's id: the watchdog judges only this run
        try:
            if jobs.has_result(request["key"]):
                return {"ready": {"key": request["key"]}, "job_status": None, "watchdog": True, "service": None}
            if projects.current_project() is None:  # an account in no project (any new OIDC or proxy user)
                return {"job_status": alert(projects.refusal("viewer") + " Jobs run in a project's share of the "
                                            "server."), "service": None}
            refused = job_key_refusal() or quotas.submit(run, self.kind.name, request["key"], run_of(previous))
            if refused:
                return {"job_status": alert(refused), "service": None}
            jobs.run_submitted(run)
        except Exception as exc:  # the job service is unreachable: no job can be started now
            return {"job_status": None, "service": _unreachable(exc, UNREACHABLE_NEW)}
        return {"pending": {**request, "attempt": count(attempt), "cancels": count(cancels), "run": run},
                "watchdog": False, "job_status": None, "service": None}

    def _submitted_outputs(self) -> dict:
        """The outputs :meth:`submit`'s answer names."""
        return {"ready": Output(self.id("ready"), "data", allow_duplicate=True),
                "pending": Output(self.id("pending"), "data", allow_duplicate=True),
                "watchdog": Output(self.id("watchdog"), "disabled", allow_duplicate=True),
                "job_status": Output(self.id("job-status"), "children", allow_duplicate=True),
                "service": Output(self.id("service"), "children", allow_duplicate=True)}

    def _drawn_outputs(self) -> dict:
        """The views Run draws itself on a cache hit, and the store that says so (none without views)."""
        if not self.views:
            return {}
        return {"drawn": Output(self.id("drawn"), "data"),
                **{k: Output(i, prop, allow_duplicate=True) for k, (i, prop) in self.views.outputs.items()}}

    def _run_outputs(self) -> dict:
        return {"status": Output(self.id("status"), "children"), **self._submitted_outputs(), **self._drawn_outputs()}

    def _register_run(self) -> None:
        inputs = {"n": Input(self.id("run"), "n_clicks"), "cancels": State(self.id("cancel"), "n_clicks"),
                  "values": [State(i, "value") for i in self.form_ids], "previous": State(self.id("pending"), "data")}
        if self.views and self.views.choices:
            inputs["choices"] = [State(i, prop) for i, prop in self.views.choices]
        callback(output=self._run_outputs(), inputs=inputs, prevent_initial_call=True)(self.run_clicked)

    def run_clicked(self, n, cancels, values, previous, choices=()) -> dict:
        """Run: the form is parsed once, here, and the cache looked up in the same round trip; a cached result
        is drawn in this answer when the page gave its views (else by the page's next round trip); a missing
        one starts its job."""
        outputs = self._run_outputs()
        try:
            request = self.kind.request(dict(zip(self.kind.names, values)))
        except (InvalidParameter, LookupError) as exc:
            return answer(outputs, status=alert(message(exc)))
        # a fresh click is a fresh job request even with the same inputs (after a failure or cancel)
        got = self.submit(request, n, cancels, previous)
        if self.views and "ready" in got:
            res = jobs.result_for(got["ready"])
            if res is not None:
                got.update(self.views.draw(res, *choices), drawn=got["ready"])
        elif self.views and "pending" in got:  # the job draws the views with these choices in its own answer
            got["pending"]["choices"] = list(choices)
        return answer(outputs, status=None, **got)

    def _register_inputs_changed(self) -> None:
        callback(Output(self.id("changed"), "children"), Output(self.id("changed"), "className"),
                 *[Input(i, "value") for i in self.form_ids], Input(self.id("ready"), "data"),
                 prevent_initial_call=True)(self.inputs_changed)

    def inputs_changed(self, *args):
        """The result on screen was computed for other inputs than the form holds now: said until Run draws
        theirs."""
        *values, ready = args
        note = inputs_changed(self.kind, values, ready)
        return (alert(note, "warning") if note else None), changed_note(self.prefix, ready is not None).className

    def _register_lookup(self) -> None:
        callback(Output(self.id("result"), "data"), Output(self.id("pending"), "data"),
                 Output(self.id("watchdog"), "disabled"),
                 Output(self.id("job-status"), "children", allow_duplicate=True),
                 Output(self.id("service"), "children", allow_duplicate=True),
                 Input(self.id("request"), "data"), prevent_initial_call="initial_duplicate")(self.lookup)

    def lookup(self, stored):
        """The request a shared link's layout put on the page (its result was not cached then)."""
        if not stored:
            return no_update, no_update, no_update, no_update, no_update
        try:
            request = self.kind.from_store(stored)
        except (InvalidParameter, LookupError) as exc:
            return no_update, no_update, no_update, alert(message(exc)), no_update
        got = self.submit(request, stored.get("attempt"), stored.get("cancels"))
        result = {"key": request["key"]} if "ready" in got else no_update
        return (result, got.get("pending", no_update), got.get("watchdog", no_update), got["job_status"],
                got["service"])

    # ------------------------------------------------------------------ the job

    def _job_outputs(self) -> list:
        outputs = [Output(self.id("job-result"), "data")]
        if self.views:  # the job's answer draws the views (the ready store that follows is skipped: P-drawn)
            outputs += [Output(self.id("drawn"), "data", allow_duplicate=True),
                        *(Output(i, prop, allow_duplicate=True) for i, prop in self.views.outputs.values())]
        return outputs

    def _no_answer(self):
        """The job's answer that changes nothing."""
        return [no_update] * len(self._job_outputs()) if self.views else no_update

    def _register_job(self) -> None:
        p = self.id
        callback(*self._job_outputs(), Input(p("pending"), "data"),
                 background=True, manager=jobs.background_manager(), interval=POLL_MS,
                 progress=[Output(p("progress"), "value"), Output(p("progress-label"), "children")],
                 progress_default=["0", ""],
                 running=[(Output(p("run"), "disabled"), True, False),
                          (Output(p("cancel"), "disabled"), False, True),
                          (Output(p("progress-box"), "style"), {"display": "flex"}, {"display": "none"})],
                 cancel=[Input(p("cancel"), "n_clicks")],
                 prevent_initial_call=True)(self.job)

    def job(self, set_progress, pending):
        """Dash's background callback: the job of the pending store."""
        if not pending:
            return self._no_answer()
        # this runs in the job's process (local: a forked process, a group of its own; redis: a Celery task on a
        # worker, with a liveness lease), in the project of the session that started it (looked up on the
        # server from that request's cookie): its key, its data and its result are that project's
        with projects.job_scope():
            got = self.run(set_progress, pending)
            return self.with_views(got, pending) if self.views else got

    def before_start(self, pending):
        """In the request that asks for the job, before its process or task exists (dashboard/jobs/prestart.py):
        the job's answer when it is refused (no project, another key, inputs that do not check, no quota), or
        None to start it. The job checks the same again where it runs."""
        nothing = self._no_answer()
        if not pending:
            return nothing
        try:
            refused = job_key_refusal()
            if refused is None and projects.current_project() is None:
                refused = f"Refused: {projects.refusal('viewer')}"
            if refused is None:
                request = self.kind.from_store(pending)
                refused = quotas.admit(job_run(pending), self.kind.name, request["key"])
        except (InvalidParameter, LookupError) as exc:
            refused = f"Refused: {message(exc)}"
        except Exception as exc:
            if is_outage(exc):  # the job service does not answer: the job starts and says so itself
                return None
            raise
        if refused is None:
            return None
        got = {"error": refused}
        return [got, *nothing[1:]] if self.views else got

    def with_views(self, got, pending) -> list:
        """The job's answer and, when it has a result and the request carried the views' choices (a Run click),
        the views drawn from it: from Run to the first chart, two round trips (Run, the job)."""
        views = self.views
        nothing = [got, no_update, *[no_update] * len(views.outputs)]
        choices = pending.get("choices") if isinstance(pending, dict) else None
        key = jobs.key_of(got) if isinstance(got, dict) and not got.get("error") else None
        if key is None or not isinstance(choices, list) or len(choices) != len(views.choices):
            return nothing
        try:
            res = jobs.get_result(key)
            if res is None:
                return nothing
            drawn = views.draw(res, *choices)
        except Exception:  # noqa: BLE001 - the page's own callbacks draw from the ready store instead
            logging.getLogger("perfcast").exception("drawing the views of %s in its job failed", key)
            return nothing
        return [got, {"key": key}, *(drawn[k] for k in views.outputs)]

    def run(self, set_progress, pending):
        """Where the job runs: the request checked again, its quota held, and ``kind.run`` (the kind's
        ``compute``) run by :func:`dashboard.jobs.run_job`."""
        refused = job_key_refusal()  # this worker's key is not the web servers' (checked before the project:
        if refused:                  # with another key the session cannot be read and the project is lost)
            return {"error": refused}
        if projects.current_project() is None:  # a pending store posted by an account in no project
            return {"error": f"Refused: {projects.refusal('viewer')}"}
        try:  # the inputs and the key are taken from the browser's store only after checking them again
            request = self.kind.from_store(pending)
        except (InvalidParameter, LookupError) as exc:
            return {"error": f"Refused: {message(exc)}"}
        run = job_run(pending)
        with quotas.held(run, self.kind.name, request["key"]) as ticket:  # its person's and project's quota
            if ticket.refusal:  # a job store posted without Run (or replayed) beyond the quota
                return {"error": ticket.refusal}
            audit_log.record("job run", key=request["key"], kind=self.kind.name)
            jobs.job_started(run)
            show = _Progress(set_progress)
            waiting = quotas.Waiting(ticket.run, quotas.current_user())  # which jobs hold the slots
            show("0", "starting")
            try:
                return jobs.run_job(request["key"], lambda report: self.kind.run(request["params"], report),
                                    progress=lambda frac, label: show(f"{frac:.3f}", waiting(label)), run=run)
            finally:
                jobs.job_ended(run)  # waits for the job service, so that the answer reaches the page

    # ------------------------------------------------------------------ its answer, its watch, its cancel

    def _register_ready(self) -> None:
        callback(Output(self.id("ready"), "data"), Output(self.id("job-status"), "children"),
                 Output(self.id("watchdog"), "disabled", allow_duplicate=True),
                 Output(self.id("service"), "children", allow_duplicate=True),
                 Input(self.id("result"), "data"), Input(self.id("job-result"), "data"),
                 prevent_initial_call=True)(self.ready)

    def ready(self, cached, from_job):
        """The ready store (the page's views draw from it) from a cached result or the job's answer."""
        from dash import ctx

        got = cached if ctx.triggered_id == self.id("result") else from_job
        jobs.reap_finished()
        if not got or not isinstance(got, dict):
            return no_update, no_update, no_update, no_update
        if got.get("error"):
            return None, alert(str(got["error"])[:500]), True, None
        key = jobs.key_of(got)
        try:
            there = key is not None and jobs.has_result(key)
        except Exception as exc:  # unreachable: the watchdog delivers the result when the service returns
            return no_update, no_update, False, _unreachable(exc)
        if not there:
            return None, alert("The result is no longer in the cache: run again."), True, None
        return {"key": key}, None, True, None

    def _register_watchdog(self) -> None:
        callback(Output(self.id("failed"), "data"),
                 Output(self.id("watchdog"), "disabled", allow_duplicate=True),
                 Output(self.id("result"), "data", allow_duplicate=True),
                 Output(self.id("service"), "children", allow_duplicate=True),
                 Input(self.id("watchdog"), "n_intervals"), State(self.id("pending"), "data"),
                 State(self.id("service"), "children"), prevent_initial_call=True)(self.watchdog)

    def watchdog(self, _n, pending, service):
        """A job that dies answers nothing to the browser: its status record and the liveness of its process are
        the only way to tell. Each tick also tells the job that a page still waits for it."""
        key = jobs.key_of(pending)
        if key is None:
            return no_update, no_update, no_update, no_update
        clear = None if service else no_update
        try:
            jobs.beat(key)
            jobs.reap_finished()
            if jobs.has_result(key):  # the result is there even if the job's answer never reached the page
                return no_update, no_update, {"key": key}, clear
            if jobs.job_failed(key, run_of(pending)):
                return {"key": key, "attempt": count(pending.get("attempt"))}, True, no_update, clear
        except Exception as exc:  # the job service is unreachable: say so and keep watching
            return no_update, no_update, no_update, _unreachable(exc)
        return no_update, no_update, no_update, clear

    def _register_cancelled(self) -> None:
        callback(Output(self.id("service"), "children", allow_duplicate=True), Input(self.id("cancel"), "n_clicks"),
                 State(self.id("pending"), "data"), prevent_initial_call=True)(self.cancelled)

    def cancelled(self, _n, pending):
        """A job still queued (a Celery task that is revoked never runs) gives its ticket back at once; a
        started job gives it back when it stops."""
        try:
            quotas.cancel(run_of(pending))
        except Exception as exc:
            return _unreachable(exc)
        return no_update

    def _register_status(self) -> None:
        """The status line for "cancelled" or "failed", decided in the browser (see the module docstring)."""
        clientside_callback(
            STATUS_JS,
            Output(self.id("job-status"), "children", allow_duplicate=True),
            Output(self.id("watchdog"), "disabled", allow_duplicate=True),
            Input(self.id("cancel"), "n_clicks"), Input(self.id("failed"), "data"),
            State(self.id("pending"), "data"), prevent_initial_call=True)


#: the browser's status line: "cancelled" when Cancel was clicked since the request, "failed" when the watchdog
#: found this request's run dead
STATUS_JS = f"""function(nCancel, failed, pending) {{
            const nu = window.dash_clientside.no_update;
            if (!pending) return [nu, nu];
            const note = (text, kind) => ({{namespace: 'dash_html_components', type: 'Div',
                props: {{children: text, className: 'alert alert-' + kind, role: 'alert'}}}});
            if ((nCancel || 0) > (pending.cancels || 0))
                return [note({json.dumps(CANCELLED)}, 'info'), true];
            if (failed && failed.key === pending.key && (failed.attempt ?? null) === (pending.attempt ?? null))
                return [note({json.dumps(FAILED)}, 'error'), true];
            return [nu, nu];
        }}"""
