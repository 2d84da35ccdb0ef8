"""Small typed cross-generation results that tests build by hand (the numbers are the tests' own)."""

import numpy as np
import pandas as pd

from modeling.crossgen.ensemble import EnsembleResult, ModelResult

IR = {"1": 10.0, "5": 40.0, "10": 60.0, "15": 70.0, "20": 80.0, "30": 90.0, "40": 95.0, "50": 99.0}


def model(name, oof, ape, e_out=None, inlier_ratio=None, **kw) -> ModelResult:
    """A model's result with the given out-of-fold predictions and APE (E_out: their mean unless given)."""
    e_out = sum(ape) / len(ape) if e_out is None else e_out
    values = dict(e_out_fold_mean=e_out, e_in=1.0, n_selected=1, n_available=3, fit_seconds=0.0, fold_e_out=[])
    values.update(kw)
    return ModelResult(name, e_out, values.pop("e_out_fold_mean"), values.pop("e_in"), dict(inlier_ratio or IR),
                       values.pop("n_selected"), values.pop("n_available"), values.pop("fit_seconds"), list(oof),
                       list(ape), **values)


def ensemble(observed, ids, models, baseline=None, groups=None, scenario=None, features=None) -> EnsembleResult:
    features = features or ["f1", "f2", "f3"]
    return EnsembleResult(dict(scenario or {"folds": 10}), len(observed), len(features), features, list(ids),
                          groups, list(observed), baseline, list(models))


def two_target_dataset() -> dict:
    """A saved 40-workload upload with five applications and two targets (a near and a far one): its meta."""
    from dashboard.state import datasets

    rng = np.random.default_rng(4)
    n = 40
    x = rng.uniform(1, 10, (n, 3))
    host = x @ [0.5, 0.2, 0.1] + 0.05
    df = pd.DataFrame({"workload": [f"w{i}" for i in range(n)], "app": [f"a{i % 5}" for i in range(n)],
                       "f1": x[:, 0], "f2": x[:, 1], "f3": x[:, 2], "host_t": host,
                       "t_next": host * 0.6 * rng.lognormal(0, 0.05, n),
                       "t_far": host * 0.3 * rng.lognormal(0, 0.3, n)})
    return datasets.save_dataset(df, "two targets", {
        "id_col": "workload", "group_col": "app", "targets": ["t_next", "t_far"], "features": ["f1", "f2", "f3"],
        "host_col": "host_t", "repeat_col": None, "missing": None})
