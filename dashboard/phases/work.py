"""The work behind /phases: validated params -> JSON results (no Dash)."""

from __future__ import annotations

import math

from dashboard.state import phasedata
from modeling.phases import data
from modeling.phases.evaluate import evaluate
from modeling.phases.model import unique_representatives

#: granularities of the sweep (retired instructions per phase; the finest the traces support is ~1.6e9)
SWEEP = (2e9, 3e9, 5e9, 1e10, 2e10)


def _noop(frac, label):
    pass


def _num(v):
    return v if v == "cv" else float(v)


def phases_result(params: dict, report=_noop) -> dict:
    """Every model on held-out programs, with each phase's prediction for the traces."""
    ph, excluded = phasedata.phases(params["source"], params["host_freq"], params["target_freq"],
                                    params["granularity"])
    res = evaluate(ph, params["target"], params["features"], params["norm"], _num(params["eps"]),
                   _num(params["T"]), params["folds"], params["seed"],
                   progress=lambda d, t, label: report(d / t, label))
    res["phases"] = {"program": ph["program"].astype(str).tolist(), "instructions": ph["host_INST_RETIRED"].tolist(),
                     "actual": ph[data.TARGETS[params["target"]]].tolist()}
    res["excluded_runs"] = excluded
    res["params"] = dict(params)
    return res


def sweep_result(params: dict, report=_noop) -> dict:
    """Accuracy, speed and unique phases against granularity (LACross Figs. 8-10), eps and T fixed at the
    given values (cv: the global model with T = the global NNLS norm, the setting CV chose on these traces).
    Unique phases: representatives of the l-inf cache at ``cache_l`` among all phases in the chosen
    feature units (a property of the data, whichever model is used)."""
    eps = 100.0 if params["eps"] == "cv" else float(params["eps"])
    t = 1.0 if params["T"] == "cv" else float(params["T"])
    rows = []
    for i, g in enumerate(SWEEP):
        report(i / len(SWEEP), f"granularity {g:.0e} ({i + 1} of {len(SWEEP)})")
        if i and phasedata.SHIPPED != params["source"] and phasedata.meta(params["source"])["kind"] == "phases":
            break  # a phase table has one granularity
        ph, _ = phasedata.phases(params["source"], params["host_freq"], params["target_freq"], g)
        res = evaluate(ph, params["target"], params["features"], params["norm"], eps, t, params["folds"],
                       params["seed"], cache_l=params["cache_l"], models=("lacross", "ratio-baseline"))
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

