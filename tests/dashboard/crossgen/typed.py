"""Small typed cross-generation results that tests build by hand (the numbers are the tests' own)."""

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
