"""Scenario: leaderboard, per-workload CPF/APE, inlier curves, tree sweep, step tables.

HALWPE Tables IV-XII and Figs. 6, 7, 9-11; RastSim Table 2 and Figs. 11-15.
"""

from urllib.parse import urlencode

import dash
from dash import Input, Output, State, callback, dcc, html, no_update
from dash.exceptions import PreventUpdate

from dashboard.state import datasets, scenarios
from dashboard import jobs
from dashboard.crossgen.kinds import SCENARIO, SWEEP
from dashboard.crossgen.leaderboard import leaderboard_rows
from dashboard.crossgen.results import SavedScenario, ScenarioRun
from dashboard.ui.components import alert, card, grid, num_col, pct_col, register_csv
from dashboard.ui import prediction_panel as panel
from dashboard.ui.delete_confirm import delete_button
from dashboard.ui.figures import empty
from dashboard.ui.format import unit_text
from dashboard.crossgen.figures import inlier_curves, per_workload, tree_sweep
from dashboard.ui.fields import field
from dashboard.crossgen.params import (model_param, register_dataset_dependents, register_folds_hint,
                                       register_transform_note, scenario_controls, scenario_params, transform_note)
from dashboard.jobs.memo import derived
from dashboard.jobs.panel import Views, drawn_by_run, job_panel, register_job
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.summary_card import summary_card
from dashboard.ui.url_state import Param, parse_or_default, to_query
from modeling.crossgen.ensemble import ALL_MODELS

dash.register_page(__name__, path="/scenario", name="Scenario", title="perfcast · scenario", order=1,
                   description=("How accurately can the target GPU's run time be predicted from host counters, and "
                                'by which model? Leaderboard, per-workload predictions, inlier ratios, tree sweep.'))

P = "scenario"
JOB_NAMES = SCENARIO.names
VIEW = [model_param("model", "RandomForest"), Param("steps", "choice", "OLS/Forward/BIC",
                                                    [m for m in ALL_MODELS if "/" in m and m.count("/") == 2])]
PARAMS = scenario_params() + VIEW
FORM_IDS = [f"{P}-{n}" for n in JOB_NAMES]
IR_MODELS = ["RandomForest", "OLS/Forward/BIC", "NNLS/Backward/BIC"]
#: the responsive charts' boxes have their figures' heights: Run's answer may draw them while the results are
#: still hidden (display: none), and a box sized by its content would collapse under the chart
GRAPH_HEIGHT = {"workload": {"height": "440px"}, "ir": {"height": "400px"}}


