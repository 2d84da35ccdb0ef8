"""/new-app's result sections as Dash components: the summary cards (the results' summaries,
:mod:`modeling.newapp.summary`, drawn by :mod:`dashboard.ui.summary_card`) and what each render callback returns,
assembled from views (the grids) and figures (the charts); the page keeps the layout and the callbacks."""

from __future__ import annotations

from dash import html

from dashboard.newapp import views
from dashboard.newapp.figures import estimates, hypothetical, per_application
from dashboard.newapp.views import P
from dashboard.ui.components import alert
from dashboard.ui.figures import empty
from dashboard.ui.summary_card import summary_card
from dashboard.state import datasets
from dashboard.newapp.results import HeldOutRun, UnbuiltGpuRun
from modeling.newapp.results import ApplicationEstimate


def shown_block(on: bool) -> dict:
    return {} if on else {"display": "none"}


def _summary(run: HeldOutRun, app: ApplicationEstimate):
    return summary_card(run.summary(app), P)


def measured_content(run, cal, cal_time) -> tuple:
    """Summary, calibration status, estimates (grid columns and rows, chart), per-workload grid (columns,
    rows) and every application held out (chart, columns, rows) of a :class:`HeldOutRun` (anything else: the
    empty view)."""
    if not isinstance(run, HeldOutRun):
        return (None, None, views.method_columns(), [], empty("Press Estimate to see the estimates"), [], [],
                empty("Press Estimate to see every application held out"), [], [])
    app, said, refused = views.shown_application(run, cal, cal_time)
    status = alert(refused) if refused else (alert(said, "info") if said else None)
    allres = run.every
    unit = datasets.unit_of(run.params)
    figure = estimates(app, run.params["metric"], unit)
    return (_summary(run, app), status, views.method_columns(app), views.method_rows(app), figure,
            views.workload_columns(app, unit), app.rows, per_application(allres),
            views.held_out_columns(allres), views.held_out_rows(allres))


def _table(columns, rows: list[dict], id_: str):
    """A small plain table (text cells) of ``rows`` under ``columns`` ((field, header) pairs)."""
    return html.Table([html.Thead(html.Tr([html.Th(h) for _, h in columns])),
                       html.Tbody([html.Tr([html.Td(r[f]) for f, _ in columns]) for r in rows])],
                      id=id_, className="table")


def _splits_block(run: UnbuiltGpuRun):
    """Which split the question resembles, that split's figures per held-out GPU, and all four splits."""
    split, text = views.resembled_split(run)
    if split is None:
        return None
    return html.Div([
        html.H3("How it held with measured GPUs held out"),
        html.P(text, id=f"{P}-hypo-split-text"),
        _table(views.SPLIT_COLUMNS, views.split_rows(split), f"{P}-hypo-split"),
        html.P("Mean APE % per kernel and held-out GPU (the estimate is the same in every split):",
               className="hint"),
        _table(*views.kernel_table(split), f"{P}-hypo-kernels"),
        html.P("All four splits (coverage: the share of a held-out GPU's workloads inside its interval; the lowest "
               "over the held-out GPUs, not pooled):", className="hint"),
        _table(views.SPLIT_SUMMARY_COLUMNS, views.split_summary_rows(run.splits), f"{P}-hypo-splits")])


def _hypo_summary(run: UnbuiltGpuRun):
    head = html.H2(["Spec roofline on ", html.Span(run.device_name, id=f"{P}-hypo-device"), " (from its specs only)"])
    shown = summary_card(run.summary(datasets.unit_of(run.params)), f"{P}-hypo", head=head)
    block = _splits_block(run)
    if block is not None:  # the held-out splits, below the summary's provenance line
        shown.children.append(block)
    return shown


def hypo_content(run) -> tuple:
    """Summary, record (columns, rows), figure, per-workload rows and columns of a never-measured GPU (an
    :class:`UnbuiltGpuRun`; anything else: the empty view), and which view shows (the measured one's style, then
    the never-measured one's)."""
    if not isinstance(run, UnbuiltGpuRun):
        return (None, views.track_columns(), [], empty("Press Estimate to see the estimates"), [],
                views.hypo_columns("s"), shown_block(True), shown_block(False))
    h = run.estimate
    track = views.track_rows(h.track)
    unit = datasets.unit_of(run.params)
    return (_hypo_summary(run), views.track_columns(track), track, hypothetical(h, unit), h.rows,
            views.hypo_columns(unit, h.rows), shown_block(False), shown_block(True))
