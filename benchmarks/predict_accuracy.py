"""Accuracy and interval coverage of predictions for workloads whose target is hidden (not a test).

``python benchmarks/predict_accuracy.py [--seeds 3] [--json]`` measures, on the shipped Rodinia data:

1. **new inputs**: for host GTX-680 and targets GTX-980 and Tesla-P100, a random 30 % of the workloads
   are hidden *without their targets* (the rows are removed from the scenario; their counters are passed
   as workloads to predict), the rest trains ``recommended`` (nested CV, baseline included), and the
   hidden targets are used afterwards only to score: mean / median APE of the predictions and of the
   baseline, and the share of hidden workloads inside their 90 % interval;
2. **new applications**: each of the 4 applications hidden in turn (3 train), with the situation
   "applications not in the training data", ``recommended`` and the default interval rule (3 training
   applications cannot support a 90 % interval: the result says so and gives no bounds);
3. **new applications where there are enough applications to tell**: synthetic tables (30 applications
   of skewed sizes, an application-level random factor on the target/host ratio, 8 hidden and 22
   training each round), ``recommended`` over OLS, NNLS and Lasso, default rule;
4. **which rule holds its level on held-out applications**: the same synthetic tables with a fixed model
   (NNLS, log ratio) compare the pooled, weighted and per-application rules.

Every situation reports the held-out mean APE of the prediction and of the baseline (host x median ratio)
on the hidden workloads, the share of hidden workloads inside the 90 % interval and the interval's median
width (upper / lower); ``--table`` prints the README's table. Prints JSON with every figure (``--json``) or a
readable summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _subset(scen: dict, rows: np.ndarray) -> dict:
    out = dict(scen)
    out["X"], out["y"] = scen["X"][rows], scen["y"][rows]
    out["workload_ids"] = [scen["workload_ids"][i] for i in np.flatnonzero(rows)]
    out["groups"] = None if scen["groups"] is None else np.asarray(scen["groups"])[rows]
    return out


def _hidden(scen: dict, rows: np.ndarray) -> dict:
    """The hidden workloads as workloads to predict: counters, ids and applications; no target."""
    return {"X": scen["X"][rows], "workload_ids": [scen["workload_ids"][i] for i in np.flatnonzero(rows)],
            "groups": None if scen["groups"] is None else np.asarray(scen["groups"])[rows],
            "feature_names": scen["feature_names"]}


def _score(res, truth: np.ndarray) -> dict:
    """Held-out scores of one prediction: errors of the prediction and of the baseline on the hidden
    workloads; coverage and median width of the intervals (None when the result gives no interval)."""
    pred = np.asarray(res.predicted, float)
    ape = 100 * np.abs(pred - truth) / truth
    out = {"mean_ape": float(ape.mean()), "median_ape": float(np.median(ape)),
           "interval_supported": res.interval_supported, "coverage": None, "median_width_factor": None,
           "applicable_share": float(100 * np.mean(res.applicable)), "model": res.choice.model,
           "transform": res.choice.transform, "cv_coverage": res.cv_coverage["workloads"],
           "cv_median_width": res.cv_coverage["median_width"], "cv_mean_ape": res.cv_error["mean_ape"],
           "level_supported": res.level_supported, "baseline_used": bool(res.verdict and res.verdict.baseline_used),
           "selection_note": res.selection_note}
    if res.interval_supported:
        lo, hi = np.asarray(res.lower, float), np.asarray(res.upper, float)
        out.update(coverage=float(100 * np.mean((lo <= truth) & (truth <= hi))),
                   median_width_factor=float(np.median(hi / lo)))
    if res.baseline is not None:
        b = np.asarray(res.baseline, float)
        bape = 100 * np.abs(b - truth) / truth
        out.update(baseline_mean_ape=float(bape.mean()), baseline_median_ape=float(np.median(bape)),
                   baseline_cv_mean_ape=res.baseline_cv["mean_ape"])
    return out


def new_inputs(targets, seeds, level=0.9) -> list[dict]:
    from modeling import shipped
    from modeling.crossgen.predict import predict_scenario

    out = []
    for target in targets:
        scen = shipped.scenario("GTX-680", target)
        n = len(scen["y"])
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            hide = np.zeros(n, bool)
            hide[rng.choice(n, int(round(0.3 * n)), replace=False)] = True
            t0 = time.perf_counter()
            res = predict_scenario(_subset(scen, ~hide), _hidden(scen, hide), model="recommended",
                                   level=level, situation="new-inputs", seed=seed, n_jobs=2)
            out.append({"target": target, "seed": seed, "n_train": int((~hide).sum()), "n_hidden": int(hide.sum()),
                        "seconds": time.perf_counter() - t0, **_score(res, scen["y"][hide])})
    return out


def new_applications(targets, level=0.9, model="recommended") -> list[dict]:
    from modeling import shipped
    from modeling.crossgen.predict import predict_scenario

    out = []
    for target in targets:
        scen = shipped.scenario("GTX-680", target)
        groups = np.asarray(scen["groups"]).astype(str)
        for app in sorted(set(groups)):
            hide = groups == app
            t0 = time.perf_counter()
            res = predict_scenario(_subset(scen, ~hide), _hidden(scen, hide), model=model, level=level,
                                   situation="new-applications", n_jobs=2)
            out.append({"target": target, "hidden_application": app, "rule": res.interval_rule,
                        "n_hidden": int(hide.sum()), "seconds": time.perf_counter() - t0,
                        **_score(res, scen["y"][hide])})
    return out


def _synthetic_table(k, n_apps=30, n_hidden=8, size_linked=False, within=0.04):
    """Round ``k``'s synthetic table (see :func:`synthetic_rules`): (scen, new, hidden targets, app, hidden apps)."""
    rng = np.random.default_rng(1000 + k)
    sizes = np.maximum(3, (rng.pareto(1.2, n_apps) * 8).astype(int))[:n_apps]
    sizes = np.minimum(sizes, 300)
    app = np.repeat(np.arange(n_apps), sizes)
    m = len(app)
    host = rng.uniform(1e-4, 1e-2, m)
    F = rng.uniform(0.5, 2.0, (m, 4))
    sd = 0.5 / np.sqrt(sizes / 3.0) if size_linked else np.full(n_apps, 0.25)
    effect = rng.normal(0, sd)[app]  # what an application does differently on the target
    y = host * (0.5 + 0.3 * F[:, 0]) * np.exp(effect + rng.normal(0, within, m))
    X = np.column_stack([host, F])
    hidden_apps = rng.choice(n_apps, n_hidden, replace=False)
    hide = np.isin(app, hidden_apps)
    scen = {"X": X[~hide], "y": y[~hide], "feature_names": ["host", "a", "b", "c", "d"],
            "workload_ids": [str(i) for i in np.flatnonzero(~hide)], "groups": app[~hide].astype(str),
            "host_index": 0, "scenario": {}}
    new = {"X": X[hide], "workload_ids": [str(i) for i in np.flatnonzero(hide)], "groups": app[hide].astype(str)}
    return scen, new, y[hide], app[hide], hidden_apps


