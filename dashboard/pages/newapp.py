"""Predict an application not in training: estimates with ranges, one-run calibration, warnings."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard import jobs
from dashboard.crossgen.params import METRIC_LABELS, register_dataset_dependents
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.newapp import work
from dashboard.newapp.figures import UNITS, estimates, per_application
from dashboard.newapp.kinds import NEWAPP
from dashboard.newapp.views import merge_calibration, picks_of
from dashboard.state import datasets, devices
from dashboard.state.uploads import decode_upload, parse_upload
from dashboard.ui.components import alert, card, grid, num_col, register_csv, stat
from dashboard.ui.fields import dropdown, field
from dashboard.ui.figures import empty
from dashboard.ui.format import si, si_col
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, parse_or_default
from modeling.errors import ModelingError
from modeling.newapp.estimators import COMPUTE_UTIL, MEMORY_FRACTION

dash.register_page(__name__, path="/new-app", name="New application", title="perfcast · new application",
                   order=5, description=("Predict an application never run on the target: estimates with ranges, "
                                         "what one measured run buys, and when not to trust any of them."))

P = "newapp"
PARAMS = list(NEWAPP.params)
NAMES = NEWAPP.names
FORM_IDS = [f"{P}-{n}" for n in NAMES]
VIEW_NAMES = ["cal", "cal_time"]
ESTIMATE_NOTES = {
    "naive-pooled": "host × median target/host ratio of the training workloads; range: training kernels' ratios",
    "naive-balanced": "host × median of the training kernels' median ratios (each kernel once); same range",
    "roofline": (f"spec ratio by class from host counters: memory-bound (DRAM ≥ {MEMORY_FRACTION:g} × peak) → "
                 f"bandwidth; compute-bound (issue slots ≥ {COMPUTE_UTIL:g} %) → cores × clock; else latency → "
                 "clock × waves; range: the three class ratios"),
    "one-run": "the kernel's own ratio measured at the calibrating input(s); range: ± the training kernels' "
               "within-kernel spread",
}


def _form(v, ds):
    shipped = ds.kind == "shipped"
    names = [work.NO_DEVICE, *devices.device_names(v["devices"])]
    return html.Div([
        field("Dataset", dropdown(f"{P}-dataset", datasets.options(), v["dataset"])),
        field("Host (features measured on)", dropdown(f"{P}-host", [{"label": ds.host_label(h), "value": h}
                                                                  for h in ds.hosts], v["host"])),
        field("Target (predicted)", dropdown(f"{P}-target", [t for t in ds.targets if t != v["host"]], v["target"])),
        field("Metric", dropdown(f"{P}-metric", [{"label": METRIC_LABELS[m], "value": m} for m in ds.metrics],
                                 v["metric"])),
        field("Application held out", dropdown(f"{P}-application", ds.applications(), v["application"]),
              "never used in training: estimated from the other applications"),
        field("Models beside the estimates", dropdown(f"{P}-models", [{"label": lab, "value": k} for k, lab in
                                                                     work.MODEL_SET_LABELS.items()], v["models"])),
        field("Device table", html.Div([
            dropdown(f"{P}-devices", devices.options(), v["devices"], disabled=shipped),
            dcc.Upload(html.Button("Upload device specs (CSV)", className="btn btn-small", disabled=shipped,
                                   id=f"{P}-devices-button"), id=f"{P}-devices-upload", disabled=shipped,
                       max_size=1_000_000)]),
              "an uploaded dataset's GPUs: columns device, architecture, sms, cuda_cores, boost_clock_mhz, "
              "memory_bandwidth_gbs"),
        field("Host device specs", dropdown(f"{P}-host_device", names, v["host_device"], disabled=shipped),
              "for the roofline; the shipped data uses its own GPUs"),
        field("Target device specs", dropdown(f"{P}-target_device", names, v["target_device"], disabled=shipped)),
        field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"], className="num-input")),
    ], className="form-grid")


def layout(**query):
    view = {k: query.pop(k) for k in VIEW_NAMES if k in query}
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = NEWAPP.request(v)
        except (InvalidParameter, LookupError) as exc:
            error = message(exc)
    ds = datasets.get(v["dataset"])
    cal_opts = _cal_options(v, _workloads(v))
    # a cached result (a shared link) is drawn by the layout itself: no second round trip before the charts
    (summary, cal_status, methods, graph, workload_cols, workload_rows, apps_graph, app_cols,
     app_rows) = _content(jobs.result_for(request), view.get("cal"), view.get("cal_time"))
    return html.Div([
        html.H1("Predict an application not in training"),
        html.P(["The situation here: an application you have never run on the target GPU. Every number on this "
                "page holds that application out of everything learned, so it is the error to expect for a new "
                "application. The ",
                dcc.Link("scenario leaderboard", href="/scenario"),
                "'s random 10-fold error answers another question (a profiled kernel at a new input size) and is "
                "far lower. Estimates come with ranges; one measured run of the application on the target is "
                "usually worth more than any model."], className="lead"),
        alert(error) if error else None,
        card(_form(v, ds), html.Div(id=f"{P}-devices-status"), job_panel(P, request, "Estimate"), share_box(P)),
        html.Div(summary, id=f"{P}-summary"),
        card(html.H2("Calibrate with one measured run"),
             html.P("Measure one input of the held-out application on the target (or pick one whose time the dataset "
                    "has) and every other input of that kernel is scaled by its ratio. Leave the time blank to use "
                    "the dataset's measured value.", className="hint"),
             html.Div([
                 field("Calibrating input", dcc.Dropdown(id=f"{P}-cal", options=cal_opts, value=view.get("cal"),
                                                         placeholder="none", clearable=True,
                                                         style={"minWidth": "340px"})),
                 field(f"Measured on the target ({UNITS.get(v['metric'], 'target units')})",
                       dcc.Input(id=f"{P}-cal_time", type="number", min=0, step="any", debounce=True,
                                 value=view.get("cal_time"), className="num-input", placeholder="from the dataset")),
             ], className="form-grid"),
             html.Div(cal_status, id=f"{P}-cal-status")),
        card(html.H2("Estimates for the held-out application"),
             html.P("Mean and median APE against the measured target, on the workloads each method estimates "
                    "(one-run: the kernel's other inputs). Models learn log(target/host) from the host counters of "
                    "the other applications; their range is the spread of all models' estimates.", className="hint"),
             grid(f"{P}-methods", [
                 {"field": "method", "headerName": "method", "minWidth": 170},
                 {"field": "kind", "headerName": "kind", "minWidth": 90, "maxWidth": 110},
                 num_col("mean_ape", "mean APE %", 1), num_col("median_ape", "median APE %", 1),
                 num_col("within_10", "within 10 %", 0), num_col("within_25", "within 25 %", 0),
                 {"field": "n", "headerName": "workloads", "minWidth": 96, "type": "numericColumn"},
                 {"field": "note", "headerName": "what it is", "minWidth": 320, "flex": 2, "wrapText": True,
                  "autoHeight": True, "tooltipField": "note",
                  "cellStyle": {"lineHeight": "1.35", "padding": "4px 8px"}},
             ], rows=methods, height=500, file_name="new_application_methods.csv"),
             dcc.Graph(id=f"{P}-graph", figure=graph)),
        card(html.H2("Per workload"),
             grid(f"{P}-workloads", workload_cols, rows=workload_rows, height=420,
                  file_name="new_application_workloads.csv")),
        card(html.H2("Every application held out in turn"),
             html.P("The same methods, each application held out once (one-run calibrated with each kernel's "
                    "median-size input): how much any one number can be trusted on this pair of GPUs.",
                    className="hint"),
             dcc.Graph(id=f"{P}-apps-graph", figure=apps_graph),
             grid(f"{P}-apps", app_cols, rows=app_rows, height=360, file_name="held_out_applications.csv")),
    ])


register_dataset_dependents(P)
register_url_sync(P, NAMES + VIEW_NAMES, FORM_IDS + [f"{P}-{n}" for n in VIEW_NAMES])
register_job(P, NEWAPP, FORM_IDS)
for _g in ("methods", "workloads", "apps"):
    register_csv(f"{P}-{_g}")


@callback(Output(f"{P}-application", "options"), Output(f"{P}-application", "value"),
          Output(f"{P}-host_device", "disabled"), Output(f"{P}-target_device", "disabled"),
          Output(f"{P}-devices", "disabled"), Output(f"{P}-devices-upload", "disabled"),
          Output(f"{P}-devices-button", "disabled"), Output(f"{P}-devices", "value", allow_duplicate=True),
          Input(f"{P}-dataset", "value"), prevent_initial_call=True)
def _dataset_changed(ds_id):
    try:
        ds = datasets.get(ds_id)
    except (LookupError, TypeError):
        return [no_update] * 8
    apps = ds.applications()
    shipped = ds.kind == "shipped"
    return (apps, ("heartwall" if "heartwall" in apps else (apps[0] if apps else None)), *[shipped] * 5,
            devices.SHIPPED if shipped else no_update)


@callback(Output(f"{P}-devices", "options"), Output(f"{P}-devices", "value", allow_duplicate=True),
          Output(f"{P}-devices-status", "children"), Input(f"{P}-devices-upload", "contents"),
          State(f"{P}-devices-upload", "filename"), prevent_initial_call=True)
def _devices_uploaded(contents, filename):
    """Validate and store an uploaded device table; it becomes the page's device table."""
    try:
        table = parse_upload(decode_upload(contents), filename if isinstance(filename, str) else None)
        meta = devices.save_devices(table.frame, filename if isinstance(filename, str) else "device table")
    except (ModelingError, ValueError, TypeError) as exc:
        return no_update, no_update, alert(f"Device table not used: {exc}")
    return devices.options(), meta["id"], alert(f"Device table stored: {', '.join(meta['devices'][:12])}.", "info")


