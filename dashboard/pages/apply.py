"""Apply a trained model to a second validation set without retraining (HALWPE V.D-E)."""

import dash
from dash import Input, Output, callback, dcc, html, no_update

from dashboard.state import datasets
from dashboard import jobs
from dashboard.crossgen.kinds import APPLY, prefer
from dashboard.crossgen.results import ApplyRun
from dashboard.ui.components import alert, card, grid, num_col, register_csv
from dashboard.crossgen.figures import applied
from dashboard.ui.figures import empty
from dashboard.ui.summary_card import summary_card
from dashboard.crossgen.params import TRANSFORM_LABELS
from dashboard.ui.fields import dropdown, field
from dashboard.jobs.panel import job_panel, register_job
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, parse, parse_or_default
from modeling.crossgen.ensemble import ALL_MODELS

dash.register_page(__name__, path="/apply", name="Apply", title="perfcast · apply a model", order=5,
                   description=('Does a trained model hold on a new validation set (held-out applications, a '
                                'smaller host of the same generation) without retraining?'))

P = "apply"


PARAMS = list(APPLY.params)
NAMES = APPLY.names
FORM_IDS = [f"{P}-{n}" for n in NAMES]


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = APPLY.request(v)
        except InvalidParameter as exc:
            error = str(exc)
    ds, vds = datasets.get(v["dataset"]), datasets.get(v["val_dataset"])
    return html.Div([
        html.H1("Apply a trained model to a new validation set"),
        html.P("Train one model on a scenario, then predict a second set without retraining: new workloads "
               "(hold applications out of training), or the same workloads measured on a different host, as in "
               "HALWPE's driver and slice-scaling studies. The default trains Tesla-K40 → GTX-980 and applies the "
               "model to counters of the Tesla-K20 (same Kepler generation, fewer SMs).", className="lead"),
        alert(error) if error else None,
        card(html.H2("Training scenario"), html.Div([
            field("Dataset", dropdown(f"{P}-dataset", datasets.options(), v["dataset"])),
            field("Host", dropdown(f"{P}-train_host", ds.hosts, v["train_host"])),
            field("Target", dropdown(f"{P}-train_target", ds.targets, v["train_target"])),
            field("Metric", dropdown(f"{P}-metric", ds.metrics, v["metric"])),
            field("Model", dropdown(f"{P}-model", ALL_MODELS, v["model"])),
            field("Target transform", dropdown(f"{P}-transform", list(TRANSFORM_LABELS), v["transform"])),
            field("Hold out applications", dropdown(f"{P}-holdout", ds.applications(), v["holdout"], multi=True,
                                                    placeholder="none: train on all workloads"),
                  "held-out applications are left out of training and form the validation set"),
            field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"],
                                    className="num-input")),
        ], className="form-grid"),
            html.H2("Validation set"), html.Div([
                field("Dataset", dropdown(f"{P}-val_dataset", datasets.options(), v["val_dataset"])),
                field("Host", dropdown(f"{P}-val_host", vds.hosts, v["val_host"])),
                field("Target", dropdown(f"{P}-val_target", vds.targets, v["val_target"])),
            ], className="form-grid"),
            job_panel(P, request, "Train and apply"), share_box(P)),
        html.Div(id=f"{P}-summary"),
        card(dcc.Graph(id=f"{P}-graph", figure=empty("Train and apply to see validation errors"))),
        card(html.H2("Inlier ratios on the validation set"),
             grid(f"{P}-ir-grid", [num_col("threshold", "APE threshold T %", 0), num_col("ratio", "inlier ratio %", 1)],
                  height=300, file_name="validation_inliers.csv")),
    ])


register_url_sync(P, NAMES, FORM_IDS)
register_job(P, APPLY, FORM_IDS)
register_csv(f"{P}-ir-grid")


def _dataset_outputs(prefix_ids):
    return [Output(i, prop) for i in prefix_ids for prop in ("options", "value")]


@callback(*_dataset_outputs([f"{P}-train_host", f"{P}-train_target", f"{P}-metric", f"{P}-holdout"]),
          Input(f"{P}-dataset", "value"), prevent_initial_call=True)
def _train_ds(ds_id):
    try:
        v = parse({"dataset": ds_id}, PARAMS[:4])
    except (InvalidParameter, LookupError):
        return [no_update] * 8
    ds = datasets.get(v["dataset"])
    return ds.hosts, v["train_host"], ds.targets, v["train_target"], ds.metrics, v["metric"], ds.applications(), []


@callback(*_dataset_outputs([f"{P}-val_host", f"{P}-val_target"]), Input(f"{P}-val_dataset", "value"),
          prevent_initial_call=True)
def _val_ds(ds_id):
    try:
        vds = datasets.get(ds_id)
    except (LookupError, TypeError):
        return [no_update] * 4
    v = {"val_dataset": ds_id}
    return vds.hosts, prefer("val_dataset", "hosts", "Tesla-K20")(v), vds.targets, \
        prefer("val_dataset", "targets", "GTX-980")(v)


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-graph", "figure"), Output(f"{P}-ir-grid", "rowData"),
          Input(f"{P}-ready", "data"))
def _render(ready):
    run = jobs.result_for(ready)
    if not run:
        return None, empty("Train and apply to see validation errors"), []
    unit, train_unit = _units(run)
    s = run.summary(unit, train_unit)
    summary = summary_card(s, P)
    rows = s.table("ir").records()
    return summary, applied(run, unit), rows


def _units(run: ApplyRun) -> tuple[str, str]:
    """The unit of the validation set's target values (the chart's) and of the training set's."""
    p = run.params
    return datasets.unit_of(p, "val_dataset", target="val_target"), datasets.unit_of(p, target="train_target")