def synthetic_recommended(rounds=8, level=0.9, within=0.15) -> list[dict]:
    """``recommended`` (OLS, NNLS, Lasso x 4 transforms and the baseline) for 8 hidden applications of the
    synthetic tables, each round scored like the shipped data."""
    from modeling.crossgen.predict import predict_scenario

    out = []
    for k in range(rounds):
        scen, new, truth, _, _ = _synthetic_table(k, within=within)
        t0 = time.perf_counter()
        res = predict_scenario(scen, new, model="recommended", models="OLS,NNLS,Lasso", level=level,
                               situation="new-applications", seed=k)
        out.append({"round": k, "n_hidden": len(truth), "seconds": time.perf_counter() - t0,
                    **_score(res, truth)})
    return out


def synthetic_rules(rounds=40, level=0.9, n_apps=30, n_hidden=8, size_linked=False, within=0.04) -> dict:
    """Coverage of each rule on hidden applications of a synthetic table (see the module docstring).

    ``size_linked``: the application factor's spread shrinks with the application's size (sd 0.5 /
    sqrt(size / 3)): large applications (many inputs of regular kernels) behave alike on the target and
    dominate a pooled quantile, while the small ones differ most; else one spread (sd 0.25) for all.
    ``within``: the spread of workloads within an application (sd on the log scale)."""
    from modeling.crossgen.predict import predict_scenario
    from modeling.intervals.conformal import RULES

    per_rule = {r: {"workloads": [], "applications": [], "width": []} for r in RULES}
    for k in range(rounds):
        scen, new, truth, app_h, hidden_apps = _synthetic_table(k, n_apps, n_hidden, size_linked, within)
        for rule in RULES:
            res = predict_scenario(scen, new, model="NNLS", transform="logratio", level=level,
                                   situation="new-applications", rule=rule)
            lo, hi = np.asarray(res.lower), np.asarray(res.upper)
            inside = (lo <= truth) & (truth <= hi)
            per_rule[rule]["workloads"].append(100 * inside.mean())
            per_rule[rule]["applications"].append(100 * np.mean([inside[app_h == a].mean() for a in hidden_apps]))
            per_rule[rule]["width"].append(float(np.median(hi / lo)))
    return {r: {"coverage_workloads": float(np.mean(v["workloads"])),
                "coverage_applications": float(np.mean(v["applications"])),
                "median_width_factor": float(np.median(v["width"]))} for r, v in per_rule.items()}


def _mean(v):
    v = [x for x in v if x is not None]
    return float(np.mean(v)) if v else None