@callback(Output(f"{P}-host_device", "options"), Output(f"{P}-target_device", "options"),
          Output(f"{P}-host_device", "value", allow_duplicate=True),
          Output(f"{P}-target_device", "value", allow_duplicate=True),
          Input(f"{P}-devices", "value"), State(f"{P}-dataset", "value"), prevent_initial_call=True)
def _device_table_chosen(dev_id, ds_id):
    try:
        names = [work.NO_DEVICE, *devices.device_names(dev_id)]
        ds = datasets.get(ds_id)
    except (LookupError, TypeError):
        return no_update, no_update, no_update, no_update
    if ds.kind == "shipped":
        return names, names, no_update, no_update
    return names, names, work.NO_DEVICE, work.NO_DEVICE


@callback(Output(f"{P}-host_device", "value"), Output(f"{P}-target_device", "value"),
          Input(f"{P}-host", "value"), Input(f"{P}-target", "value"), State(f"{P}-dataset", "value"),
          prevent_initial_call=True)
def _devices_follow(host, target, ds_id):
    """On the shipped data the device specs are the host's and the target's own."""
    try:
        ds = datasets.get(ds_id)
    except (LookupError, TypeError):
        return no_update, no_update
    if ds.kind != "shipped":
        return work.NO_DEVICE, work.NO_DEVICE
    ok = set(ds.hosts)
    return (host if host in ok else no_update), (target if target in ok else no_update)


