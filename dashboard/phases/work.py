"""The work behind /phases: validated params -> typed results (dashboard/phases/results.py; no Dash)."""

from __future__ import annotations

import math

from dashboard.jobs.progress import silent
from dashboard.phases import sources
from dashboard.phases.results import NewProgramRun, PhasesRun, PhaseTrace, SweepRow, SweepRun
from modeling.build import armpm
from modeling.phases import data
from modeling.phases.evaluate import evaluate
from modeling.phases.model import unique_representatives

#: granularities of the sweep (retired instructions per phase; the finest the traces support is ~1.6e9)
SWEEP = (2e9, 3e9, 5e9, 1e10, 2e10)


def _num(v):
    return v if v == "cv" else float(v)


def phases_result(params: dict, report=silent) -> PhasesRun:
    """Every model on held-out programs, with each phase's prediction for the traces."""
    ph, excluded = sources.phases(params["source"], params["host_freq"], params["target_freq"],
                                    params["granularity"])
    ev = evaluate(ph, params["target"], params["features"], params["norm"], _num(params["eps"]),
                  _num(params["T"]), params["folds"], params["seed"],
                  progress=lambda d, t, label: report(d / t, label))
    trace = PhaseTrace(ph["program"].astype(str).tolist(), ph["host_INST_RETIRED"].tolist(),
                       ph[data.TARGETS[params["target"]]].tolist(), armpm.is_edge(ph).tolist())
    return PhasesRun(dict(params), ev, trace, list(excluded))


def sweep_result(params: dict, report=silent) -> SweepRun:
    """Accuracy, speed and unique phases against granularity (LACross Figs. 8-10), eps and T fixed at the
    given values (cv: the global model with T = the global NNLS norm, the setting CV chose on these traces).
    Unique phases: representatives of the l-inf cache at ``cache_l`` among all phases in the chosen
    feature units (a property of the data, whichever model is used)."""
    eps = 100.0 if params["eps"] == "cv" else float(params["eps"])
    t = 1.0 if params["T"] == "cv" else float(params["T"])
    rows = []
    try:  # granularities finer than the data supports are left out (the one rule's finest)
        finest = sources.granularity(params["source"], params["host_freq"], params["target_freq"]).finest
    except LookupError:
        finest = 0.0
    grid = [g for g in SWEEP if g >= finest] or [max(finest, SWEEP[-1])]
    for i, g in enumerate(grid):
        report(i / len(grid), f"granularity {g:.0e} ({i + 1} of {len(grid)})")
        if i and sources.SHIPPED != params["source"] and sources.meta(params["source"])["kind"] == "phases":
            break  # a phase table has one granularity
        ph, _ = sources.phases(params["source"], params["host_freq"], params["target_freq"], g)
        ev = evaluate(ph, params["target"], params["features"], params["norm"], eps, t, params["folds"],
                      params["seed"], cache_l=params["cache_l"], models=("lacross", "ratio-baseline"))
        m = ev.scores
        core = armpm.core(ph)  # the runs' edges are no phases
        d = data.design(core, core, params["norm"], params["features"])  # the phases' own feature units
        unique = len(set(unique_representatives(d.V, params["cache_l"]).tolist()))
        rows.append(SweepRow(g, ev.n_phases, 1 - unique / ev.n_phases, unique, ev.phases_per_second,
                             m["lacross"].per_phase_mape, m["lacross"].program_mean_ape,
                             m["ratio-baseline"].per_phase_mape))
    return SweepRun(dict(params), rows, eps, None if math.isinf(t) else t)


def training_of(params: dict) -> tuple[str, str]:
    """(id, name) of the data a new program's model is trained on, for the provenance."""
    if params["np_source"] == sources.SHIPPED:
        return sources.SHIPPED, SHIPPED_NAME
    return params["np_source"], f"{sources.meta(params['np_source'])['name']} (uploaded)"


#: what the shipped training data is called in a prediction and its provenance
SHIPPED_NAME = data.SHIPPED_NAME


def predict_new_result(params: dict, report=silent) -> NewProgramRun:
    """A program never run on the target: its target trace predicted from an uploaded host trace
    (:func:`modeling.phases.predict.predict_trace`), trained on the chosen data source's programs at the pair
    (the shipped cBench table, or an uploaded trace's phases), with the parameters, the trace's name and the
    training data's fingerprint (the job runner adds the provenance: code version, date)."""
    from dashboard.phases import host_traces
    from dashboard.state.files import shipped_fingerprint
    from modeling.phases.predict import predict_trace

    meta = host_traces.trace_meta(params["np_trace"])
    source = params["np_source"]
    _, name = training_of(params)
    if source == sources.SHIPPED:
        samples = None
        fingerprint = shipped_fingerprint("armpm_samples.parquet", "armpm_phases.parquet")
    else:  # the uploaded trace's samples, cut at the one rule's granularity (its samples may hold more than 2e9)
        samples = sources.frame(source)
        fingerprint = source
    pred = predict_trace(host_traces.trace_frame(params["np_trace"]), params["np_host_freq"],
                         params["np_target_freq"], params["np_target"], params["np_model"], params["np_level"],
                         training_samples=samples, training_name=name, progress=report)
    return NewProgramRun(dict(params), pred, meta["name"], fingerprint)


def predict_new_export(run: NewProgramRun, fmt: str) -> tuple[bytes, str]:
    """(bytes, file name) of the prediction table of a :func:`predict_new_result` in ``fmt`` (csv or
    parquet): one row per phase and one for the whole program, with the provenance as columns."""
    from modeling.tables.export import export_bytes

    p, pred = run.params, run.prediction
    stem = f"phases_{pred.program}_{p['np_host_freq']:g}_to_{p['np_target_freq']:g}MHz_{p['np_target']}"
    return export_bytes(prediction_table(run), stem, fmt)


def prediction_table(run: NewProgramRun):
    """The prediction table of a :func:`predict_new_result` (one row per phase and one for the program)."""
    return NewProgramRun.read(run).to_frame()


def saved_summary(run: NewProgramRun) -> dict:
    """What the list of saved predictions shows of a new program's predicted trace."""
    run = NewProgramRun.read(run)
    pred, p, pv = run.prediction, run.params, run.provenance
    t = pred.total
    bounds = (f"in [{t['lower']:.4g}, {t['upper']:.4g}] at {pred.level * 100:g} %" if pred.total_supported
              else f"(no {pred.level * 100:g} % interval: too few training programs)")
    return {"text": (f"{pred.program} ({run.trace_name}), {p['np_host_freq']:g} → {p['np_target_freq']:g} MHz, "
                     f"{pred.target}: total {t['predicted']:.4g} {pred.unit} {bounds} ({pred.model}); code "
                     f"{pv.code_version if pv else None}, {pv.date if pv else None}"),
            "model": pred.model, "level": pred.level}
