"""Predict an application not in training: estimates with ranges, one-run calibration, warnings; or a GPU never
built or measured: the spec roofline for every workload, labelled with the same rule's error on measured GPUs."""

import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access.projects import refused
from dashboard import jobs
from dashboard.crossgen.params import METRIC_LABELS, register_dataset_dependents
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.newapp import work
from dashboard.newapp.figures import UNITS, estimates, hypothetical, per_application
from dashboard.newapp.kinds import AUTO, MODES, NEWAPP, ROLE_PARAMS, TYPED, role_choices
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
from modeling.newapp.data import ROLES
from modeling.newapp.estimators import COMPUTE_UTIL, MEMORY_FRACTION
from modeling.newapp.hypothetical import SPEC_BOUNDS

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
            dcc.Upload(html.Button("Upload device specs (CSV)", className="btn btn-small", disabled=shipped,
                                   id=f"{P}-devices-button"), id=f"{P}-devices-upload", disabled=shipped,
                       max_size=1_000_000)]),
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
    cal_opts = _cal_options(v, _workloads(v)) if v["mode"] == "measured" else []
    # a cached result (a shared link) is drawn by the layout itself: no second round trip before the charts
    cached = jobs.result_for(request)
    (summary, cal_status, methods, graph, workload_cols, workload_rows, apps_graph, app_cols,
     app_rows) = _content(cached, view.get("cal"), view.get("cal_time"))
    hypo_summary, track_rows, hypo_graph, hypo_rows, hypo_cols, measured_style, hypo_style = _hypo_content(cached)
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
        _hypo_view(hypo_summary, track_rows, hypo_graph, hypo_rows, hypo_cols, hypo_style),
        html.Div([_measured_view(summary, cal_status, cal_opts, view, v, methods, graph, workload_cols, workload_rows,
                                 apps_graph, app_cols, app_rows)], id=f"{P}-measured-view", style=measured_style),
    ])


def _measured_view(summary, cal_status, cal_opts, view, v, methods, graph, workload_cols, workload_rows, apps_graph,
                   app_cols, app_rows):
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
                 field(f"Measured on the target ({UNITS.get(v['metric'], 'target units')})",
                       dcc.Input(id=f"{P}-cal_time", type="number", min=0, step="any", debounce=True,
                                 value=view.get("cal_time"), className="num-input", placeholder="dataset value",
                                 style={"width": "14em"})),
             ], className="field-row"),
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


TRACK_COLS = [{"field": "target", "headerName": "measured target", "minWidth": 170, "pinned": "left"},
              {"field": "architecture", "headerName": "architecture", "minWidth": 110},
              {"field": "n", "headerName": "workloads", "minWidth": 96, "type": "numericColumn"},
              num_col("median_ape", "median APE %", 1), num_col("mean_ape", "mean APE %", 1),
              num_col("within_25", "within 25 %", 0), num_col("in_range", "measured inside the range %", 0)]


def _hypo_cols(metric):
    unit = UNITS.get(metric, "")
    return [{"field": "id", "headerName": "workload", "minWidth": 210, "pinned": "left"},
            {"field": "application", "headerName": "application", "minWidth": 110},
            {"field": "kernel", "headerName": "kernel", "minWidth": 160},
            {"field": "class", "headerName": "class", "minWidth": 96}] + \
        [{**si_col(k, h, unit), "minWidth": 112} for k, h in
         (("host", "host's own"), ("point", "estimate"), ("lower", "interval low"), ("upper", "interval high"),
          ("lo", "class range low"), ("hi", "class range high"))] + \
        [num_col("ratio", "ratio to host", 4)]