def _workloads(params):
    try:
        return work.held_out_workloads(params)
    except (ModelingError, LookupError):
        return []


def _cal_options(params, rows):
    """One option per workload of the held-out application, by kernel and size (known before any run, so a
    link's calibrating input is kept while its job runs)."""
    def host(r):
        return si(r["host"], "s") if params["metric"] == "duration" else f"{r['host']:.4g}"
    return [{"label": f"{r['id']} (host {host(r)})", "value": r["id"]}
            for r in sorted(rows, key=lambda r: (r["kernel"], r["host"]))]


@callback(Output(f"{P}-cal", "options"), Output(f"{P}-cal", "value", allow_duplicate=True),
          Input(f"{P}-ready", "data"), State(f"{P}-cal", "value"), prevent_initial_call=True)
def _cal_choices(ready, current):
    res = jobs.result_for(ready)
    if not res:
        return no_update, no_update
    opts = _cal_options(res["params"], res["application"]["rows"])
    keep = current if any(o["value"] == current for o in opts) else None
    return opts, keep


def _note(m, res):
    if m.get("missing"):
        return f"not available: {m['missing']}"
    note = ESTIMATE_NOTES.get(m["method"], "model on log(target/host); range: all models' spread")
    if "ratio" in m:
        note = f"ratio {m['ratio']:.3g}: " + note
    if m.get("class"):
        counts = {c: m["class"].count(c) for c in ("memory", "compute", "latency") if c in m["class"]}
        note = ", ".join(f"{n} {c}-bound" for c, n in counts.items()) + ": " + note
    if m["method"] == "one-run":
        if not res["calibration"]:
            return "choose a calibrating input below to see it"
        ks = [f"{k}: ratio {d['ratio']:.3g}" for k, d in res["one_run"].items()]
        note = "; ".join(ks) + "; " + note
    return note


def _workload_columns(res, metric):
    unit = UNITS.get(metric, "")

    def col(field, header):
        return {**si_col(field, header, unit), "minWidth": 112}

    cols = [{"field": "id", "headerName": "workload", "minWidth": 210, "pinned": "left"},
            {"field": "kernel", "headerName": "kernel", "minWidth": 160},
            col("host", "host's own"), col("measured", "measured on target")]
    for m in res["methods"]:
        if m["n"] or m["method"] == "one-run":
            cols.append(col(f"{m['method']}|point", m["method"]))
            if m["kind"] == "estimate":
                cols += [col(f"{m['method']}|lo", f"{m['method']} low"),
                         col(f"{m['method']}|hi", f"{m['method']} high")]
    return cols