def summary_rows(ni, na, syn) -> list[dict]:
    """The README's table: per situation and data, the held-out mean APE of the recommended prediction and of
    the baseline (each run, or hidden application, weighs one), the share of hidden workloads inside the
    90 % interval (mean over runs) and the median of the runs' median width factors; ``model`` names what
    was used (the baseline when it was chosen)."""
    rows = []

    def add(situation, data, runs):
        used = sorted({"baseline" if r["baseline_used"] else f"{r['model']} ({r['transform']})" for r in runs})
        sup = [r for r in runs if r["interval_supported"]]
        rows.append({"situation": situation, "data": data, "runs": len(runs), "used": used,
                     "mean_ape": _mean([r["mean_ape"] for r in runs]),
                     "baseline_mean_ape": _mean([r["baseline_mean_ape"] for r in runs]),
                     "coverage": _mean([r["coverage"] for r in sup]),
                     "median_width": None if not sup else float(np.median([r["median_width_factor"] for r in sup])),
                     "unsupported_runs": len(runs) - len(sup)})

    for target in sorted({r["target"] for r in ni}):
        add("new inputs (random 30 % hidden)", f"shipped GPU, GTX-680 -> {target}",
            [r for r in ni if r["target"] == target])
    for target in sorted({r["target"] for r in na}):
        add("new applications (each of 4 hidden in turn)", f"shipped GPU, GTX-680 -> {target}",
            [r for r in na if r["target"] == target])
    if syn:
        add("new applications (8 of 30 hidden)", "synthetic, application random factor", syn)
    return rows


def _f(v, fmt="{:.2f}"):
    return "–" if v is None else fmt.format(v)


def table_markdown(rows) -> str:
    out = ["| situation | data | runs | used (held-out) | mean APE % | baseline mean APE % | inside the 90 % "
           "interval | median width (upper / lower) |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        cov = _f(r["coverage"], "{:.1f} %") if r["coverage"] is not None else "not supported"
        if r["unsupported_runs"] and r["coverage"] is not None:
            cov += f" ({r['unsupported_runs']} runs not supported)"
        out.append(f"| {r['situation']} | {r['data']} | {r['runs']} | {', '.join(r['used'])} | {_f(r['mean_ape'])} | "
                   f"{_f(r['baseline_mean_ape'])} | {cov} | {_f(r['median_width'], '×{:.2f}')} |")
    return "\n".join(out)


def main(argv=None) -> int:
    from benchmarks.machine import snapshot

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=1, help="random 30 %% hides per target (new inputs)")
    p.add_argument("--rounds", type=int, default=20, help="synthetic rounds of the rule comparison")
    p.add_argument("--syn-rounds", type=int, default=6, help="synthetic rounds of recommended")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    targets = ["GTX-980", "Tesla-P100"]
    t0 = time.process_time()
    out = {"machine_before": snapshot()}
    out["new_inputs"] = ni = new_inputs(targets, a.seeds)
    out["new_applications"] = na = new_applications(targets)
    out["synthetic_recommended"] = sr = synthetic_recommended(a.syn_rounds)
    out["synthetic_rules"] = syn = {
        "one spread, little within": synthetic_rules(a.rounds),
        "within = between": synthetic_rules(a.rounds, within=0.15),
        "spread shrinking with size": synthetic_rules(a.rounds, size_linked=True)}
    out["summary"] = rows = summary_rows(ni, na, sr)
    out["cpu_seconds_main_process"] = time.process_time() - t0
    out["machine_after"] = snapshot()
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print("new inputs (30 % of workloads hidden, recommended, 90 % intervals):")
    for r in ni:
        print(f"  {r['target']:11s} seed {r['seed']}: {r['model']} ({r['transform']}) mean APE {r['mean_ape']:.2f} % "
              f"median {r['median_ape']:.2f} %, coverage {_f(r['coverage'], '{:.1f}')} % "
              f"(cv {r['cv_coverage']:.1f} %), "
              f"width x{_f(r['median_width_factor'], '{:.3f}')}; baseline {r['baseline_mean_ape']:.1f} %; "
              f"{r['seconds']:.0f} s")
    print("new applications (each hidden in turn, recommended, default rule):")
    for r in na + [{**r, "target": "synthetic", "hidden_application": f"round {r['round']}"} for r in sr]:
        print(f"  {r['target']:11s} {r['hidden_application']:9s} {r['model']} ({r['transform']}) "
              f"mean APE {r['mean_ape']:.1f} % (CV {r['cv_mean_ape']:.1f} %), baseline {r['baseline_mean_ape']:.1f} % "
              f"(CV {r['baseline_cv_mean_ape']:.1f} %), coverage {_f(r['coverage'], '{:.1f} %')} (supported level "
              f"{100 * r['level_supported']:.0f} %), width {_f(r['median_width_factor'], 'x{:.2f}')}; "
              f"{r['seconds']:.0f} s")
    print("synthetic, 22 training and 8 hidden applications, NNLS (log ratio):")
    for variant, rules in syn.items():
        for rule, v in rules.items():
            print(f"  {variant:27s} {rule:15s} coverage {v['coverage_workloads']:.1f} % of workloads, "
                  f"{v['coverage_applications']:.1f} % per application, width x{v['median_width_factor']:.2f}")
    print()
    print(table_markdown(rows))
    print(f"\nCPU seconds (this process): {out['cpu_seconds_main_process']:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