def _hypo_view(summary, track_rows, graph, rows, cols, style):
    return html.Div([
        html.Div(summary, id=f"{P}-hypo-summary"),
        card(html.H2("How far the same rule was on measured GPUs"),
             html.P("The spec roofline, with the same thresholds and the same host counters, on every measured "
                    "pair: its error against the measured time, and how often that time fell inside the stated "
                    "range. These figures label the estimates below; they were not measured on the typed GPU.",
                    className="hint"),
             grid(f"{P}-track", TRACK_COLS, rows=track_rows, height=380, file_name="roofline_record.csv")),
        card(html.H2("Estimates per workload"),
             html.Div([html.Button("Download report", id=f"{P}-hypo-download-report", className="btn btn-small",
                                   n_clicks=0),
                       html.Span(" one HTML file for a design review (the estimates, the rule's record, the "
                                 "device's specs); it opens offline", className="hint"),
                       dcc.Download(id=f"{P}-hypo-report")], className="run-row"),
             dcc.Graph(id=f"{P}-hypo-graph", figure=graph),
             grid(f"{P}-hypo-workloads", cols, rows=rows, height=420,
                 file_name="never_measured_gpu_estimates.csv")),
    ], id=f"{P}-hypo-view", style=style)


def _track_rows(track):
    rows = [{k: p[k] for k in ("target", "architecture", "n", "median_ape", "mean_ape", "within_25", "in_range")}
            for p in track["pairs"]]
    if track["pairs"]:
        rows.append({"target": "all pairs pooled", "architecture": ", ".join(track["architectures"]),
                     **track["pooled"]})
    if track["same_architecture"]:
        arch = track["same_architecture"].get("architecture", "")
        rows.append({"target": f"{arch} pairs pooled".strip(), "architecture": arch, **track["same_architecture"]})
    return rows


def _pct(v):
    return "–" if v is None else f"{v:.1f} %"


def _interval_stat(iv):
    """(label, value) of the error interval of a never-measured GPU's estimates."""
    if not iv:
        return "interval", "needs two measured pairs"
    cap = "" if iv["level_supported"] >= iv["level"] else \
        f"; {iv['n_pairs']} pairs support at most {iv['level_supported'] * 100:.0f} %"
    return (f"{iv['level'] * 100:g} % interval (estimate ÷/× factor)",
            f"×{iv['factor']:.2f} (each pair held out: {iv['held_out_coverage']:.0f} % inside{cap})")


def hypo_facts(res) -> list[tuple[str, str, str | None]]:
    """The headline numbers of a never-measured GPU's estimates: (label, value, component id)."""
    h = res["hypothetical"]
    d, tr, pooled = h["device"], h["track"], h["track"]["pooled"]
    same = tr["same_architecture"]
    return [
        ("device", f"{d['architecture']}, {d['sms']:.0f} SMs, {d['cuda_cores']:,.0f} cores, "
                   f"{d['boost_clock_mhz']:,.4g} MHz, {d['memory_bandwidth_gbs']:,.4g} GB/s", None),
        ("workloads estimated", f"{h['n_workloads']}", f"{P}-hypo-n"),
        ("rule's median APE on measured pairs", _pct(pooled["median_ape"]), f"{P}-hypo-median"),
        ("mean APE", _pct(pooled["mean_ape"]), f"{P}-hypo-mean"),
        ("measured inside the class range", _pct(pooled["in_range"]), f"{P}-hypo-inrange"),
        (*_interval_stat(tr.get("interval")), f"{P}-hypo-interval"),
        ("same architecture: median APE", _pct(same["median_ape"]) if same else "none measured", None),
        ("applicability", h["applicability"]["verdict"], f"{P}-hypo-verdict"),
    ]


def hypo_texts(res) -> tuple[str | None, list[str], str]:
    """(the note when the device is itself measured, the warnings, the sentence on where the figures come from)."""
    h = res["hypothetical"]
    d, tr = h["device"], h["track"]
    verdict = h["applicability"]["verdict"]
    itself = [p for p in tr["pairs"] if p["target"] == d["device"]]
    note = (f"{d['device']} is itself one of the measured targets: its row in the record below is this very "
            "estimate scored against its measured times (nothing measured on it is used for the estimate).") \
        if itself else None
    text = (f"From {res['dataset_name']}: {h['host']['device']}'s counters, {METRIC_LABELS.get(h['metric'])}. "
            f"Classes: {h['class_counts']['memory']} memory-, {h['class_counts']['compute']} compute-, "
            f"{h['class_counts']['latency']} latency-bound. The error figures come from {tr['source']} (pooled over "
            "all their workloads)"
            + ("" if verdict == "inside" else "; a device unlike those measured is an extrapolation of them") + ".")
    return note, [f"{w['title']} {w['evidence']}" for w in h["warnings"]], text