def _shown(flag) -> dict | None:
    return None if flag else {"display": "none"}


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    request = SCENARIO.request({n: v[n] for n in JOB_NAMES}) if query and not error else None
    # a shared link whose result is cached is drawn in this response (no second round trip)
    res = jobs.result_for(request)
    summary, rows, names, _ = summary_view(res) if res else (None, [], ALL_MODELS, ALL_MODELS)
    return html.Div([
        html.H1("Scenario: predict a target GPU from host counters"),
        html.P("Train the HALWPE / RastSim ensemble on counters measured on the host, predict the target's run "
               "time, and judge every model out of fold. Results are cached: a shared link opens instantly.",
               className="lead"),
        alert(error) if error else None,
        card(html.Div(scenario_controls(P, v), className="form-grid"),
             html.Div(transform_note(v, v["transform"]), id=f"{P}-transform-note"),
             job_panel(P, request, "Run scenario"), share_box(P)),
        html.Div(summary, id=f"{P}-summary"),
        html.Div(card(html.H2("Run the scenario to see"), html.Ul([
            html.Li("the leaderboard: every model's out-of-fold error (E_out), in-sample error, inlier ratios and "
                    "features, beside the baseline (host time × median ratio), with a note where a number looks odd"),
            html.Li("observed against predicted run time for every workload, with its percentage error"),
            html.Li("inlier-ratio curves: the share of workloads within each error threshold"),
            html.Li("the steps of every stepwise selection"),
        ]), html.P("Choose the host, the target and the cross-validation above, then press Run scenario "
                   "(about 5-30 s on this machine; a result computed before opens at once).", className="hint")),
            id=f"{P}-before", style=_shown(not res)),
        html.Div([card(html.H2("Leaderboard"),
             html.P("E_out: mean APE of out-of-fold predictions (RastSim eq. 3). IR@T: share of workloads "
                    "with APE ≤ T %. ★ lowest E_out (the baseline when no model beats it), ◆ best non-negative "
                    "(NNLS family) model. fit s: training time summed over every fold (folds run in parallel, so "
                    "it can exceed the run's wall time). The note says why a number that looks broken is what it is.",
                    className="hint"),
             grid(f"{P}-leaderboard", [
                 {"field": "mark", "headerName": "", "width": 50, "maxWidth": 60, "sortable": False},
                 {"field": "model", "headerName": "model", "minWidth": 230, "tooltipField": "model"},
                 pct_col("e_out", "E_out %"), pct_col("e_out_fold_mean", "fold mean %"), pct_col("e_in", "E_in %"),
                 {**num_col("ir10", "IR@10 %", 1), "minWidth": 92}, {**num_col("ir20", "IR@20 %", 1), "minWidth": 92},
                 {"field": "features", "headerName": "features", "minWidth": 92},
                 {**num_col("fit_seconds", "fit s (all folds)", 2), "minWidth": 96},
                 {"field": "note", "headerName": "note", "minWidth": 200, "flex": 2, "wrapText": True,
                  "autoHeight": True, "tooltipField": "note",
                  "cellStyle": {"lineHeight": "1.35", "padding": "4px 8px"}}],
                 rows=rows, height=520, file_name="leaderboard.csv"),
             html.P(dcc.Link(*reversed(predict_link(res, v["model"])), id=f"{P}-predict-link"),
                    className="hint"),
             panel.downloads(P, "one HTML file for a design review: the leaderboard, the charts, the inputs and "
                                "the provenance; it opens offline", table=False)),
        card(html.H2("Per-workload prediction"),
             field("Model", dcc.Dropdown(id=f"{P}-model", options=names, value=v["model"], clearable=False)),
             dcc.Graph(id=f"{P}-workload-graph", figure=workload_view(res, v["model"]), responsive=True,
                       style=GRAPH_HEIGHT["workload"])),
        card(html.H2("Inlier ratios"),
             field("Models", dcc.Dropdown(id=f"{P}-ir-models", options=names, multi=True, value=IR_MODELS)),
             dcc.Graph(id=f"{P}-ir-graph", figure=inlier_view(res, IR_MODELS), responsive=True,
                       style=GRAPH_HEIGHT["ir"])),
        card(html.H2("Stepwise selection steps"),
             field("Stepwise model", dcc.Dropdown(id=f"{P}-steps", options=VIEW[1].options, value=v["steps"],
                                                  clearable=False)),
             grid(f"{P}-steps-grid", [{"field": "step", "width": 70}, {"field": "action"},
                                      {"field": "feature", "minWidth": 300, "flex": 2, "tooltipField": "feature"},
                                      num_col("criterion", "AIC/BIC", 2), num_col("rss", "RSS", 6),
                                      {"field": "n_features", "headerName": "features"}],
                  rows=steps_view(res, v["steps"]), height=300, file_name="steps.csv"))],
            id=f"{P}-results", style=_shown(res)),
        card(html.H2("Random Forest tree sweep (RastSim 4.4)"),
             html.P("E_out and inlier ratios of forests of 2, 4, …, 1024 trees on the same folds.", className="hint"),
             job_panel(f"{P}-sweep", None, "Run tree sweep"),
             dcc.Graph(id=f"{P}-sweep-graph", figure=empty("Run the tree sweep to see E_out per tree count"))),
        card(html.H2("Saved scenarios"),
             *panel.save_controls(P, "Save this scenario"), *panel.saved_list(P, saved_items()),
             html.P(["Each entry shows its ★, the lowest E_out of its run (the baseline's when no model beat it). ",
                     dcc.Link("Compare two saved scenarios →", href="/compare", id=f"{P}-compare-link")],
                    className="hint")),
    ])


