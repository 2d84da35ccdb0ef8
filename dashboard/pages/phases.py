"""Phase-level prediction (LACross): target cycles and power per program phase on held-out programs."""


import dash
from dash import Input, Output, State, callback, dcc, html, no_update

from dashboard.access.projects import refused
from dashboard import jobs
from dashboard.jobs.panel import job_panel, message, register_job
from dashboard.phases import host_traces, sources, views, work
from dashboard.phases.figures import NAMES, new_program, per_program, sweep, trace
from dashboard.phases.kinds import NEW_PROGRAM, PHASES, SWEEP
from dashboard.phases.results import NewProgramRun, PhasesRun
from dashboard.state.uploads import decode_upload
from dashboard.ui import prediction_panel as panel
from dashboard.ui.roles import editor_only
from dashboard.ui.components import alert, card, grid, num_col, register_csv, register_stored_upload
from dashboard.ui.fields import dropdown, field
from dashboard.ui.figures import empty
from dashboard.ui.share import register_url_sync, share_box
from dashboard.ui.url_state import InvalidParameter, parse_or_default
from dashboard.phases.new_program_text import np_rows
from dashboard.ui.summary_card import summary_card
from modeling.intervals.conformal import LEVEL_MAX, LEVEL_MIN

dash.register_page(__name__, path="/phases", name="Phases", title="perfcast · phases", order=6,
                   description=("Predict a target's cycles and power per program phase from host counters "
                                "(LACross), program by program, beside the global model and simple baselines."))

P = "phases"
PARAMS = list(PHASES.params)
NAMES_ = PHASES.names
FORM_IDS = [f"{P}-{n}" for n in NAMES_]
SWEEP_IDS = [f"{P}-{n}" if n != "cache_l" else f"{P}-cache_l" for n in SWEEP.names]
VIEW = ["program"]
NP = f"{P}-new"  # the "Predict a new program" panel; its URL names start with np_
NP_NAMES = NEW_PROGRAM.names
NP_FORM_IDS = [f"{NP}-{n[3:]}" for n in NP_NAMES]
LABELS = {"eps": "neighbourhood eps (percentile of training distances; 100 = global, cv = chosen by CV)",
          "T": "l1 bound T (multiple of the global NNLS norm; inf = none, cv = chosen by CV)"}


def _text(id_, value, placeholder):
    return dcc.Input(id=f"{P}-{id_}", type="text", value=value, placeholder=placeholder, debounce=True,
                     className="text-input")


def _freq_options(source):
    return [{"label": "as in the table" if f == 0 else f"{f} MHz", "value": f}
            for f in (sources.frequencies(source) or [0])]


def granularity_rule(source, host_freq, target_freq):
    """The one granularity rule for a source and pair (the field's default, minimum and hint)."""
    try:
        return sources.granularity(source, host_freq, target_freq)
    except (LookupError, TypeError, ValueError):
        return sources.granularity(sources.SHIPPED, 1000, 2000)


def _form(v):
    rule = granularity_rule(v["source"], v["host_freq"], v["target_freq"])
    return html.Div([
        field("Data", html.Div([
            dropdown(f"{P}-source", sources.options(), v["source"]),
            editor_only(dcc.Upload(html.Button("Upload a trace or phase table", className="btn btn-small"),
                       id=f"{P}-upload", max_size=60_000_000), "upload")]),
              "a trace in the armpm layout (tab-separated, #Timestamp header) or a phase table (CSV/Parquet "
              "with program, host_<EVENT>, host_time_s, host_power_w, target_cycles, target_time_s, "
              "target_power_w)"),
        field("Host frequency", dropdown(f"{P}-host_freq", _freq_options(v["source"]), v["host_freq"]),
              "counters measured on the Cortex-A15 at this clock"),
        field("Target frequency", dropdown(f"{P}-target_freq", _freq_options(v["source"]), v["target_freq"]),
              "another clock: the prediction; the host's own clock: one run predicts its repeat (the noise "
              "floor)"),
        field("Predict", dropdown(f"{P}-target", [{"label": "cycles per phase", "value": "cycles"},
                                                 {"label": "average power per phase", "value": "power"}],
                                  v["target"])),
        field("Features", dropdown(f"{P}-features", [{"label": "host PMU counters (paper)", "value": "counters"},
                                                    {"label": "counters + host phase time and power",
                                                     "value": "counters+host"}], v["features"])),
        field("Normalization", dropdown(f"{P}-norm", [{"label": "standardized rates + bias", "value": "z"},
                                                     {"label": "per-instruction rates", "value": "rate"},
                                                     {"label": "raw counts (paper)", "value": "raw"}], v["norm"])),
        field("eps", _text("eps", v["eps"], "cv"), LABELS["eps"]),
        field("T", _text("T", v["T"], "cv"), LABELS["T"]),
        field("Granularity (instructions per phase)", dcc.Input(id=f"{P}-granularity", type="number",
                                                                value=v["granularity"], min=rule.finest, step="any",
                                                                debounce=True, className="num-input"),
              html.Span(rule.hint, id=f"{P}-granularity-hint")),
        field("Folds (by program)", dcc.Input(id=f"{P}-folds", type="number", min=2, max=10, step=1,
                                              value=v["folds"], className="num-input")),
        field("Seed", dcc.Input(id=f"{P}-seed", type="number", min=0, step=1, value=v["seed"],
                                className="num-input")),
    ], className="form-grid")