def _hypo_summary(res):
    h = res["hypothetical"]
    d = h["device"]
    note, _, text = hypo_texts(res)
    warns = [alert([html.Strong(w["title"] + " "), w["evidence"]], "warning") for w in h["warnings"]]
    return card(
        html.H2(["Spec roofline on ", html.Span(d["device"], id=f"{P}-hypo-device"), " (from its specs only)"]),
        alert(note, "info") if note else None,
        html.Div([stat(label, value, i) for label, value, i in hypo_facts(res)], className="stats"),
        html.Div(warns, id=f"{P}-hypo-warnings"),
        html.P(text, className="hint"))


def _hypo_content(res):
    """Summary, record rows, figure and per-workload rows of a never-measured GPU, and which view shows."""
    if not res or "hypothetical" not in res:
        return (None, [], empty("Press Estimate to see the estimates"), [], _hypo_cols("duration"),
                _shown_block(True), _shown_block(False))
    h = res["hypothetical"]
    return (_hypo_summary(res), _track_rows(h["track"]), hypothetical(h), h["rows"], _hypo_cols(h["metric"]),
            _shown_block(False), _shown_block(True))


def _shown_block(on):
    return {} if on else {"display": "none"}


register_dataset_dependents(P)
register_url_sync(P, NAMES + VIEW_NAMES, FORM_IDS + [f"{P}-{n}" for n in VIEW_NAMES])
register_job(P, NEWAPP, FORM_IDS)
for _g in ("methods", "workloads", "apps"):
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
    return (*[shipped] * 5, *[shipped] * len(ROLE_PARAMS), _shown(mode == "typed"), _shown(mode == "table"),
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
    if not res or "application" not in res:
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
    if not res or "application" not in res:
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


@callback(Output(f"{P}-hypo-summary", "children"), Output(f"{P}-track", "rowData"),
          Output(f"{P}-hypo-graph", "figure"), Output(f"{P}-hypo-workloads", "rowData"),
          Output(f"{P}-hypo-workloads", "columnDefs"), Output(f"{P}-measured-view", "style"),
          Output(f"{P}-hypo-view", "style"), Input(f"{P}-ready", "data"), prevent_initial_call=True)
def _render_hypo(ready):
    return _hypo_content(jobs.result_for(ready))


@callback(Output(f"{P}-hypo-report", "data"), Input(f"{P}-hypo-download-report", "n_clicks"),
          State(f"{P}-ready", "data"), prevent_initial_call=True)
def _hypo_report(n, ready):
    res = jobs.result_for(ready)
    if not res or "hypothetical" not in res or not isinstance(n, int) or n <= 0:
        return no_update
    import time

    from dashboard.ui.report import Report, Section, Table, file_name, view_link
    from modeling.version import code_version

    h = res["hypothetical"]
    note, warnings, text = hypo_texts(res)
    unit = UNITS.get(h["metric"], "")
    track = Table([(c["field"], c["headerName"]) for c in TRACK_COLS], _track_rows(h["track"]))
    rows = Table([(c["field"], c["headerName"] + (f" ({unit})" if c["field"] in ("host", "point", "lower", "upper",
                                                                                 "lo", "hi") else ""))
                  for c in _hypo_cols(h["metric"])], h["rows"], digits=5)
    report = Report(
        title=f"{h['device']['device']}: estimates for a GPU never measured (from its specs only)",
        facts=[(label, value) for label, value, _ in hypo_facts(res)],
        sections=[Section("What the estimates are, and how far the same rule was", [t for t in (note, text) if t]
                          + warnings, tables=[track]),
                  Section("Estimates per workload", figures=[hypothetical(h)], tables=[rows])],
        inputs=dict(res.get("params") or {}),
        provenance=(f"Dataset {res['dataset_name']} (fingerprint {NEWAPP.fingerprint(res['params'])}); code version "
                    f"{code_version()} (part of the result's key)."),
        link=view_link("/new-app", res.get("params") or {}),
        generated=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    return dcc.send_bytes(report.html(), file_name(f"perfcast_unbuilt_gpu_{h['device']['device']}"))