register_folds_hint(P)
register_dataset_dependents(P)
register_transform_note(P)
register_url_sync(P, JOB_NAMES + ["model", "steps"], FORM_IDS + [f"{P}-model", f"{P}-steps"])
# on a cached result Run's answer draws every view (one round trip); the callbacks below draw after a job
VIEWS = Views(
    {"summary": (f"{P}-summary", "children"), "leaderboard": (f"{P}-leaderboard", "rowData"),
     "models": (f"{P}-model", "options"), "ir_models": (f"{P}-ir-models", "options"),
     "results": (f"{P}-results", "style"), "before": (f"{P}-before", "style"),
     "workload": (f"{P}-workload-graph", "figure"), "ir": (f"{P}-ir-graph", "figure"),
     "steps": (f"{P}-steps-grid", "rowData"), "href": (f"{P}-predict-link", "href"),
     "link": (f"{P}-predict-link", "children")},
    [(f"{P}-model", "value"), (f"{P}-ir-models", "value"), (f"{P}-steps", "value")],
    lambda res, model, ir_models, steps: draw_all(res, model, ir_models, steps))
register_job(P, SCENARIO, FORM_IDS, VIEWS)
register_job(f"{P}-sweep", SWEEP, [f"{P}-{n}" for n in SWEEP.names])
register_csv(f"{P}-leaderboard")
register_csv(f"{P}-steps-grid")


def summary_view(run: ScenarioRun):
    """Summary card, leaderboard rows and the model names of a scenario result (drawn once per result)."""
    return derived(run, _summary_view)


def _summary_view(run: ScenarioRun):
    """The leaderboard's summary as the card (what ``python -m modeling ensemble`` prints: the ★, the baseline
    counted, and its E_out, the best non-negative model, the baseline's E_out, the workloads and features, what the
    numbers mean, a note when the baseline wins, the provenance), then the page's own sentences with their links:
    which question the E_out answers, what was left out."""
    ens = run.ensemble
    summary = summary_card(ens.summary(run.missing_rows, run.provenance), P)
    summary.children = [*summary.children, situation(run), html.P(scenario_text(run), className="hint")]
    return summary, leaderboard_rows(ens), ens.names, ens.names


def situation(run: ScenarioRun) -> html.P:
    """Which question this E_out answers, with the way to the other one."""
    s = run.scenario
    link = dcc.Link("Predict an application not in training",
                    href=f"/new-app?dataset={s.get('dataset', 'rodinia')}&host={s.get('host')}&target={s.get('target')}"
                    if s.get("dataset", "rodinia") == "rodinia" else "/new-app", id=f"{P}-newapp-link")
    if s.get("cv") == "kfold":
        text = ("What this E_out describes: random folds keep other input sizes of the same kernels in training, "
                "so it is the error for a kernel already profiled, at a new input size. For an application never "
                "run on the target it is far too optimistic: see ")
    else:
        text = ("What this E_out describes: whole applications are held out, so it is the error for an "
                "application never run on the target. Estimates with ranges, one-run calibration and warnings "
                "for that situation: ")
    return html.P([html.Strong("Situation. "), text, link, "."], className="situation", id=f"{P}-situation")


def predict_href(run: ScenarioRun) -> str:
    """The /predict link of a scenario result's dataset, host, target and metric (its own parameters)."""
    p = run.params or {}
    s = run.scenario
    return "/predict?" + urlencode({k: p.get(k, s.get(k)) for k in ("dataset", "host", "target", "metric")
                                    if p.get(k, s.get(k)) is not None})