def _np_form(v):
    try:
        freqs = _np_freq_options(v["np_source"])
    except LookupError:
        freqs = []
    try:
        trace_opts = [] if v["np_trace"] == host_traces.NONE else [
            {"label": host_traces.trace_meta(v["np_trace"])["name"], "value": v["np_trace"]}]
    except LookupError:
        trace_opts = []
    return html.Div([
        field("Train on", dropdown(f"{NP}-source", sources.options(), v["np_source"]),
              "the programs the model learns from, and the frequencies and events offered: the shipped cBench "
              "traces or a trace uploaded above"),
        field("Host trace", html.Div([
            dcc.Dropdown(id=f"{NP}-trace", options=trace_opts, value=v["np_trace"] if trace_opts else None,
                         placeholder="upload the host run first", clearable=False),
            editor_only(dcc.Upload(html.Button("Upload the host run", className="btn btn-small"), id=f"{NP}-upload",
                       max_size=60_000_000), "upload")]),
              "the program's run on the host only: per-sample (CSV/Parquet like the shipped armpm_samples: program, "
              "run, freq_mhz, duration_s, power_w, PMU events), the raw armpm trace, or a phase table's host "
              "columns; target columns are dropped, never read"),
        field("Host frequency", dropdown(f"{NP}-host_freq", freqs, v["np_host_freq"]), "the uploaded run's clock"),
        field("Target frequency", dropdown(f"{NP}-target_freq", freqs, v["np_target_freq"])),
        field("Predict", dropdown(f"{NP}-target", [{"label": "cycles per phase", "value": "cycles"},
                                                  {"label": "average power per phase", "value": "power"}],
                                  v["np_target"])),
        field("Model", dropdown(f"{NP}-model", [{"label": "auto: the winner of program-grouped CV", "value": "auto"}]
                                + [{"label": NAMES[m], "value": m} for m in NAMES], v["np_model"])),
        field("Interval level", dcc.Input(id=f"{NP}-level", type="number", min=LEVEL_MIN, max=LEVEL_MAX,
                                          step=0.01, value=v["np_level"], className="num-input"),
              f"{LEVEL_MIN:g} – {LEVEL_MAX:g}"),
    ], className="form-grid")


def _np_freq_options(source) -> list[dict]:
    return [{"label": f"{f} MHz", "value": f} for f in sources.frequencies(source)]


def _np_content(res):
    """Summary, chart and table rows of a new program's prediction."""
    if not res:
        return None, empty("Upload a host run and press Predict to see its predicted target trace"), []
    summary = summary_card(res.summary(), NP)
    return summary, new_program(res), np_rows(res)


