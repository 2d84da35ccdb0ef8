"""Accuracy and interval coverage of predictions for workloads whose target is hidden (not a test).

``python benchmarks/predict_accuracy.py [--seeds 3] [--json]`` measures, on the shipped Rodinia data:

1. **new inputs**: for host GTX-680 and targets GTX-980 and Tesla-P100, a random 30 % of the workloads
   are hidden *without their targets* (the rows are removed from the scenario; their counters are passed
   as workloads to predict), the rest trains ``recommended`` (nested CV, baseline included), and the
   hidden targets are used afterwards only to score: mean / median APE of the predictions and of the
   baseline, and the share of hidden workloads inside their 90 % interval;
2. **new applications**: each of the 4 applications hidden in turn (3 train), with the situation
   "applications not in the training data", for every interval rule;
3. **which rule holds its level on held-out applications** where there are enough applications to
   tell: a synthetic study (30 applications of skewed sizes, an application-level random factor on the
   target/host ratio, 8 hidden and 22 training each round) compares the pooled, weighted and
   per-application rules.

Prints JSON with every figure (``--json``) or a readable summary.
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
    pred, lo, hi = (np.asarray(v, float) for v in (res.predicted, res.lower, res.upper))
    ape = 100 * np.abs(pred - truth) / truth
    out = {"mean_ape": float(ape.mean()), "median_ape": float(np.median(ape)),
           "coverage": float(100 * np.mean((lo <= truth) & (truth <= hi))),
           "median_width_factor": float(np.median(hi / lo)),
           "applicable_share": float(100 * np.mean(res.applicable)), "model": res.model,
           "transform": res.transform, "cv_coverage": res.cv_coverage["workloads"],
           "level_supported": res.level_supported}
    if res.baseline is not None:
        b, bl, bh = (np.asarray(v, float) for v in (res.baseline, res.baseline_lower, res.baseline_upper))
        bape = 100 * np.abs(b - truth) / truth
        out.update(baseline_mean_ape=float(bape.mean()), baseline_median_ape=float(np.median(bape)),
                   baseline_coverage=float(100 * np.mean((bl <= truth) & (truth <= bh))))
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
    from modeling.crossgen.conformal import RULES
    from modeling.crossgen.predict import predict_scenario

    out = []
    for target in targets:
        scen = shipped.scenario("GTX-680", target)
        groups = np.asarray(scen["groups"]).astype(str)
        for app in sorted(set(groups)):
            hide = groups == app
            for rule in RULES:
                res = predict_scenario(_subset(scen, ~hide), _hidden(scen, hide), model=model, level=level,
                                       situation="new-applications", rule=rule, n_jobs=2)
                out.append({"target": target, "hidden_application": app, "rule": rule,
                            "n_hidden": int(hide.sum()), **_score(res, scen["y"][hide])})
    return out


def synthetic_rules(rounds=40, level=0.9, n_apps=30, n_hidden=8, size_linked=False) -> dict:
    """Coverage of each rule on hidden applications of a synthetic table (see the module docstring).

    ``size_linked``: the application factor's spread shrinks with the application's size (sd 0.5 /
    sqrt(size / 3)): large applications (many inputs of regular kernels) behave alike on the target and
    dominate a pooled quantile, while the small ones differ most; else one spread (sd 0.25) for all."""
    from modeling.crossgen.conformal import RULES
    from modeling.crossgen.predict import predict_scenario

    per_rule = {r: {"workloads": [], "applications": [], "width": []} for r in RULES}
    for k in range(rounds):
        rng = np.random.default_rng(1000 + k)
        sizes = np.maximum(3, (rng.pareto(1.2, n_apps) * 8).astype(int))[:n_apps]
        sizes = np.minimum(sizes, 300)
        app = np.repeat(np.arange(n_apps), sizes)
        m = len(app)
        host = rng.uniform(1e-4, 1e-2, m)
        F = rng.uniform(0.5, 2.0, (m, 4))
        sd = 0.5 / np.sqrt(sizes / 3.0) if size_linked else np.full(n_apps, 0.25)
        effect = rng.normal(0, sd)[app]  # what an application does differently on the target
        y = host * (0.5 + 0.3 * F[:, 0]) * np.exp(effect + rng.normal(0, 0.04, m))
        X = np.column_stack([host, F])
        hidden_apps = rng.choice(n_apps, n_hidden, replace=False)
        hide = np.isin(app, hidden_apps)
        scen = {"X": X[~hide], "y": y[~hide], "feature_names": ["host", "a", "b", "c", "d"],
                "workload_ids": [str(i) for i in np.flatnonzero(~hide)], "groups": app[~hide].astype(str),
                "host_index": 0, "scenario": {}}
        new = {"X": X[hide], "workload_ids": [str(i) for i in np.flatnonzero(hide)],
               "groups": app[hide].astype(str)}
        for rule in RULES:
            res = predict_scenario(scen, new, model="NNLS", transform="logratio", level=level,
                                   situation="new-applications", rule=rule)
            lo, hi = np.asarray(res.lower), np.asarray(res.upper)
            inside = (lo <= y[hide]) & (y[hide] <= hi)
            per_rule[rule]["workloads"].append(100 * inside.mean())
            per_rule[rule]["applications"].append(100 * np.mean([inside[app[hide] == a].mean() for a in hidden_apps]))
            per_rule[rule]["width"].append(float(np.median(hi / lo)))
    return {r: {"coverage_workloads": float(np.mean(v["workloads"])),
                "coverage_applications": float(np.mean(v["applications"])),
                "median_width_factor": float(np.median(v["width"]))} for r, v in per_rule.items()}


def main(argv=None) -> int:
    from benchmarks.machine import snapshot

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    targets = ["GTX-980", "Tesla-P100"]
    out = {"machine_before": snapshot()}
    out["new_inputs"] = ni = new_inputs(targets, a.seeds)
    out["new_applications"] = na = new_applications(targets)
    out["synthetic_rules"] = syn = {"one spread": synthetic_rules(a.rounds),
                                    "spread shrinking with size": synthetic_rules(a.rounds, size_linked=True)}
    out["machine_after"] = snapshot()
    if a.json:
        print(json.dumps(out, indent=1))
        return 0
    print("new inputs (30 % of workloads hidden, recommended, 90 % intervals):")
    for r in ni:
        print(f"  {r['target']:11s} seed {r['seed']}: {r['model']} ({r['transform']}) mean APE {r['mean_ape']:.2f} % "
              f"median {r['median_ape']:.2f} %, coverage {r['coverage']:.1f} % (cv {r['cv_coverage']:.1f} %), "
              f"width x{r['median_width_factor']:.3f}; baseline {r.get('baseline_mean_ape', float('nan')):.1f} % / "
              f"{r.get('baseline_coverage', float('nan')):.1f} %; {r['seconds']:.0f} s")
    print("new applications (each hidden in turn):")
    for r in na:
        print(f"  {r['target']:11s} {r['hidden_application']:9s} {r['rule']:15s} {r['model']} ({r['transform']}) "
              f"mean APE {r['mean_ape']:.1f} %, coverage {r['coverage']:.1f} % (supported level "
              f"{100 * r['level_supported']:.0f} %), width x{r['median_width_factor']:.2f}")
    print("synthetic, 22 training and 8 hidden applications:")
    for variant, rules in syn.items():
        for rule, v in rules.items():
            print(f"  {variant:27s} {rule:15s} coverage {v['coverage_workloads']:.1f} % of workloads, "
                  f"{v['coverage_applications']:.1f} % per application, width x{v['median_width_factor']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