def scenario_text(run: ScenarioRun) -> list:
    """What the result is, every workload left out with the reason, and the workloads that have host
    counters but no target value (not scored here; a link to predict them). Text and one ``dcc.Link``."""
    ens, s = run.ensemble, run.scenario
    metric = s.get("metric") if s.get("metric") != "value" else f"the {s.get('target')} column"
    unit = datasets.unit_of(run.params or {})
    metric += f" ({unit_text(unit)})" if unit != metric else ""
    parts = [f"{run.dataset_name}: {run.host} → {s.get('target')}, {metric}; {s['cv']} CV with {s['folds']} "
             f"folds, transform {s['transform']}, seed {s['seed']}."]
    left_out = [f"target ≤ 0 or ~0: {ens.excluded_rows}"]
    if run.missing_rows:
        ids = ", ".join(run.missing_ids)
        left_out.append(f"{run.missing_reason}: {run.missing_rows}"
                        + (f" ({ids}{' …' if run.missing_rows > len(run.missing_ids) else ''})" if ids else ""))
    up = run.upload_missing
    if up:
        left_out.append({"rows": f"dropped at upload for a missing feature value: {up['rows']}",
                         "columns": f"feature columns dropped at upload for missing values: {len(up['columns'])}",
                         "median": f"columns whose missing values were filled with the median at upload: "
                                   f"{len(up['columns'])}"}[up["rule"]])
    left_out.append(f"constant features dropped: {len(ens.dropped_constant)}")
    text = [" ".join(parts) + " Left out: " + "; ".join(left_out) + "."]
    if run.unmeasured_count:
        n = run.unmeasured_count
        ids = ", ".join(run.unmeasured_ids) + (" …" if n > len(run.unmeasured_ids) else "")
        text += [f" {n} workload{'s have' if n != 1 else ' has'} host counters but no {s.get('target')} value "
                 f"({ids}): {'they are' if n != 1 else 'it is'} not scored here; predict "
                 f"{'them' if n != 1 else 'it'} on ",
                 dcc.Link("/predict", href=predict_href(run), id=f"{P}-unmeasured-link"), "."]
    hf = host_feature(run)
    if hf:
        text.append(f" {hf}, the host's own measure of the target metric (the baseline and the ratio transforms "
                    f"use it), is also one of the {ens.n_features} features: the models see the host's "
                    "measurement as an input, which is legitimate, but their accuracy rests partly on it.")
    text.append(f" Computed in {ens.seconds:.1f} s.")
    return text


def host_feature(run: ScenarioRun) -> str | None:
    """The feature of a result that is the host's own measure of the metric (None when there is none, or it
    was dropped as constant)."""
    p = run.params or {}
    try:
        name = datasets.get(p["dataset"]).host_feature(p["host"], p["metric"])
    except (LookupError, TypeError):
        return None
    return name if name and name in (run.ensemble.feature_names or []) else None


def predict_link(run: ScenarioRun | None, model) -> tuple[str, str]:
    """(href, text) of /predict with this scenario and the model chosen below (the recommended one for the
    baseline): the workloads the target never ran, predicted with intervals."""
    if not run:
        return "/predict", "Predict the workloads the target never ran →"
    p = run.params
    m = model if model in ALL_MODELS else "recommended"
    q = to_query({k: p[k] for k in ("dataset", "host", "target", "metric")} | {"model": m, "transform": p["transform"],
                                                                               "seed": p["seed"]})
    return f"/predict{q}", f"Predict with {m} ({p['transform']}): the workloads the target never ran →"


@callback(Output(f"{P}-predict-link", "href"), Output(f"{P}-predict-link", "children"),
          Input(f"{P}-ready", "data"), Input(f"{P}-model", "value"),
          State(f"{P}-drawn", "data"), prevent_initial_call=True)
def _predict_link(ready, model, drawn):
    if drawn_by_run(P, ready, drawn):
        raise PreventUpdate
    return predict_link(jobs.result_for(ready), model)


def workload_view(run: ScenarioRun | None, model: str):
    if not run:
        return empty("Run the scenario to see predictions")
    return derived(run, _workload_figure, model)


def _workload_figure(run: ScenarioRun, model: str):
    return per_workload(run.ensemble, model, datasets.unit_of(run.params))


def inlier_view(run: ScenarioRun | None, models: list | None):
    if not run:
        return empty("Run the scenario to see inlier ratios")
    return derived(run, _inlier_figure, models if isinstance(models, list) else [])


def _inlier_figure(run: ScenarioRun, models: list):
    return inlier_curves(run.ensemble, models)


def steps_view(run: ScenarioRun | None, model: str) -> list:
    return derived(run, _steps_rows, model) if run else []


def _steps_rows(run: ScenarioRun, model: str) -> list:
    return [{"step": s["step"], "action": s["action"], "feature": s["feature"] or "(start)",
             "criterion": s["criterion"], "rss": s["rss"], "n_features": s["n_features"]}
            for s in run.ensemble.steps_of(model)]


