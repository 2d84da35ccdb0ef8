"""Deep-learning operators and models on a GPU given by its spec sheet: listed, edited or never built."""

import dash
from dash import Input, Output, callback, dcc, html, no_update

from dashboard import jobs
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.operators import work
from dashboard.operators.kinds import FITS, LAYER_PARAMS, OPERATORS, SPEC_PARAMS
from dashboard.operators.views import MODEL_COLUMNS, OPERATOR_COLUMNS, model_rows, operator_rows, summary
from dashboard.ui.components import alert, card, grid, register_csv
from dashboard.ui.fields import dropdown, field
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, parse_or_default
from modeling.operators.model import OperatorsOnGpu
from modeling.operators.specs import LIMITS

dash.register_page(__name__, path="/operators", name="Operators", title="perfcast · operators", order=5.5,
                   description=("Deep-learning operators (matrix products, linear layers, element-wise, softmax, "
                                "layer norm) and models on a GPU given only by its spec sheet: a listed GPU, an "
                                "edited one or one never built, with intervals and the roofline beside each."))

P = "operators"
PARAMS = list(OPERATORS.params)
NAMES = OPERATORS.names
FORM_IDS = [f"{P}-{n}" for n in NAMES]


def _spec_input(name, value):
    unit = LIMITS[SPEC_PARAMS[name]][0]
    return field(f"{SPEC_PARAMS[name]} ({unit})",
                 dcc.Input(id=f"{P}-{name}", type="number", value=value, step="any", debounce=True,
                           className="num-input"))


def _form(v):
    return html.Div([
        field("Start from a listed GPU", dropdown(f"{P}-gpu", work.gpu_names(), v["gpu"]),
              "its spec sheet fills the fields; edit any of them for a GPU that does not exist"),
        *[_spec_input(n, v[n]) for n in SPEC_PARAMS],
        *[field(f"Transformer layer: {n}", dcc.Input(id=f"{P}-{n}", type="number", value=v[n], step=1,
                                                     debounce=True, className="num-input")) for n in LAYER_PARAMS],
        field("Fit", dropdown(f"{P}-fit", [{"label": lab, "value": k} for k, lab in FITS.items()], v["fit"])),
    ], className="form-grid")


def _content(res):
    if not isinstance(res, OperatorsOnGpu):
        return None, [], []
    return summary(res), model_rows(res), operator_rows(res)


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = OPERATORS.request(v)
        except (InvalidParameter, LookupError) as exc:
            error = message(exc)
    body, models, ops = _content(jobs.result_for(request))
    return html.Div([
        html.H1("Operators and models on a GPU given by its spec sheet"),
        html.P("A design team's first question about a GPU that exists only as a spec sheet: how fast would our "
               "models run on it? Pick a listed GPU, or edit its spec sheet (an H100 with 1.5× the bandwidth), and "
               "every operator of NeuSight's measured table (matrix products, linear layers, element-wise "
               "operators, softmax, layer norm; FP32) and every traced model (the sum of its operators), with one "
               "transformer layer of the sizes below, is estimated on it: the learned utilisation with its 90 % "
               "interval, the roofline beside it. Trained on P4, P100, T4, V100 and A100-40GB; an operator whose "
               "work lies beyond every training operator's is flagged outside what was measured and gets no "
               "interval.", className="lead"),
        alert(error) if error else None,
        card(_form(v), job_panel(P, request, "Estimate"), share_box(P)),
        html.Div(body, id=f"{P}-summary"),
        card(html.H2("Models: the sum of their operators"),
             html.P("Each traced model of the table (its operators once, at the batch and sequence length it was "
                    "traced with) and the transformer layer of the form. Read the estimate beside the roofline: on "
                    "H100 the roofline was the closer of the two for whole models.", className="hint"),
             grid(f"{P}-models", MODEL_COLUMNS, rows=models, height=420, file_name="models_on_gpu.csv")),
        card(html.H2("Every operator of the table"),
             grid(f"{P}-ops", OPERATOR_COLUMNS, rows=ops, height=520, file_name="operators_on_gpu.csv")),
    ])


register_url_sync(P, NAMES, FORM_IDS)
register_job(P, OPERATORS, FORM_IDS)
for _g in ("models", "ops"):
    register_csv(f"{P}-{_g}")


@callback(*[Output(f"{P}-{n}", "value") for n in SPEC_PARAMS], Input(f"{P}-gpu", "value"),
          prevent_initial_call=True)
def _gpu_chosen(gpu):
    """A listed GPU's spec sheet fills the fields (a value not in the table changes nothing)."""
    if not isinstance(gpu, str) or gpu not in work.gpu_names():
        return (no_update,) * len(SPEC_PARAMS)
    values = work.listed_spec(gpu).values()
    return tuple(values[k] for k in SPEC_PARAMS.values())


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-models", "rowData"), Output(f"{P}-ops", "rowData"),
          Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render(ready):
    return _content(jobs.result_for(ready))
