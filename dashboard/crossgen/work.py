"""The work behind each page's background job: validated params -> a typed result
(:mod:`dashboard.crossgen.results`).

Plain functions (no Dash), so they are tested without a browser and called by
the job wrapper in :mod:`dashboard.jobs.runner`. ``report(fraction, label)`` receives
progress.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from dashboard import settings
from dashboard.crossgen.results import (ApplyRun, CompareRun, CompareSide, GenerationsRun, InputRow, RankingRun,
                                        ScenarioRun, TreeSweepRun, TargetRow)
from dashboard.jobs.progress import silent
from dashboard.state import datasets
from modeling.crossgen.ensemble import categories_of

#: Worker processes per job for the ensemble's (model, fold) fits.


def scenario_result(params: dict, report=silent) -> ScenarioRun:
    """Leaderboard, out-of-fold predictions and step tables of one scenario."""
    from modeling.crossgen.ensemble import run_scenario

    from dashboard.jobs import fanout

    ds = datasets.get(params["dataset"])
    scen = ds.scenario(params["host"], params["target"], params["metric"])
    shown = [0.0]

    def progress(done, total, label):
        shown[0] = done / total
        report(shown[0], label)

    runner = None
    if fanout.enabled():  # the fits over every worker, not only this job's
        from dashboard.access.projects import current_project

        cur = current_project()
        runner = fanout.runner({"project": None if cur is None else cur.id, "params": dict(params)},
                               on_wait=lambda: report(shown[0], "waiting for fits on other workers"))
    res = run_scenario(scen, models=params["preset"], cv=params["cv"], folds=params["folds"],
                       transform=params["transform"], seed=params["seed"], n_jobs=settings.JOB_WORKERS,
                       progress=progress, fit_runner=runner)
    todo = (scen.get("unmeasured") or {}).get("workload_ids") or []
    # the shipped scenario counts its unmeasured workloads among the missing rows (modeling.shipped.scenario);
    # a table's missing rows are those with a missing feature only: said once, as unmeasured
    in_missing = len(todo) if ds.kind == "shipped" else 0
    return ScenarioRun(
        dict(params), res, ds.name, ds.host_label(params["host"]),  # params: exactly the link's inputs
        categories_of(scen, res.feature_names) or [None] * len(res.feature_names),
        unmeasured_count=len(todo), unmeasured_ids=[str(i) for i in todo[:8]],  # not scored: for /predict
        missing_rows=max(scen.get("missing_rows", 0) - in_missing, 0),
        missing_reason=scen.get("missing_reason", "a missing value"),
        missing_ids=[str(i) for i in scen.get("missing_ids", [])], upload_missing=ds.notes.get("missing"))


def _prepared(params: dict) -> tuple[dict, dict]:
    """The scenario of ``params`` and its validated arrays (constant columns dropped, as in the ensemble)."""
    from modeling.crossgen.ensemble import prepare_scenario

    scen = datasets.get(params["dataset"]).scenario(params["host"], params["target"], params["metric"])
    return scen, prepare_scenario(scen)


def sweep_result(params: dict, report=silent) -> TreeSweepRun:
    """Random Forest tree-count sweep (RastSim 4.4) on the scenario's folds."""
    from modeling.crossgen.ensemble import make_splits
    from modeling.crossgen.sweep import tree_sweep

    _, d = _prepared(params)
    splits = make_splits(len(d["y"]), params["cv"], params["folds"], d["groups"], params["seed"])
    res = tree_sweep(d["X"], d["y"], splits, seed=params["seed"], n_jobs=settings.JOB_WORKERS,
                     progress=lambda done, total, label: report(done / total, label))
    return TreeSweepRun(dict(params), res)


def ranking_result(params: dict, report=silent) -> RankingRun:
    """Feature ranking of one model fitted on all workloads of the scenario."""
    from modeling.crossgen.ranking import rank_features

    scen, d = _prepared(params)
    report(0.1, f"fitting {params['model']} on {len(d['y'])} workloads")
    res = rank_features(d["X"], d["y"], d["names"], params["model"], categories=categories_of(scen, d["names"]),
                        seed=params["seed"])
    return RankingRun(dict(params), res, len(d["y"]), len(d["names"]))