def _summary(res, params, spec):
    app = res["application"]
    scored = [m for m in app["methods"] if m["mean_ape"] is not None]
    best = min(scored, key=lambda m: m["mean_ape"]) if scored else None
    naive = next(m for m in app["methods"] if m["method"] == "naive-pooled")
    s = res["all"]["scenario"]
    warns = [alert([html.Strong(w["title"] + " "), w["evidence"]], "warning") for w in app["warnings"]]
    return card(
        html.Div([
            stat("held out", app["application"], f"{P}-held-out"),
            stat("workloads (measured)", f"{app['n_workloads']} ({app['n_measured']})"),
            stat("learned from", ", ".join(app["training_applications"]) or "–"),
            stat("naive-pooled mean APE", "–" if naive["mean_ape"] is None else f"{naive['mean_ape']:.1f} %",
                 f"{P}-naive"),
            stat("lowest mean APE", "–" if best is None else f"{best['method']}: {best['mean_ape']:.1f} %",
                 f"{P}-best"),
        ], className="stats"),
        html.Div(warns, id=f"{P}-warnings"),
        html.P(f"{res['dataset_name']}: {s.get('host')} → {s.get('target')}, {METRIC_LABELS.get(params['metric'])}; "
               f"roofline specs: {spec}. Errors are against the measured target of the held-out workloads.",
               className="hint"))


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-cal-status", "children"),
          Output(f"{P}-methods", "rowData"), Output(f"{P}-graph", "figure"),
          Output(f"{P}-workloads", "columnDefs"), Output(f"{P}-workloads", "rowData"),
          Output(f"{P}-apps-graph", "figure"), Output(f"{P}-apps", "columnDefs"), Output(f"{P}-apps", "rowData"),
          Input(f"{P}-ready", "data"), Input(f"{P}-cal", "value"), Input(f"{P}-cal_time", "value"),
          prevent_initial_call=True)
def _render(ready, cal, cal_time):
    return _content(jobs.result_for(ready), cal, cal_time)


def _content(res: dict | None, cal, cal_time) -> tuple:
    """Summary, calibration, estimates (grid and chart), per-workload grid and every application held out."""
    if not res:
        return (None, None, [], empty("Press Estimate to see the estimates"), [], [],
                empty("Press Estimate to see every application held out"), [], [])
    params = res["params"]
    app = res["application"]
    status = None
    try:
        picks = picks_of(cal, cal_time)
        if picks:
            app = merge_calibration(app, work.calibrated(params, picks))
            one = next(m for m in app["methods"] if m["method"] == "one-run")
            naive = next(m for m in app["methods"] if m["method"] == "naive-pooled")
            if one["mean_ape"] is not None:
                status = alert(f"Calibrated with {picks[0]['id']}: mean APE on the kernel's other {one['n']} "
                               f"input(s) {one['mean_ape']:.1f} % (naive-pooled on the same application: "
                               f"{naive['mean_ape']:.1f} %).", "info")
            else:
                status = alert(f"Calibrated with {picks[0]['id']}; the kernel's other inputs have no measured "
                               "target here to score against.", "info")
    except (InvalidParameter, ModelingError) as exc:
        status = alert(str(exc))
    spec = ", ".join(f"{w} {s['device']} ({s['architecture']}, {s['sms']:.0f} SMs, {s['memory_bandwidth_gbs']:g} GB/s)"
                     for w, s in (("host", res["host_spec"]), ("target", res["target_spec"])) if s) or "none chosen"
    shown = {**res, "application": app}
    methods = [{**{k: m[k] for k in ("method", "kind", "mean_ape", "median_ape", "within_10", "within_25", "n")},
                "note": _note(m, app)} for m in app["methods"]]
    allres = res["all"]
    groups = allres["groups"]
    app_cols = [{"field": "method", "headerName": "method", "minWidth": 170, "pinned": "left"},
                num_col("mean_ape", "all: mean APE %", 1), num_col("median_ape", "all: median %", 1),
                num_col("within_10", "all: within 10 %", 0)] + \
               [num_col(f"g|{g}", f"{g}: mean APE %", 1) for g in groups]
    app_rows = [{"method": m["method"], "mean_ape": m["mean_ape"], "median_ape": m["median_ape"],
                 "within_10": m["within_10"], **{f"g|{g}": m["per_group"][g]["mean_ape"] for g in groups}}
                for m in allres["methods"]]
    return (_summary(shown, params, spec), status, methods, estimates(app, params["metric"]),
            _workload_columns(app, params["metric"]), app["rows"], per_application(allres), app_cols, app_rows)
