"""The work behind /phases: validated params -> JSON results (no Dash)."""

from __future__ import annotations

import math

from dashboard.jobs.progress import silent
from dashboard.phases import sources
from modeling.phases import data
from modeling.phases.evaluate import evaluate
from modeling.phases.model import unique_representatives

#: granularities of the sweep (retired instructions per phase; the finest the traces support is ~1.6e9)
SWEEP = (2e9, 3e9, 5e9, 1e10, 2e10)


def _num(v):
    return v if v == "cv" else float(v)


def phases_result(params: dict, report=silent) -> dict:
    """Every model on held-out programs, with each phase's prediction for the traces."""
    ph, excluded = sources.phases(params["source"], params["host_freq"], params["target_freq"],
                                    params["granularity"])
    res = evaluate(ph, params["target"], params["features"], params["norm"], _num(params["eps"]),
                   _num(params["T"]), params["folds"], params["seed"],
                   progress=lambda d, t, label: report(d / t, label)).to_dict()
    res["phases"] = {"program": ph["program"].astype(str).tolist(), "instructions": ph["host_INST_RETIRED"].tolist(),
                     "actual": ph[data.TARGETS[params["target"]]].tolist()}
    res["excluded_runs"] = excluded
    res["params"] = dict(params)
    return res


def sweep_result(params: dict, report=silent) -> dict:
    """Accuracy, speed and unique phases against granularity (LACross Figs. 8-10), eps and T fixed at the
    given values (cv: the global model with T = the global NNLS norm, the setting CV chose on these traces).
    Unique phases: representatives of the l-inf cache at ``cache_l`` among all phases in the chosen
    feature units (a property of the data, whichever model is used)."""
    eps = 100.0 if params["eps"] == "cv" else float(params["eps"])
    t = 1.0 if params["T"] == "cv" else float(params["T"])
    rows = []
    for i, g in enumerate(SWEEP):
        report(i / len(SWEEP), f"granularity {g:.0e} ({i + 1} of {len(SWEEP)})")
        if i and sources.SHIPPED != params["source"] and sources.meta(params["source"])["kind"] == "phases":
            break  # a phase table has one granularity
        ph, _ = sources.phases(params["source"], params["host_freq"], params["target_freq"], g)
        res = evaluate(ph, params["target"], params["features"], params["norm"], eps, t, params["folds"],
                       params["seed"], cache_l=params["cache_l"], models=("lacross", "ratio-baseline")).to_dict()
        m = {r["model"]: r for r in res["models"]}
        d = data.design(ph, ph, params["norm"], params["features"])  # the phases' own feature units
        unique = len(set(unique_representatives(d.V, params["cache_l"]).tolist()))
        rows.append({"granularity": g, "n_phases": res["n_phases"], "unique_hit_rate": 1 - unique / res["n_phases"],
                     "unique_phases": unique,
                     "phases_per_second": res["phases_per_second"],
                     "lacross_mape": m["lacross"]["per_phase_mape"],
                     "lacross_program_ape": m["lacross"]["program_mean_ape"],
                     "ratio_mape": m["ratio-baseline"]["per_phase_mape"]})
    return {"rows": rows, "eps_pct": eps, "t_factor": None if math.isinf(t) else t, "params": dict(params)}


def predict_new_result(params: dict, report=silent) -> dict:
    """A program never run on the target: its target trace predicted from an uploaded host trace
    (:func:`modeling.phases.predict.predict_trace`), trained on the chosen data source's programs at the pair
    (the shipped cBench table, or an uploaded trace's phases), as JSON with the parameters and the
    provenance (trace id, training source and fingerprint, code version, date)."""
    from datetime import UTC, datetime

    from dashboard.phases import host_traces
    from dashboard.state.files import shipped_fingerprint
    from modeling.phases.predict import predict_trace
    from modeling.version import code_version

    meta = host_traces.trace_meta(params["np_trace"])
    source, granularity, note = params["np_source"], data.DEFAULT_GRANULARITY, None
    if source == sources.SHIPPED:
        training, name = None, "shipped cBench (ODROID-XU3)"
        fingerprint = shipped_fingerprint("armpm_samples.parquet", "armpm_phases.parquet")
    else:  # phases as fine as the uploaded trace's sampling allows (its samples may hold more than 2e9)
        granularity, note = data.supported_granularity(sources.frame(source), params["np_host_freq"],
                                                       params["np_target_freq"])
        training, _ = sources.phases(source, params["np_host_freq"], params["np_target_freq"], granularity)
        name, fingerprint = f"{sources.meta(source)['name']} (uploaded)", source
    res = predict_trace(host_traces.trace_frame(params["np_trace"]), params["np_host_freq"],
                        params["np_target_freq"], params["np_target"], params["np_model"], params["np_level"],
                        training=training, training_name=name, granularity=granularity, progress=report)
    if note:
        res.notes.insert(0, note)
    out = res.to_dict()
    out.update(params=dict(params), trace_name=meta["name"],
               provenance={"model": res.model, "trace": params["np_trace"], "trace_name": meta["name"],
                           "training": name, "training_fingerprint": fingerprint, "code_version": code_version(),
                           "date": datetime.now(UTC).isoformat(timespec="seconds")})
    return out


def predict_new_export(res: dict, fmt: str) -> tuple[bytes, str]:
    """(bytes, file name) of the prediction table of a :func:`predict_new_result` in ``fmt`` (csv or
    parquet): one row per phase and one for the whole program, with the provenance as columns."""
    import io

    df = prediction_table(res)
    p = res["params"]
    stem = f"phases_{res['program']}_{p['np_host_freq']:g}_to_{p['np_target_freq']:g}MHz_{p['np_target']}"
    stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in stem)
    if fmt == "parquet":
        buf = io.BytesIO()
        df.to_parquet(buf, index=False)
        return buf.getvalue(), f"{stem}.parquet"
    return df.to_csv(index=False).encode(), f"{stem}.csv"


def prediction_table(res: dict):
    """The prediction table of a :func:`predict_new_result` (one row per phase and one for the program)."""
    from modeling.phases.predict import PhasePrediction

    return PhasePrediction.from_dict(res).to_frame(res.get("provenance"))


def saved_summary(res: dict) -> dict:
    """What the list of saved predictions shows of a new program's predicted trace."""
    from modeling.phases.predict import PhasePrediction

    pred, p, pv = PhasePrediction.from_dict(res), res["params"], res.get("provenance") or {}
    t = pred.total
    bounds = (f"in [{t['lower']:.4g}, {t['upper']:.4g}] at {pred.level * 100:g} %" if pred.total_supported
              else f"(no {pred.level * 100:g} % interval: too few training programs)")
    return {"text": (f"{res['program']} ({res['trace_name']}), {p['np_host_freq']:g} → {p['np_target_freq']:g} MHz, "
                     f"{res['target']}: total {t['predicted']:.4g} {res['unit']} {bounds} ({res['model']}); code "
                     f"{pv.get('code_version')}, {pv.get('date')}"),
            "model": res["model"], "level": res["level"]}
