"""Whole applications hidden without their targets, predicted from the rest and scored afterwards
(``benchmarks/predict_new_applications.py`` measures with it; a test checks the coverage it meets on the
synthetic suite): a synthetic suite shaped like a CPU kernel suite, one split, every application hidden in turn."""

from __future__ import annotations

import time

import numpy as np

def synthetic_scenario(seed: int, n_apps=30, size_linked=False) -> dict:
    rng = np.random.default_rng(seed)
    sizes = np.maximum(20, (200 * np.exp(rng.normal(0, 0.6, n_apps))).astype(int))
    app = np.repeat(np.arange(n_apps), sizes)
    m = len(app)
    host = np.exp(rng.normal(0, 2, m))
    F = rng.uniform(0.5, 2.0, (m, 3))
    scale = 0.12 * (np.sqrt(200 / sizes) if size_linked else np.ones(n_apps))
    effect = rng.standard_t(3, n_apps) * scale
    y = host * (0.6 + 0.2 * F[:, 0]) * np.exp(effect[app] + rng.normal(0, 0.06, m))
    return {"X": np.column_stack([host, F]), "y": y, "feature_names": ["host", "a", "b", "c"],
            "workload_ids": [str(i) for i in range(m)], "groups": np.array([f"app{a}" for a in app]),
            "host_index": 0, "scenario": {}}


def _split(scen: dict, hide: np.ndarray) -> tuple[dict, dict]:
    keep = ~hide
    train = {**scen, "X": scen["X"][keep], "y": scen["y"][keep], "groups": np.asarray(scen["groups"])[keep],
             "workload_ids": [w for w, k in zip(scen["workload_ids"], keep) if k]}
    new = {"X": scen["X"][hide], "workload_ids": [w for w, h in zip(scen["workload_ids"], hide) if h],
           "groups": np.asarray(scen["groups"])[hide], "feature_names": scen["feature_names"]}
    return train, new


def one_split(scen: dict, hidden_apps, level=0.9, **kw) -> dict:
    from modeling.intervals.conformal import quoted_coverage
    from modeling.crossgen.ensemble import BASELINE
    from modeling.crossgen.predict import predict_scenario

    groups = np.asarray(scen["groups"])
    hide = np.isin(groups, list(hidden_apps))
    train, new = _split(scen, hide)
    t0 = time.perf_counter()
    res = predict_scenario(train, new, situation="new-applications", level=level, **kw)
    truth = scen["y"][hide]
    pred = np.asarray(res.predicted, float)
    out = {"hidden": sorted(map(str, hidden_apps)), "n_hidden": int(hide.sum()), "level": level,
           "used": "baseline" if res.choice.model == BASELINE else f"{res.choice.model} ({res.choice.transform})",
           "met_mean_ape": float(100 * np.mean(np.abs(pred - truth) / truth)),
           "quoted_mean_ape": res.cv_error["mean_ape"], "quoted_workloads": res.cv_error.get("mean_ape_workloads"),
           "supported": res.interval_supported, "met_coverage": None, "width": None,
           "quoted_coverage": quoted_coverage(res.cv_coverage), "coverage_workloads": res.cv_coverage["workloads"],
           "seconds": time.perf_counter() - t0}
    if res.interval_supported:
        lo, hi = np.asarray(res.lower, float), np.asarray(res.upper, float)
        out.update(met_coverage=float(100 * np.mean((lo <= truth) & (truth <= hi))),
                   width=float(np.median(hi / lo)))
    return out


def each_hidden(scen: dict, **kw) -> list[dict]:
    return [one_split(scen, [a], **kw) for a in sorted(set(np.asarray(scen["groups"]).tolist()))]


def synthetic(splits: int, size_linked: bool, hide=3, n_apps=30) -> list[dict]:
    out = []
    for s in range(splits):
        scen = synthetic_scenario(s, n_apps=n_apps, size_linked=size_linked)
        apps = np.unique(scen["groups"])
        hidden = np.random.default_rng(100 + s).choice(apps, hide, replace=False)
        out.append(one_split(scen, hidden, model="NNLS", transform="logratio", seed=s))
    return out
