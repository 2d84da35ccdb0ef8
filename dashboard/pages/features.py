"""Feature ranking: which host counters drive the prediction (HALWPE Tables XIII-XV, RastSim Table 4)."""

import dash
from dash import Input, Output, callback, dcc, html

from dashboard.state import datasets
from dashboard import jobs
from dashboard.crossgen.kinds import RANKING
from dashboard.crossgen.results import RankingRun
from dashboard.ui.format import JS_NULL, pvalue_col
from dashboard.ui.components import alert, card, grid, num_col, register_csv
from dashboard.crossgen.figures import CATEGORY_COLORS, category_row_style, ranking_bars
from dashboard.ui.figures import empty
from dashboard.ui.summary_card import summary_card
from dashboard.ui.fields import dropdown, field
from dashboard.crossgen.params import target_choices, register_dataset_dependents
from dashboard.jobs.panel import job_panel, register_job
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import parse_or_default
from modeling.crossgen.ensemble import ALL_MODELS

dash.register_page(__name__, path="/features", name="Features", title="perfcast · feature ranking", order=2,
                   description=('Which counters carry the prediction? p-values, coefficients and forest '
                                'importances, coloured by counter category.'))

P = "features"
SIG4 = JS_NULL + "d3.format('.4~g')(params.value)"
NAMES = RANKING.names
PARAMS = list(RANKING.params)
FORM_IDS = [f"{P}-{n}" for n in NAMES]


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    ds = datasets.get(v["dataset"])
    request = RANKING.request(v) if query and not error else None
    # a shared link whose result is cached is drawn in this response (no second round trip)
    summary, rows, bars = render_view(jobs.result_for(request))
    legend = html.Div([html.Span(cat, className="legend-chip", style={"backgroundColor": col})
                       for cat, col in CATEGORY_COLORS.items() if cat != "feature"], className="legend-chips")
    return html.Div([
        html.H1("Feature ranking: which host counters carry the prediction"),
        html.P("Stepwise OLS models rank their selected counters by the p-value of a t-test (HALWPE Tables "
               "XIII–XV); NNLS, Lasso and Elastic Net by the size of the standardized coefficient; the Random "
               "Forest by its share of the RSS decrease (RastSim Table 4) and by held-out permutation importance.",
               className="lead"),
        alert(error) if error else None,
        card(html.Div([
            field("Dataset", dropdown(f"{P}-dataset", datasets.options(), v["dataset"])),
            field("Host", dropdown(f"{P}-host", ds.hosts, v["host"])),
            field("Target", dropdown(f"{P}-target", target_choices(v), v["target"])),
            field("Metric", dropdown(f"{P}-metric", ds.metrics, v["metric"])),
            field("Model", dropdown(f"{P}-model", ALL_MODELS, v["model"])),
            field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"],
                                    className="num-input")),
        ], className="form-grid"), job_panel(P, request, "Rank features"), share_box(P)),
        html.Div(summary, id=f"{P}-summary"),
        card(html.H2("Ranked features"), legend,
             html.P(["The p-value column is the papers': the t-test of the model fitted on all workloads. It is ",
                     html.Strong("optimistic"), " for stepwise models, because the same workloads chose the "
                     "features it tests. Two honest columns stand beside it: ", html.Strong("in CV folds %"),
                     ", how often the model selects the feature when fitted on each cross-validation fold's "
                     "training workloads (folds share most workloads, so read it as an upper bound on "
                     "stability); and ", html.Strong("split p-value"), ", the t-test on a random half of the "
                     "workloads for the features the model selected on the other half ('–': not selected "
                     "there)."], className="hint"),
             grid(f"{P}-grid", [
                 num_col("rank", "rank", 0, 80),
                 {"field": "feature", "minWidth": 300, "flex": 2, "tooltipField": "feature"},
                 {"field": "category", "minWidth": 140},
                 {"field": "score", "type": "numericColumn", "valueFormatter": {"function": SIG4}, "minWidth": 104},
                 {**pvalue_col("pvalue", "p-value"), "minWidth": 96},
                 {"field": "coef", "headerName": "coefficient", "type": "numericColumn", "minWidth": 112,
                  "valueFormatter": {"function": "params.value == null ? '–' : d3.format('.4~g')(params.value)"}},
                 num_col("std_coef", "std. coef", 4),
                 {**num_col("permutation", "permutation (pp)", 3), "minWidth": 124},
                 {"field": "significant", "headerName": "p < 0.05", "minWidth": 90},
                 num_col("selected_pct", "in CV folds %", 0),
                 pvalue_col("split_pvalue", "split p-value")],
                 rows=rows, height=480, file_name="feature_ranking.csv", row_style=category_row_style())),
        card(dcc.Graph(id=f"{P}-bars", figure=bars)),
    ])


register_dataset_dependents(P)
register_url_sync(P, NAMES, FORM_IDS)
register_job(P, RANKING, FORM_IDS)
register_csv(f"{P}-grid")


def render_view(run: RankingRun | None):
    """Summary card, ranked rows and top-15 bars of a ranking result."""
    if not run:
        return None, [], empty("Rank features to see the top counters")
    rank = run.ranking
    summary = summary_card(run.summary(), P)
    return summary, rank.features, ranking_bars(rank)


# a cached result is drawn by the layout itself; this redraws when a job finishes
@callback(Output(f"{P}-summary", "children"), Output(f"{P}-grid", "rowData"), Output(f"{P}-bars", "figure"),
          Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render(ready):
    return render_view(jobs.result_for(ready))