def _np_card(v, res, request):
    summary, fig, rows = _np_content(res)
    unit = res.prediction.unit if res else "cycles"
    dec = 0 if unit == "cycles" else 4
    return card(
        html.H2("Predict a new program"),
        html.P("A program never run on the target: upload its host run, and its target trace is predicted phase by "
               "phase from the chosen data's programs (the model that won program-grouped cross-validation, unless you "
               "choose one), with intervals; nothing here is measured on the target.", className="hint"),
        _np_form(v), html.Div(id=f"{NP}-upload-status"), job_panel(NP, request, "Predict the target trace"),
        share_box(NP),
        html.Div(summary, id=f"{NP}-summary"),
        dcc.Graph(id=f"{NP}-graph", figure=fig),
        panel.downloads(NP, "one row per phase and the whole program, with provenance (model, trace id, training "
                            "fingerprint, code version, date); the report is one HTML file that opens offline"),
        *panel.save_controls(NP, listed_on="/predict"),
        grid(f"{NP}-table", [num_col("phase", "phase", 0), num_col("start", "start (×10⁹ instructions)", 2),
                             num_col("predicted", f"predicted ({unit})", dec), num_col("lower", "lower", dec),
                             num_col("upper", "upper", dec), {"field": "fallback", "headerName": "fall-back"}],
             rows=rows, height=300, file_name="phases_new_program_view.csv"))


def layout(**query):
    np_query = {k: query.pop(k) for k in list(query) if k.startswith("np_")}
    nv, np_error = parse_or_default(np_query, list(NEW_PROGRAM.params))
    np_request = None
    if np_query and not np_error and nv["np_trace"] != host_traces.NONE:
        try:
            np_request = NEW_PROGRAM.request(nv)
        except (InvalidParameter, LookupError) as exc:
            np_error = message(exc)
    np_res = _np_result(np_request)  # a shared link's cached prediction, drawn in this first layout
    view = {k: query.pop(k) for k in VIEW + ["cache_l"] if k in query}
    v, error = parse_or_default(query, PARAMS)
    request = None
    if query and not error:
        try:
            request = PHASES.request(v)
        except (InvalidParameter, LookupError) as exc:
            error = message(exc)
    # a cached result (a shared link) is drawn by the layout itself: no second round trip before the charts
    res = jobs.result_for(request)
    summary, rows, programs, program, programs_fig, cols, program_rows = _content(res, view.get("program"))
    if not res:
        try:
            programs = sources.programs(v["source"])
        except LookupError:
            programs = []
        program = view.get("program")
    return html.Div([
        html.H1("Phase-level prediction: cycles and power per program phase"),
        html.P("LACross fits, for every phase of a program, a non-negative model with an l1 bound on the training "
               "phases whose host counters are near it (eq. 4.1), and sums the phases into the program. Here the "
               f"host and the target are the same core at two clock frequencies ({views.data_phrase(v['source'])}); "
               "every program is held out of training in turn, "
               "and LACross is shown beside the "
               "global model and simple baselines on the same folds, so the data says which wins.",
               className="lead"),
        alert(error) if error else None,
        card(_form(v), html.Div(id=f"{P}-upload-status"), job_panel(P, request, "Predict held-out programs"),
             share_box(P)),
        html.Div(summary, id=f"{P}-summary"),
        card(html.H2("Models on held-out programs"),
             html.P("Per-phase MAPE over every held-out phase; whole-program error: per run of a held-out program "
                    "(a program's runs, e.g. on 1 and 2 cores, judged apart, as a prediction is made), cycles "
                    "summed over the run's phases and its first and last samples (the whole run), power as its "
                    "average (measured: energy / time; predicted: phase powers weighted by host phase time).",
                    className="hint"),
             grid(f"{P}-models", [{"field": "model", "headerName": "model", "minWidth": 170},
                                  num_col("per_phase_mape", "per-phase MAPE %", 2),
                                  num_col("program_mean_ape", "whole-program mean %", 2),
                                  num_col("program_max_ape", "whole-program max %", 2)],
                  rows=rows, height=260, file_name="phases_models.csv")),
        card(html.H2("Phase trace of a held-out program"),
             field("Program", dcc.Dropdown(id=f"{P}-program", options=programs, value=program,
                                           clearable=False, style={"minWidth": "320px"})),
             dcc.Graph(id=f"{P}-trace", figure=_trace_view(res, program))),
        card(dcc.Graph(id=f"{P}-programs-graph", figure=programs_fig),
             grid(f"{P}-programs", cols, rows=program_rows, height=360, file_name="phases_programs.csv")),
        card(html.H2("Accuracy, speed and unique phases against granularity"),
             html.P("The same evaluation at phases of 2, 3, 5, 10 and 20 billion instructions, eps and T fixed "
                    "(cv: the global model, T = the global NNLS norm), with the unique-phase cache at the "
                    "threshold below (l-inf, in feature units).", className="hint"),
             html.Div([field("Unique-phase threshold", dcc.Input(id=f"{P}-cache_l", type="number", min=0, step="any",
                                                                   value=view.get("cache_l", 0.05),
                                                                   className="num-input"))], className="form-grid"),
             job_panel(f"{P}-sweep", None, "Run the granularity sweep"),
             dcc.Graph(id=f"{P}-sweep-graph", figure=empty("Run the sweep to see accuracy against granularity")),
             grid(f"{P}-sweep-grid", [num_col("granularity", "instructions per phase", 0),
                                      num_col("n_phases", "phases", 0), num_col("unique_phases", "unique", 0),
                                      num_col("phases_per_second", "phases / s", 0),
                                      num_col("lacross_mape", "LACross MAPE %", 2),
                                      num_col("lacross_program_ape", "whole-program %", 2),
                                      num_col("ratio_mape", "ratio baseline MAPE %", 2)],
                  height=240, file_name="phases_granularity.csv")),
        alert(np_error) if np_error else None,
        _np_card(nv, np_res, np_request),
    ])


