"""What /compare shows of a comparison result (two saved scenarios): the summary, the grids' rows and columns,
the per-workload view for a chosen model on each side."""

from __future__ import annotations

from dash import html

from dashboard import jobs
from dashboard.crossgen.figures import ape_pair
from dashboard.crossgen.results import CompareRun, SavedScenario
from dashboard.state import datasets, scenarios
from dashboard.ui.components import num_col, pct_col
from dashboard.ui.figures import empty
from dashboard.ui.format import si_col
from dashboard.ui.summary_card import summary_card
from modeling.crossgen.compare import compare_workloads
from modeling.crossgen.ensemble import ALL_MODELS, BASELINE

STAR = "★"
_DELTA_STYLE = {"styleConditions": [
    {"condition": "params.data && params.data.changed === 'B better'",
     "style": {"backgroundColor": "#e6f4ea", "color": "#1e6b30", "fontWeight": "600"}},
    {"condition": "params.data && params.data.changed === 'A better'",
     "style": {"backgroundColor": "#fbeaea", "color": "#a61e1e", "fontWeight": "600"}}]}

INPUT_COLUMNS = [
    {"field": "input", "minWidth": 110, "maxWidth": 140},
    {"field": "a", "headerName": "A", "minWidth": 200, "flex": 1, "tooltipField": "a"},
    {"field": "b", "headerName": "B", "minWidth": 200, "flex": 1, "tooltipField": "b"},
    {"field": "differs", "headerName": "differs", "minWidth": 90, "maxWidth": 110,
     "cellStyle": {"styleConditions": [{"condition": "params.value === 'yes'",
                                        "style": {"backgroundColor": "#fff3bf", "fontWeight": "600"}}]}},
]
MODEL_COLUMNS = [
    {"field": "model", "minWidth": 220, "flex": 2, "tooltipField": "model"},
    {"field": "marks", "headerName": "★", "minWidth": 70, "maxWidth": 90, "sortable": False},
    pct_col("e_out_a", "E_out % in A", 104), pct_col("e_out_b", "E_out % in B", 104),
    {**pct_col("delta", "B − A (points)", 112), "cellStyle": _DELTA_STYLE},
    {**num_col("rank_a", "rank in A", 0), "minWidth": 90}, {**num_col("rank_b", "rank in B", 0), "minWidth": 90},
    num_col("ir10_a", "IR@10 % in A", 1), num_col("ir10_b", "IR@10 % in B", 1),
    {"field": "changed", "headerName": "moved", "minWidth": 100, "cellStyle": _DELTA_STYLE},
]


def _workload_columns(unit_a: str, unit_b: str) -> list[dict]:
    return [
        {"field": "workload", "minWidth": 290, "flex": 2, "tooltipField": "workload", "pinned": "left"},
        {**si_col("observed_a", "measured in A", unit_a), "minWidth": 110},
        {**si_col("predicted_a", "predicted in A", unit_a), "minWidth": 110},
        num_col("ape_a", "APE % in A"),
        {**si_col("observed_b", "measured in B", unit_b), "minWidth": 110},
        {**si_col("predicted_b", "predicted in B", unit_b), "minWidth": 110},
        num_col("ape_b", "APE % in B"),
        {**num_col("gap", "apart (points)"), "minWidth": 110},
    ]


WORKLOAD_COLUMNS = _workload_columns("s", "s")


def saved_options() -> list[dict]:
    """The project's saved scenarios for the two dropdowns, newest first, each with its ★ entry."""
    return [{"label": f"{s['name']} ({starred(s['summary'])})", "value": s["id"]}
            for s in scenarios.list_scenarios("scenario")]


def starred(summary) -> str:
    """The ★ entry a saved scenario recorded (:attr:`SavedScenario.starred`); a record saved before summaries
    were typed is read the same way (:meth:`SavedScenario.read`)."""
    return SavedScenario.read(summary).starred


def model_choices() -> list[str]:
    return [*ALL_MODELS, BASELINE]


def model_options() -> list[dict]:
    """The per-workload model dropdowns: each run's ★ first, then every model and the baseline."""
    return [{"label": f"{STAR} this run's lowest E_out", "value": STAR}, *model_choices()]


def summary(run: CompareRun | None):
    """(summary card, input rows, model rows) of a comparison result; (None, [], []) without one. The card and the
    grids draw the run's summary (:meth:`CompareRun.summary`), as the report does."""
    if not run:
        return None, [], []
    s = run.summary()
    return summary_card(s, "compare"), s.table("inputs").records(), s.table("models").records()


def _model(choice, star: str) -> str:
    return star if choice in (None, STAR) or choice not in model_choices() else choice


def workload_view(run: CompareRun | None, model_a, model_b):
    """(figure, the workloads most apart as grid rows, the verdict sentence) for the chosen model on each side
    (each run's ★ by default)."""
    if not run:
        return empty("Compare two scenarios to see their per-workload errors"), [], None
    c = run.comparison
    ma, mb = _model(model_a, c.star_a[0]), _model(model_b, c.star_b[0])
    if (ma, mb) == (c.star_a[0], c.star_b[0]):
        w = c.workloads
    else:
        a, b = jobs.get_result(run.a.key), jobs.get_result(run.b.key)
        if a is None or b is None:
            return empty("A scenario result expired from the cache: compare again"), [], None
        try:
            w = compare_workloads(a.ensemble, b.ensemble, ma, mb)
        except KeyError as exc:
            return empty(f"{exc.args[0]} was not run in one of the two scenarios"), [], None
    fig = ape_pair(w.rows, ma, mb, f"APE per workload: {ma} in A against {mb} in B")
    verdict = [html.Strong("Per workload. "),
               f"Of the {w.n_shared} workloads both runs scored, B ({mb}) is closer on {w.b_better}, A ({ma}) on "
               f"{w.a_better}."]
    if w.only_a or w.only_b:
        verdict.append(f" Scored in one run only: {w.only_a} in A, {w.only_b} in B (not compared).")
    return fig, [r.row for r in w.most_apart(12)], verdict


def workload_columns(run: CompareRun | None) -> list[dict]:
    if not run:
        return WORKLOAD_COLUMNS
    return _workload_columns(datasets.unit_of(run.a.params), datasets.unit_of(run.b.params))
