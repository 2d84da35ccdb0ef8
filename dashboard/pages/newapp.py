"""Predict an application not in training: estimates with ranges, one-run calibration, warnings; or a GPU never
built or measured: the spec roofline for every workload, labelled with the same rule's error on measured GPUs."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access.projects import refused
from dashboard import jobs
from dashboard.crossgen.params import METRIC_LABELS, register_dataset_dependents
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.newapp import work
from dashboard.newapp.kinds import AUTO, MODES, NEWAPP, ROLE_PARAMS, TYPED, role_choices
from dashboard.newapp.results import HeldOutRun, UnbuiltGpuRun
from dashboard.newapp.sections import hypo_content, measured_content
from dashboard.newapp.views import P, calibration_options
from dashboard.newapp import devices
from dashboard.state import datasets
from dashboard.ui.roles import editor_only, may_change
from dashboard.ui.format import unit_text
from dashboard.state.uploads import decode_upload, parse_upload
from dashboard.ui import prediction_panel as panel
from dashboard.ui.components import alert, card, grid, register_csv
from dashboard.ui.fields import dropdown, field
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, parse_or_default
from modeling.errors import ModelingError
from modeling.newapp.data import ROLES
from modeling.newapp.hypothetical import SPEC_BOUNDS

dash.register_page(__name__, path="/new-app", name="New application", title="perfcast · new application",
                   order=5, description=("Predict an application never run on the target: estimates with ranges, "
                                         "what one measured run buys, and when not to trust any of them."))

PARAMS = list(NEWAPP.params)
NAMES = NEWAPP.names
FORM_IDS = [f"{P}-{n}" for n in NAMES]
VIEW_NAMES = ["cal", "cal_time"]


ROLE_LABELS = {"dram_read": "DRAM read throughput (GB/s)", "dram_write": "DRAM write throughput (GB/s)",
               "issue_util": "issue-slot utilization (%)", "grid_x": "thread blocks per launch, x",
               "grid_y": "thread blocks per launch, y", "launches": "kernel launches",
               "instructions": "warp instructions executed", "kernel": "kernel name"}
TYPED_LABELS = {"gpu_name": "Name", "gpu_arch": "Architecture", "gpu_sms": "SMs", "gpu_cores": "CUDA cores",
                "gpu_clock": "Boost clock (MHz)", "gpu_bw": "Memory bandwidth (GB/s)"}


def _shown(on: bool) -> dict:
    """A group of form fields that takes part in the form's grid when shown."""
    return {"display": "contents"} if on else {"display": "none"}


def _typed_input(name, value):
    key = TYPED[name]
    if key in SPEC_BOUNDS:
        lo, hi, whole, _ = SPEC_BOUNDS[key]
        return dcc.Input(id=f"{P}-{name}", type="number", min=lo, max=hi, step=1 if whole else "any", value=value,
                         debounce=True, className="num-input")
    return dcc.Input(id=f"{P}-{name}", type="text", value=value, debounce=True, maxLength=60 if key == "name" else 40,
                     className="text-input")


def _role_fields(v, ds):
    shipped = ds.kind == "shipped"
    return html.Details([
        html.Summary("Counter roles for the roofline (an uploaded table whose counters have other names)"),
        html.Div([field(ROLE_LABELS[r], dropdown(f"{P}-{p}", [{"label": "auto (" + ROLES[r] + " when present)"
                                                               if c == AUTO else c, "value": c}
                                                              for c in role_choices(v, r)], v[p], disabled=shipped))
                  for p, r in ROLE_PARAMS.items()], className="form-grid"),
        html.P("The shipped data's counters have these names already; on an upload, map the column that holds "
               "each role (the command line's --map ROLE=COL).", className="hint"),
    ], id=f"{P}-roles", open=not shipped and any(v[p] != AUTO for p in ROLE_PARAMS), style={"gridColumn": "1 / -1"})