# one address for both panels: each share box shows it (the evaluation's and the new program's values)
_ALL_NAMES = NAMES_ + VIEW + ["cache_l"] + NP_NAMES
_ALL_IDS = FORM_IDS + [f"{P}-program", f"{P}-cache_l"] + NP_FORM_IDS
register_url_sync(P, _ALL_NAMES, _ALL_IDS)
register_url_sync(NP, _ALL_NAMES, _ALL_IDS)
register_job(P, PHASES, FORM_IDS)
register_job(NP, NEW_PROGRAM, NP_FORM_IDS)
register_csv(f"{NP}-table")
register_job(f"{P}-sweep", SWEEP, SWEEP_IDS)
for _g in ("models", "programs", "sweep-grid"):
    register_csv(f"{P}-{_g}")


# an uploaded trace or phase table is validated, stored and becomes the page's data
register_stored_upload(P, lambda contents, name: sources.save_upload(decode_upload(contents), name),
                       sources.options, views.stored_text)


@callback(Output(f"{P}-host_freq", "options"), Output(f"{P}-host_freq", "value"),
          Output(f"{P}-target_freq", "options"), Output(f"{P}-target_freq", "value"),
          Input(f"{P}-source", "value"), prevent_initial_call=True)
def _source_changed(source):
    try:
        freqs = sources.frequencies(source) or [0]
    except (LookupError, TypeError):
        return no_update, no_update, no_update, no_update
    opts = _freq_options(source)
    return opts, (1000 if 1000 in freqs else freqs[0]), opts, (2000 if 2000 in freqs else freqs[-1])


@callback(Output(f"{P}-granularity", "min"), Output(f"{P}-granularity-hint", "children"),
          Output(f"{P}-granularity", "value"), Input(f"{P}-source", "value"), Input(f"{P}-host_freq", "value"),
          Input(f"{P}-target_freq", "value"), State(f"{P}-granularity", "value"), prevent_initial_call=True)
def _granularity_rule(source, host_freq, target_freq, value):
    """The field follows the data: its minimum and hint from the one rule, and its value raised to the rule's
    default when the chosen data's samples are too large for it."""
    rule = granularity_rule(source, host_freq, target_freq)
    keep = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= rule.finest
    return rule.finest, rule.hint, value if keep else rule.value


@callback(Output(f"{NP}-source", "options"), Input(f"{P}-source", "options"), prevent_initial_call=True)
def _np_sources(_options):
    """A trace uploaded above can be trained on here too (the stored sources, listed again)."""
    return sources.options()


@callback(Output(f"{NP}-host_freq", "options"), Output(f"{NP}-host_freq", "value"),
          Output(f"{NP}-target_freq", "options"), Output(f"{NP}-target_freq", "value"),
          Input(f"{NP}-source", "value"), prevent_initial_call=True)
def _np_source_changed(source):
    """The new program's frequencies are those of the data it is trained on."""
    try:
        freqs = sources.frequencies(source)
    except (LookupError, TypeError):
        return no_update, no_update, no_update, no_update
    if not freqs:  # a phase table: the job refuses it with the reason
        return [], None, [], None
    opts = _np_freq_options(source)
    return opts, (1000 if 1000 in freqs else freqs[0]), opts, (2000 if 2000 in freqs else freqs[-1])


def _summary(res):
    return summary_card(views.summary(res), P)  # its models' table is the grid below


