"""Repeated runs: the ±k·MAD outlier filter of HALWPE VI.A (Fig. 8), adjustable."""

import dash
import numpy as np
from dash import Input, Output, callback, dcc, html, no_update

from dashboard.state import datasets
from dashboard.ui import format as fmt
from dashboard.ui.format import message, si_col
from dashboard.ui.components import alert, card, grid, num_col, register_csv, stat
from dashboard.ui.figures import empty
from dashboard.crossgen.figures import repeats
from dashboard.ui.fields import dropdown, field
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, Param, parse, parse_or_default
from modeling import shipped
from modeling.tables.repeats import DEFAULT_K, mad_window, structure

dash.register_page(__name__, path="/repeats", name="Repeats", title="perfcast · repeated runs", order=4,
                   description=('Which repeated measurements are outliers, and how much does dropping them move the'
                                ' averaged value?'))

P = "repeats"
SHIPPED_MEASURES = ["duration", "elapsed_cycles_sm"]


def raw_runs(ds_id: str):
    """(frame, id column, measure columns) of a dataset's raw repeated runs."""
    if ds_id == datasets.SHIPPED_ID:
        return shipped.raw_launches(), "workload", SHIPPED_MEASURES
    ds = datasets.get(ds_id)
    if not ds.has_repeats:
        raise LookupError(f"dataset {ds_id} has no repeated runs (no repeat column was mapped at upload)")
    m = ds.mapping
    return datasets.dataset_table(ds_id, raw=True), m["id_col"], list(m["targets"])


def _repeat_datasets():
    return [o for o in datasets.options() if o["value"] == datasets.SHIPPED_ID
            or datasets.get(o["value"]).has_repeats]


def _workloads(v):
    frame, id_col, _ = raw_runs(v["dataset"])
    return list(dict.fromkeys(frame[id_col].astype(str)))


PARAMS = [
    Param("dataset", "choice", datasets.SHIPPED_ID, lambda v: [o["value"] for o in _repeat_datasets()]),
    Param("workload", "choice", lambda v: _workloads(v)[-1], _workloads),
    Param("measure", "choice", lambda v: raw_runs(v["dataset"])[2][0], lambda v: raw_runs(v["dataset"])[2]),
    Param("k", "float", DEFAULT_K, None, 0.5, 50),
]


def layout(**query):
    v, error = parse_or_default(query, PARAMS)
    frame, id_col, measures = raw_runs(v["dataset"])
    return html.Div([
        html.H1("Repeated runs: which measurements to keep"),
        html.P("Every workload is measured many times. Runs farther than k scaled median absolute deviations "
               "(MAD = 1.4826 · median |x − median|) from the median are dropped before averaging; HALWPE uses "
               "k = 7. Move k and see which runs go and how the aggregated value moves.", className="lead"),
        alert(error) if error else None,
        card(html.Div([
            field("Dataset", dropdown(f"{P}-dataset", _repeat_datasets(), v["dataset"])),
            field("Workload", dropdown(f"{P}-workload", _workloads(v), v["workload"])),
            field("Measure", dropdown(f"{P}-measure", measures, v["measure"])),
            field("Window k (MADs)", dcc.Slider(id=f"{P}-k", min=1, max=20, step=0.5, value=v["k"],
                                                marks={i: str(i) for i in (1, 3, 5, 7, 10, 15, 20)},
                                                tooltip={"placement": "bottom"})),
        ], className="form-grid"), share_box(P)),
        html.Div(id=f"{P}-summary"),
        card(dcc.Graph(id=f"{P}-graph", figure=empty("Choose a workload"))),
        card(html.H2("All workloads of this dataset at this k"),
             grid(f"{P}-grid", grid_columns(unit_of(v["dataset"], v["measure"])), height=320, file_name="repeats.csv")),
    ])


NAMES = ["dataset", "workload", "measure", "k"]
register_url_sync(P, NAMES, [f"{P}-{n}" for n in NAMES])
register_csv(f"{P}-grid")


@callback(Output(f"{P}-workload", "options"), Output(f"{P}-workload", "value"),
          Output(f"{P}-measure", "options"), Output(f"{P}-measure", "value"),
          Input(f"{P}-dataset", "value"), prevent_initial_call=True)
def _dataset_changed(ds_id):
    try:
        v = parse({"dataset": ds_id}, PARAMS)
    except (InvalidParameter, LookupError):
        return [no_update] * 4
    _, _, measures = raw_runs(v["dataset"])
    return _workloads(v), v["workload"], measures, v["measure"]