def generations_result(params: dict, report=silent, *, scenario) -> GenerationsRun:
    """One host, several targets: a scenario per target, speedups vs the host.

    ``scenario(params, report) -> (key, result)`` gives one target's scenario result (it keeps the scenario
    kind's parameters of ``params``), from the cache when it is there (``kinds.cached``)."""
    ds = datasets.get(params["dataset"])
    targets = params["targets"]
    rows, keys, speedup, predicted_speedup, sim_speedup = [], {}, {}, {}, {}
    host = ds.host_metric(params["host"], params["metric"])
    for i, target in enumerate(targets):
        key, run = scenario(
            {**params, "target": target},
            lambda frac, label, i=i, t=target: report((i + frac) / len(targets), f"target {i + 1} of "
                                                      f"{len(targets)} ({t}): {label}"))
        keys[target] = key
        row = run.target_row(target)
        if host is not None:
            tv = ds.target_values(target, params["metric"])
            ratio = (host / tv).replace([np.inf, -np.inf], np.nan).dropna()
            ratio = ratio[ratio > 0]
            speedup[target] = {str(k): float(v) for k, v in ratio.items()}
            # what the page is for: the speedup the best model predicts (host / its out-of-fold prediction)
            oof = dict(zip(map(str, run.ensemble.workload_ids), run.best.oof_prediction))
            host_of = {str(k): float(v) for k, v in host.items()}
            predicted_speedup[target] = {w: host_of[w] / oof[w] for w in speedup[target]
                                         if oof.get(w, 0) > 0 and np.isfinite(host_of.get(w, np.nan))}
        times = ds.simulator_times(target)
        if times is not None:
            sim_speedup[target] = simulator_speedups(*times)
            mean = float(np.mean(list(sim_speedup[target].values()))) if sim_speedup[target] else None
            row = TargetRow(**{**asdict(row), "sim_speedup_mean": mean})
        rows.append(row)
    apps = {}
    if ds.kind == "shipped":
        from modeling import shipped

        apps = dict(zip(shipped.workloads()["workload"], shipped.workloads()["application"]))
    return GenerationsRun(dict(params), params["host"], list(targets), rows, keys, speedup, predicted_speedup,
                          sim_speedup, apps)  # params: the link's inputs, for the report


def simulator_speedups(host_seconds, sim_seconds) -> dict:
    """Per workload, simulator seconds over the model's seconds (HALWPE Fig. 12).

    The model's time is the host run that produces its features; applying the
    fitted model adds well under a millisecond per workload and is left out,
    as in the paper. Workloads missing either time are skipped.
    """
    ratio = (sim_seconds / host_seconds).replace([np.inf, -np.inf], np.nan).dropna()
    return {str(k): float(v) for k, v in ratio[ratio > 0].items()}


def apply_result(params: dict, report=silent) -> ApplyRun:
    """Train on one scenario, evaluate on a second validation set without retraining."""
    from modeling.crossgen.apply import apply_model

    ds = datasets.get(params["dataset"])
    train = ds.scenario(params["train_host"], params["train_target"], params["metric"])
    vds = datasets.get(params["val_dataset"])
    val = vds.scenario(params["val_host"], params["val_target"], params["metric"])
    hold = params.get("holdout") or []
    trows = ~np.isin(np.asarray(train["groups"]).astype(str), hold) if hold and train["groups"] is not None else None
    vrows = None
    if hold and val["groups"] is not None:
        vrows = np.isin(np.asarray(val["groups"]).astype(str), hold)
    report(0.2, f"fitting {params['model']} on the training scenario")
    res = apply_model(train, val, params["model"], params["transform"], params["seed"], trows, vrows)
    gmap = dict(zip(map(str, val["workload_ids"]), [str(g) for g in val["groups"]])) \
        if val["groups"] is not None else {}
    # params: the datasets and metric, the page says the values' unit from them
    return ApplyRun(dict(params), res, [gmap.get(w, "") for w in res.workload_ids])


#: The scenario inputs in the order /compare lists them.
COMPARED_INPUTS = ("dataset", "host", "target", "metric", "preset", "cv", "folds", "transform", "seed")


def compare_result(params: dict, report=silent, *, saved, scenario) -> CompareRun:
    """Two saved scenarios compared (:func:`modeling.crossgen.compare.compare_scenarios`).

    ``saved(id, slot) -> (record, request)`` reads a saved scenario of this project; ``scenario(params, report)
    -> (key, result)`` gives its result, from the cache when it is there."""
    from modeling.crossgen.compare import compare_scenarios

    sides, results = {}, []
    for i, side in enumerate(("A", "B")):
        slot = side.lower()
        rec, req = saved(params[slot], slot)
        key, run = scenario(req["params"], lambda frac, label, i=i, side=side:
                            report((i + frac) / 2, f"scenario {side}: {label}"))
        results.append(run.ensemble)
        sides[slot] = CompareSide(rec["id"], rec["name"], req["params"], key, run.dataset_name, run.host_label,
                                  run.ensemble.n_workloads)
    pa, pb = sides["a"].params, sides["b"].params
    inputs = [InputRow(k, str(pa.get(k)), str(pb.get(k)), pa.get(k) != pb.get(k)) for k in COMPARED_INPUTS]
    inputs[0] = InputRow(inputs[0].input, sides["a"].dataset_name, sides["b"].dataset_name, inputs[0].differs)
    return CompareRun(dict(params), sides["a"], sides["b"], inputs, compare_scenarios(*results))