@callback(Output(f"{P}-summary", "children"), Output(f"{P}-models", "rowData"),
          Output(f"{P}-program", "options"), Output(f"{P}-program", "value"), Output(f"{P}-programs-graph", "figure"),
          Output(f"{P}-programs", "columnDefs"), Output(f"{P}-programs", "rowData"), Input(f"{P}-ready", "data"),
          Input(f"{P}-program", "value"), prevent_initial_call=True)
def _render(ready, program):
    return _content(jobs.result_for(ready), program)


def _content(res: PhasesRun | None, program) -> tuple:
    """Summary, models grid, the program choice, and every program's error (chart and grid) of a result."""
    if not res:
        return None, [], [], None, empty("Run to see every program's error"), [], []
    programs = views.programs_of(res)
    if program not in programs:
        program = programs[0]
    unit = res.unit
    cols = [{"field": "program", "headerName": "program", "minWidth": 200, "pinned": "left"}]
    first = res.evaluation.programs[0] if res.evaluation.programs else {}
    cols += [num_col(k, label, 0) for k, label in (("host_run", "run"), ("cores", "cores")) if k in first]
    cols += [num_col("actual", f"measured whole run ({unit})", 4 if unit == "W" else 0)]
    cols += [num_col(f"{m}|ape", f"{NAMES[m]} error %", 2) for m in res.evaluation.model_names]
    return (_summary(res), views.model_rows(res), programs, program, per_program(res), cols,
            res.evaluation.programs)


@callback(Output(f"{P}-trace", "figure"), Input(f"{P}-ready", "data"), Input(f"{P}-program", "value"),
          prevent_initial_call=True)
def _trace(ready, program):
    return _trace_view(jobs.result_for(ready), program)


def _trace_view(res: PhasesRun | None, program):
    if not res or not isinstance(program, str):
        return empty("Run to see a program's phases")
    return trace(res, program)


@callback(Output(f"{P}-sweep-graph", "figure"), Output(f"{P}-sweep-grid", "rowData"),
          Input(f"{P}-sweep-ready", "data"))
def _sweep(ready):
    res = jobs.result_for(ready)
    if not res:
        return empty("Run the sweep to see accuracy against granularity"), []
    return sweep(res), [r.grid_row for r in res.rows]


@callback(Output(f"{NP}-trace", "options"), Output(f"{NP}-trace", "value"), Output(f"{NP}-upload-status", "children"),
          Input(f"{NP}-upload", "contents"), State(f"{NP}-upload", "filename"), prevent_initial_call=True)
def _np_uploaded(contents, filename):
    """A host run: read with the upload limits, checked (missing columns named), stored by content."""
    if why := refused("editor", "upload"):
        return no_update, no_update, alert(why)
    try:
        meta = host_traces.save_trace(decode_upload(contents), filename if isinstance(filename, str) else None)
    except (ValueError, TypeError) as exc:  # ModelingError is a ValueError
        return no_update, no_update, alert(f"Not used: {exc}")
    return [{"label": meta["name"], "value": meta["id"]}], meta["id"], alert(host_traces.describe(meta), "info")


@callback(Output(f"{NP}-summary", "children"), Output(f"{NP}-graph", "figure"), Output(f"{NP}-table", "rowData"),
          Input(f"{NP}-ready", "data"), prevent_initial_call=True)
def _np_render(ready):
    return _np_content(_np_result(ready))


def _np_result(ready) -> NewProgramRun | None:
    """The new program's prediction a store names (a prediction stored before the results were typed is read
    as one through its from-dict path)."""
    return NewProgramRun.read(jobs.result_for(ready))


def _np_report(run: NewProgramRun):
    """The report of a new program's predicted trace and its file's stem."""
    from dashboard.phases.report import build_new_program
    from dashboard.ui.report import view_link

    return (build_new_program(run, view_link("/phases", run.params)),
            f"perfcast_phases_{run.prediction.program}_{run.prediction.target}")


def _np_name(run: NewProgramRun) -> str:
    return f"{run.prediction.program} {run.prediction.target}"


panel.register(panel.Panel(
    NP, _np_result, key_of=lambda ready: jobs.key_of(ready), export=work.predict_new_export,
    report=_np_report, saving=panel.Saving(panel.prediction_store("phases", work.prediction_table, work.saved_summary,
                                                                  _np_name), listed_on="/predict")))