def draw_all(res: ScenarioRun, model, ir_models, steps) -> dict:
    """Every view of a result, by :data:`VIEWS`' names (Run's answer on a cached result)."""
    summary, rows, names, ir_names = summary_view(res)
    href, link = predict_link(res, model)
    return {"summary": summary, "leaderboard": rows, "models": names, "ir_models": ir_names,
            "results": _shown(True), "before": _shown(False), "workload": workload_view(res, model),
            "ir": inlier_view(res, ir_models), "steps": steps_view(res, steps), "href": href, "link": link}


# A cached result is drawn by the layout itself; these callbacks redraw when a job
# finishes (the ready store changes) or a view's own input changes.
@callback(Output(f"{P}-summary", "children"), Output(f"{P}-leaderboard", "rowData"),
          Output(f"{P}-model", "options"), Output(f"{P}-ir-models", "options"),
          Output(f"{P}-results", "style"), Output(f"{P}-before", "style"),
          Input(f"{P}-ready", "data"), State(f"{P}-drawn", "data"), prevent_initial_call=True)
def _render(ready, drawn):
    if drawn_by_run(P, ready, drawn):
        raise PreventUpdate
    res = jobs.result_for(ready)
    if not res:
        return None, [], no_update, no_update, _shown(False), _shown(True)
    return (*summary_view(res), _shown(True), _shown(False))


@callback(Output(f"{P}-workload-graph", "figure"), Input(f"{P}-ready", "data"), Input(f"{P}-model", "value"),
          State(f"{P}-drawn", "data"), prevent_initial_call=True)
def _workload_graph(ready, model, drawn):
    if drawn_by_run(P, ready, drawn):
        raise PreventUpdate
    return workload_view(jobs.result_for(ready), model)


@callback(Output(f"{P}-ir-graph", "figure"), Input(f"{P}-ready", "data"), Input(f"{P}-ir-models", "value"),
          State(f"{P}-drawn", "data"), prevent_initial_call=True)
def _ir_graph(ready, models, drawn):
    if drawn_by_run(P, ready, drawn):
        raise PreventUpdate
    return inlier_view(jobs.result_for(ready), models)


@callback(Output(f"{P}-steps-grid", "rowData"), Input(f"{P}-ready", "data"), Input(f"{P}-steps", "value"),
          State(f"{P}-drawn", "data"), prevent_initial_call=True)
def _steps(ready, model, drawn):
    if drawn_by_run(P, ready, drawn):
        raise PreventUpdate
    return steps_view(jobs.result_for(ready), model)


@callback(Output(f"{P}-sweep-graph", "figure"), Input(f"{P}-sweep-ready", "data"))
def _sweep_graph(ready):
    run = jobs.result_for(ready)
    return tree_sweep(run.sweep) if run else empty("Run the tree sweep to see E_out per tree count")


def _report(run: ScenarioRun):
    """The design-review report of a scenario result and its file's stem."""
    from dashboard.crossgen.report import build
    from dashboard.ui.report import view_link

    p = run.params
    text = "".join(t if isinstance(t, str) else "/predict" for t in scenario_text(run))
    report = build(run, view_link("/scenario", p), datasets.unit_of(p), text, IR_MODELS,
                   SCENARIO.fingerprint(p))
    return report, f"perfcast_scenario_{p['host']}_to_{p['target']}_{p['cv']}"


def saved_items(limit=8) -> list:
    """The newest saved scenarios as links that reopen them, each with its delete button."""
    items = []
    for s in scenarios.list_scenarios("scenario")[:limit]:
        saved = SavedScenario.read(s["summary"])
        items.append(html.Li([dcc.Link(f"{s['name']} — {saved.starred}", href=f"/scenario?{saved.query}"), " ",
                              delete_button(P, s["id"])]))
    return items


def _describe(sc_id) -> str:
    return f"'{scenarios.load_scenario(sc_id)['name']}' ({sc_id})"


def _store(run: ScenarioRun, _key, name) -> dict:
    """Save a scenario result's inputs and the summary its saved-list entry and /compare show
    (:class:`SavedScenario`, stored tagged)."""
    return scenarios.save_scenario("scenario", run.params, SavedScenario.of(run).to_dict(), name)


_save = panel.register(panel.Panel(
    P, lambda ready: jobs.result_for(ready), report=_report,
    saving=panel.Saving(_store, "Run the scenario first; then save it."),
    listing=panel.Listing(saved_items, "saved scenario", _describe, scenarios.delete_scenario))).save