def _form(v, ds):
    shipped = ds.kind == "shipped"
    names = [work.NO_DEVICE, *devices.device_names(v["devices"])]
    measured = v["mode"] == "measured"
    return html.Div([
        field("Predict for", dropdown(f"{P}-mode", [{"label": lab, "value": k} for k, lab in MODES.items()],
                                      v["mode"]),
              "a GPU never built or measured gets the spec roofline, labelled with its error on measured GPUs"),
        html.Div([field(TYPED_LABELS[n], _typed_input(n, v[n])) for n in TYPED], id=f"{P}-typed-fields",
                 style=_shown(v["mode"] == "typed")),
        html.Div([field("GPU from the device table", dropdown(f"{P}-gpu", devices.device_names(v["devices"]),
                                                              v["gpu"]),
                        "its specs only: nothing measured on it is used")],
                 id=f"{P}-table-fields", style=_shown(v["mode"] == "table")),
        field("Dataset", dropdown(f"{P}-dataset", datasets.options(), v["dataset"])),
        field("Host (features measured on)", dropdown(f"{P}-host", [{"label": ds.host_label(h), "value": h}
                                                                  for h in ds.hosts], v["host"])),
        field("Target (predicted)", dropdown(f"{P}-target", [t for t in ds.targets if t != v["host"]], v["target"])),
        field("Metric", dropdown(f"{P}-metric", [{"label": METRIC_LABELS[m], "value": m} for m in ds.metrics],
                                 v["metric"])),
        html.Div([
            field("Application held out", dropdown(f"{P}-application", ds.applications(), v["application"]),
                  "never used in training: estimated from the other applications"),
            field("Models beside the estimates", dropdown(f"{P}-models", [{"label": lab, "value": k} for k, lab in
                                                                         work.MODEL_SET_LABELS.items()],
                                                          v["models"])),
        ], id=f"{P}-measured-fields", style=_shown(measured)),
        field("Device table", html.Div([
            dropdown(f"{P}-devices", devices.options(), v["devices"], disabled=shipped),
            editor_only(dcc.Upload(html.Button("Upload device specs (CSV)", className="btn btn-small", disabled=shipped,
                                   id=f"{P}-devices-button"), id=f"{P}-devices-upload", disabled=shipped,
                       max_size=1_000_000), "upload")]),
              "an uploaded dataset's GPUs: columns device, architecture, sms, cuda_cores, boost_clock_mhz, "
              "memory_bandwidth_gbs"),
        field("Host device specs", dropdown(f"{P}-host_device", names, v["host_device"], disabled=shipped),
              "for the roofline; the shipped data uses its own GPUs"),
        field("Target device specs", dropdown(f"{P}-target_device", names, v["target_device"], disabled=shipped)),
        field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"], className="num-input")),
        _role_fields(v, ds),
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
    cal_opts = calibration_options(v) if v["mode"] == "measured" else []
    # a cached result (a shared link) is drawn by the layout itself: no second round trip before the charts
    cached = jobs.result_for(request)
    (summary, cal_status, method_cols, methods, graph, workload_cols, workload_rows, apps_graph, app_cols,
     app_rows) = measured_content(cached, view.get("cal"), view.get("cal_time"))
    (hypo_summary, track_cols, track_rows, hypo_graph, hypo_rows, hypo_cols, measured_style,
     hypo_style) = hypo_content(cached)
    return html.Div([
        html.H1("Predict an application not in training"),
        html.P(["The situation here: an application you have never run on the target GPU. Every number on this "
                "page holds that application out of everything learned, so it is the error to expect for a new "
                "application. The ",
                dcc.Link("scenario leaderboard", href="/scenario"),
                "'s random 10-fold error answers another question (a profiled kernel at a new input size) and is "
                "far lower. Estimates come with ranges; one measured run of the application on the target is "
                "usually worth more than any model. For a GPU that has not been built or measured, choose "
                "\"Predict for: a GPU never built\": every workload gets the spec roofline with its range, labelled "
                "with how far the same rule was from the measured times of the GPUs that were measured."],
               className="lead"),
        alert(error) if error else None,
        card(_form(v, ds), html.Div(id=f"{P}-devices-status"), job_panel(P, request, "Estimate"), share_box(P)),
        _hypo_view(hypo_summary, track_cols, track_rows, hypo_graph, hypo_rows, hypo_cols, hypo_style),
        html.Div([_measured_view(summary, cal_status, cal_opts, view, v, method_cols, methods, graph, workload_cols,
                                 workload_rows, apps_graph, app_cols, app_rows)], id=f"{P}-measured-view",
                 style=measured_style),
    ])


def _measured_view(summary, cal_status, cal_opts, view, v, method_cols, methods, graph, workload_cols, workload_rows,
                   apps_graph, app_cols, app_rows):
    return html.Div([
        html.Div(summary, id=f"{P}-summary"),
        card(html.H2("Calibrate with one measured run"),
             html.P("Measure one input of the held-out application on the target (or pick one whose time the dataset "
                    "has) and every other input of that kernel is scaled by its ratio. Leave the time blank to use "
                    "the dataset's measured value.", className="hint"),
             html.Div([
                 field("Calibrating input", dcc.Dropdown(id=f"{P}-cal", options=cal_opts, value=view.get("cal"),
                                                         placeholder="none", clearable=True,
                                                         style={"width": "340px"})),
                 field(f"Measured on the target ({unit_text(datasets.unit_of(v))})",
                       dcc.Input(id=f"{P}-cal_time", type="number", min=0, step="any", debounce=True,
                                 value=view.get("cal_time"), className="num-input", placeholder="dataset value",
                                 style={"width": "14em"})),
             ], className="field-row"),
             html.Div(cal_status, id=f"{P}-cal-status")),
        card(html.H2("Estimates for the held-out application"),
             html.P("Mean and median APE against the measured target, on the workloads each method estimates "
                    "(one-run: the kernel's other inputs). Models learn log(target/host) from the host counters of "
                    "the other applications; their range is the spread of all models' estimates.", className="hint"),
             grid(f"{P}-methods", method_cols, rows=methods, height=500, file_name="new_application_methods.csv"),
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


def _hypo_view(summary, track_cols, track_rows, graph, rows, cols, style):
    return html.Div([
        html.Div(summary, id=f"{P}-hypo-summary"),
        card(html.H2("How far the same rule was on measured GPUs"),
             html.P("The spec roofline, with the same thresholds and the same host counters, on every measured "
                    "pair: its error against the measured time, and how often that time fell inside the stated "
                    "range. These figures label the estimates below; they were not measured on the typed GPU.",
                    className="hint"),
             grid(f"{P}-track", track_cols, rows=track_rows, height=380, file_name="roofline_record.csv")),
        card(html.H2("Estimates per workload"),
             panel.downloads(P, "one HTML file for a design review (the estimates, the rule's record, the "
                                "device's specs); it opens offline", table=False),
             dcc.Graph(id=f"{P}-hypo-graph", figure=graph),
             grid(f"{P}-hypo-workloads", cols, rows=rows, height=420,
                 file_name="never_measured_gpu_estimates.csv")),
    ], id=f"{P}-hypo-view", style=style)


register_dataset_dependents(P)
register_url_sync(P, NAMES + VIEW_NAMES, FORM_IDS + [f"{P}-{n}" for n in VIEW_NAMES])
register_job(P, NEWAPP, FORM_IDS)
for _g in ("methods", "workloads", "apps", "track", "hypo-workloads"):
    register_csv(f"{P}-{_g}")


@callback(Output(f"{P}-application", "options"), Output(f"{P}-application", "value"),
          Output(f"{P}-devices", "value", allow_duplicate=True),
          *[Output(f"{P}-{p}", "options") for p in ROLE_PARAMS], *[Output(f"{P}-{p}", "value") for p in ROLE_PARAMS],
          Input(f"{P}-dataset", "value"), prevent_initial_call=True)
def _dataset_changed(ds_id):
    try:
        ds = datasets.get(ds_id)
    except (LookupError, TypeError):
        return (no_update,) * (3 + 2 * len(ROLE_PARAMS))
    apps = ds.applications()
    shipped = ds.kind == "shipped"
    roles = [[{"label": f"auto ({ROLES[r]} when present)" if c == AUTO else c, "value": c}
              for c in role_choices({"dataset": ds_id}, r)] for r in ROLE_PARAMS.values()]
    return (apps, ("heartwall" if "heartwall" in apps else (apps[0] if apps else None)),
            devices.SHIPPED if shipped else no_update, *roles, *[AUTO] * len(ROLE_PARAMS))


@callback(Output(f"{P}-host_device", "disabled"), Output(f"{P}-target_device", "disabled"),
          Output(f"{P}-devices", "disabled"), Output(f"{P}-devices-upload", "disabled"),
          Output(f"{P}-devices-button", "disabled"), *[Output(f"{P}-{p}", "disabled") for p in ROLE_PARAMS],
          Output(f"{P}-typed-fields", "style"), Output(f"{P}-table-fields", "style"),
          Output(f"{P}-measured-fields", "style"),
          Input(f"{P}-dataset", "value"), Input(f"{P}-mode", "value"), prevent_initial_call=True)
def _controls(ds_id, mode):
    """Which controls apply: device tables and counter roles only on an upload; the typed specs, the table row
    or the held-out application by what is predicted."""
    try:
        shipped = datasets.get(ds_id).kind == "shipped"
    except (LookupError, TypeError):
        shipped = True
    upload_off = shipped or not may_change()  # a viewer's upload stays off (editor_only in the layout)
    return (*[shipped] * 3, upload_off, upload_off, *[shipped] * len(ROLE_PARAMS), _shown(mode == "typed"),
            _shown(mode == "table"),
            _shown(mode not in ("typed", "table")))


@callback(Output(f"{P}-devices", "options"), Output(f"{P}-devices", "value", allow_duplicate=True),
          Output(f"{P}-devices-status", "children"), Input(f"{P}-devices-upload", "contents"),
          State(f"{P}-devices-upload", "filename"), prevent_initial_call=True)
def _devices_uploaded(contents, filename):
    """Validate and store an uploaded device table; it becomes the page's device table."""
    if why := refused("editor", "upload"):
        return no_update, no_update, alert(why)
    try:
        table = parse_upload(decode_upload(contents), filename if isinstance(filename, str) else None)
        meta = devices.save_devices(table.frame, filename if isinstance(filename, str) else "device table")
    except (ModelingError, ValueError, TypeError) as exc:
        return no_update, no_update, alert(f"Device table not used: {exc}")
    return devices.options(), meta["id"], alert(f"Device table stored: {', '.join(meta['devices'][:12])}.", "info")


@callback(Output(f"{P}-host_device", "options"), Output(f"{P}-target_device", "options"),
          Output(f"{P}-host_device", "value", allow_duplicate=True),
          Output(f"{P}-target_device", "value", allow_duplicate=True),
          Output(f"{P}-gpu", "options"), Output(f"{P}-gpu", "value"),
          Input(f"{P}-devices", "value"), State(f"{P}-dataset", "value"), State(f"{P}-gpu", "value"),
          prevent_initial_call=True)
def _device_table_chosen(dev_id, ds_id, gpu):
    try:
        rows = devices.device_names(dev_id)
        ds = datasets.get(ds_id)
    except (LookupError, TypeError):
        return (no_update,) * 6
    names = [work.NO_DEVICE, *rows]
    gpu = gpu if gpu in rows else rows[-1]
    if ds.kind == "shipped":
        return names, names, no_update, no_update, rows, gpu
    return names, names, work.NO_DEVICE, work.NO_DEVICE, rows, gpu


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
    ok = set(ds.hosts)  # the browser's values may be anything (a forged list or dict is not a device)

    def known(v):
        return isinstance(v, str) and v in ok
    return (host if known(host) else no_update), (target if known(target) else no_update)


@callback(Output(f"{P}-cal", "options"), Output(f"{P}-cal", "value", allow_duplicate=True),
          Input(f"{P}-ready", "data"), State(f"{P}-cal", "value"), prevent_initial_call=True)
def _cal_choices(ready, current):
    run = jobs.result_for(ready)
    if not isinstance(run, HeldOutRun):
        return no_update, no_update
    opts = calibration_options(run.params, run.application.rows)
    keep = current if any(o["value"] == current for o in opts) else None
    return opts, keep


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-cal-status", "children"),
          Output(f"{P}-methods", "columnDefs"), Output(f"{P}-methods", "rowData"), Output(f"{P}-graph", "figure"),
          Output(f"{P}-workloads", "columnDefs"), Output(f"{P}-workloads", "rowData"),
          Output(f"{P}-apps-graph", "figure"), Output(f"{P}-apps", "columnDefs"), Output(f"{P}-apps", "rowData"),
          Input(f"{P}-ready", "data"), Input(f"{P}-cal", "value"), Input(f"{P}-cal_time", "value"),
          prevent_initial_call=True)
def _render(ready, cal, cal_time):
    return measured_content(jobs.result_for(ready), cal, cal_time)


@callback(Output(f"{P}-hypo-summary", "children"), Output(f"{P}-track", "columnDefs"), Output(f"{P}-track", "rowData"),
          Output(f"{P}-hypo-graph", "figure"), Output(f"{P}-hypo-workloads", "rowData"),
          Output(f"{P}-hypo-workloads", "columnDefs"), Output(f"{P}-measured-view", "style"),
          Output(f"{P}-hypo-view", "style"), Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render_hypo(ready):
    return hypo_content(jobs.result_for(ready))


def _hypo_report(run):
    """The report of a never-built GPU's estimates and its file's stem (None for a measured application's)."""
    if not isinstance(run, UnbuiltGpuRun):
        return None
    from dashboard.newapp.report import build
    from dashboard.ui.report import view_link

    return build(run, view_link("/new-app", run.params)), f"perfcast_unbuilt_gpu_{run.device_name}"


panel.register(panel.Panel(P, lambda ready: jobs.result_for(ready), report=_hypo_report))