@callback(Output(f"{P}-graph", "figure"), Output(f"{P}-summary", "children"), Output(f"{P}-grid", "rowData"),
          Output(f"{P}-grid", "columnDefs"), Input(f"{P}-dataset", "value"), Input(f"{P}-workload", "value"),
          Input(f"{P}-measure", "value"), Input(f"{P}-k", "value"))
def _render(ds_id, workload, measure, k):
    try:
        v = parse({"dataset": ds_id, "workload": workload, "measure": measure, "k": k}, PARAMS)
    except (InvalidParameter, LookupError) as exc:
        return empty("Invalid input"), alert(message(exc)), [], no_update
    frame, id_col, _ = raw_runs(v["dataset"])
    rows = []
    for wid, grp in frame.groupby(id_col, sort=False):
        vals = grp[v["measure"]].to_numpy(float)
        vals = vals[np.isfinite(vals)]
        if not len(vals):
            continue
        w = mad_window(vals, v["k"])
        rows.append({"workload": str(wid), "runs": len(vals), "outliers": w.n_outliers, "median": w.median,
                     "mean_all": w.mean_all, "mean_kept": w.mean_inliers,
                     "shift_pct": 100 * (w.mean_inliers - w.mean_all) / w.mean_all if w.mean_all else 0.0})
    vals = frame.loc[frame[id_col].astype(str) == v["workload"], v["measure"]].to_numpy(float)
    vals = vals[np.isfinite(vals)]
    win = mad_window(vals, v["k"]).to_dict()
    unit = unit_of(v["dataset"], v["measure"])
    shift = 100 * (win["mean_inliers"] - win["mean_all"]) / win["mean_all"] if win["mean_all"] else 0.0
    summary = card(
        structure_note(vals, win, unit),
        html.Div([
            stat("runs", str(len(vals)), f"{P}-runs"),
            stat("outliers dropped", str(win["n_outliers"]), f"{P}-outliers"),
            stat("median", fmt.si(win["median"], unit, 4)), stat("scaled MAD", fmt.si(win["mad"], unit)),
            stat("mean of all runs", fmt.si(win["mean_all"], unit, 5)),
            stat("mean of kept runs", fmt.si(win["mean_inliers"], unit, 5), f"{P}-mean-kept"),
            stat("effect of filtering", f"{shift:+.3f} %", f"{P}-shift")], className="stats"))
    return repeats(vals, win, f"{v['measure']} of {v['workload']}", unit), summary, rows, grid_columns(unit)


def grid_columns(unit: str) -> list[dict]:
    return [{"field": "workload", "minWidth": 220}, num_col("runs", "runs", 0), num_col("outliers", "outliers", 0),
            si_col("median", "median", unit), si_col("mean_all", "mean (all)", unit),
            si_col("mean_kept", "mean (kept)", unit), num_col("shift_pct", "shift %", 3)]


def unit_of(ds_id: str, measure: str) -> str:
    """The unit of a measure's runs: the shipped launches' time and cycles, an upload's target columns in the
    unit given at upload ("" when none was)."""
    ds = datasets.get(ds_id)
    if ds.kind == "shipped":
        return ds.unit({col: m for m, col in shipped.METRICS.items()}.get(measure))
    return ds.unit(ds.metrics[0])


def structure_note(vals, win: dict, unit: str):
    """A warning when the runs sit at two levels: the filter would then choose a level, not drop noise."""
    st = structure(vals)
    if st.kind == "none":
        return None
    a, b = st.levels
    if st.kind == "level shift":
        what = (f"Runs 1–{st.split} average {fmt.si(a, unit, 4)}, runs {st.split + 1}–{len(vals)} "
                f"{fmt.si(b, unit, 4)} ({100 * (a - b) / b:+.1f} %): a level shift in launch order (e.g. clocks or "
                "caches settling), not scattered outliers.")
    else:
        what = (f"The runs sit at two interleaved levels, {fmt.si(a, unit, 4)} ({100 * st.low_share:.0f} % of runs) "
                f"and {fmt.si(b, unit, 4)}: a bimodal sample, not scattered outliers.")
    return alert([html.Strong("Two levels, not outliers. "), what,
                  f" The ±k·MAD window drops {win['n_outliers']} of {len(vals)} runs here, which picks one level; "
                  "decide which level represents the workload before trusting the averaged value."], "warning")
