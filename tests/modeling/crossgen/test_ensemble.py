"""Ensemble evaluation: CV schemes, transforms, baseline, JSON shape, bad input."""

import json

import numpy as np
import pytest

from modeling.crossgen.ensemble import PRESETS, make_splits, run_ensemble
from modeling.errors import ConfigError, DataError, NotEnoughDataError
from modeling.metrics import ape
from modeling.results import Result


def toy(n=60, p=8, seed=0):
    rng = np.random.default_rng(seed)
    X = np.abs(rng.normal(size=(n, p))) * 10 + 1
    host = X[:, 0]
    y = 0.5 * host + 0.2 * X[:, 1] + rng.normal(scale=0.05, size=n) + 1
    groups = np.repeat(["a", "b", "c", "d"], n // 4)
    return X, y, groups


def test_presets_sizes():
    assert len(PRESETS["halwpe"]) == 13
    assert len(PRESETS["rastsim"]) == 15


def test_oof_predictions_are_out_of_fold():
    X, y, g = toy()
    r = run_ensemble(X, y, models=["OLS"], folds=5, seed=3)
    m = r.models[0]
    # recompute E_out by hand from the same folds
    from modeling.crossgen.estimators import OLSRegressor
    oof = np.empty_like(y)
    for tr, te in make_splits(len(y), "kfold", 5, None, 3):
        oof[te] = OLSRegressor().fit(X[tr], y[tr]).predict(X[te])
    assert np.allclose(m.oof_prediction, oof)
    assert m.e_out == pytest.approx(float(ape(y, oof).mean()))
    assert set(m.inlier_ratio) == {"1", "5", "10", "15", "20", "30", "40", "50"}


def test_same_seed_same_numbers_different_seed_different_folds():
    X, y, g = toy()
    a = run_ensemble(X, y, models=["RandomForest", "Lasso"], folds=5, seed=1).cli_json()
    b = run_ensemble(X, y, models=["RandomForest", "Lasso"], folds=5, seed=1).cli_json()
    c = run_ensemble(X, y, models=["RandomForest", "Lasso"], folds=5, seed=2).cli_json()
    strip = lambda d: [(m["model"], m["e_out"], m["e_in"]) for m in d["models"]]  # noqa: E731
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


def test_grouped_cv_keeps_groups_together():
    X, y, g = toy()
    for cv in ("group", "logo"):
        splits = make_splits(len(y), cv, 4, g, 0)
        for tr, te in splits:
            assert not set(g[tr]) & set(g[te])


def test_baseline_and_transforms_equal_a_hand_computation():
    """The baseline is host x median(target/host) learned per fold; the ratio transform fits target/host
    and multiplies back; the log transform fits log(target) and exponentiates: each out of fold."""
    from modeling.crossgen.estimators import OLSRegressor

    X, y, g = toy()
    splits = make_splits(len(y), "kfold", 5, None, 0)
    r = run_ensemble(X, y, models=["OLS"], folds=5, host_index=0, transform="ratio")
    base, ratio = np.empty_like(y), np.empty_like(y)
    for tr, te in splits:
        base[te] = X[te, 0] * np.median(y[tr] / X[tr, 0])
        ratio[te] = OLSRegressor().fit(X[tr], y[tr] / X[tr, 0]).predict(X[te]) * X[te, 0]
    assert r.baseline.e_out == pytest.approx(float(ape(y, base).mean()), rel=1e-12)
    assert r.models[0].e_out == pytest.approx(float(ape(y, ratio).mean()), rel=1e-9)
    assert r.cli_json()["baseline"]["e_out"] == pytest.approx(r.baseline.e_out)
    r2 = run_ensemble(X, y, models=["OLS"], folds=5, transform="log")
    logp = np.empty_like(y)
    for tr, te in splits:
        logp[te] = np.exp(OLSRegressor().fit(X[tr], np.log(y[tr])).predict(X[te]))
    assert r2.models[0].e_out == pytest.approx(float(ape(y, logp).mean()), rel=1e-9)


def test_permuted_targets_give_no_skill():
    """A leak (scaling, selection or tuning on rows of the test fold) would show as skill on targets
    that have nothing to do with the features: out of fold, no model beats the training mean."""
    rng = np.random.default_rng(5)
    X = np.abs(rng.normal(size=(120, 30))) * 10 + 1
    y = X[:, :3] @ [1.0, 0.5, 0.2] + rng.normal(scale=0.5, size=120) + 5
    real = run_ensemble(X, y, models="rastsim", folds=5, seed=0)
    y_perm = rng.permutation(y)
    perm = run_ensemble(X, y_perm, models="rastsim", folds=5, seed=0)
    mean_oof = np.empty_like(y)
    for tr, te in make_splits(len(y), "kfold", 5, None, 0):
        mean_oof[te] = y_perm[tr].mean()
    tss = float(((y_perm - mean_oof) ** 2).sum())
    for m in perm.models:
        r2_oof = 1 - float(((y_perm - np.asarray(m.oof_prediction)) ** 2).sum()) / tss
        assert r2_oof < 0.05, (m.model, r2_oof)
    assert min(m.e_out for m in real.models) < 0.5 * min(m.e_out for m in perm.models)  # the signal is found


def test_json_shape():
    X, y, g = toy()
    r = run_ensemble(X, y, models="halwpe", folds=5, host_index=0, scenario={"dataset": "toy"})
    d = json.loads(json.dumps(r.cli_json()))  # what the command line prints
    assert {"scenario", "n_workloads", "n_features", "baseline", "best", "models"} <= set(d)
    assert set(d["best"]) == {"overall", "nnls"}
    assert "NNLS" in d["best"]["nnls"]
    assert len(d["models"]) == 13
    for m in d["models"]:
        assert {"model", "e_out", "e_in", "inlier_ratio", "n_selected", "n_available", "fit_seconds"} <= set(m)
        assert 0 <= m["n_selected"] <= m["n_available"] == 8
    assert (d["best"]["overall"], d["best"]["nnls"]) == (r.best_model.model, r.best_nnls.model)
    name, e = r.star  # the lowest E_out, the baseline counted
    assert e == min([m["e_out"] for m in d["models"]] + [d["baseline"]["e_out"]]) and r.entries[name].e_out == e
    back = Result.from_dict(json.loads(json.dumps(r.to_dict())))  # the stored form reads back as the types
    assert back == r and type(back.baseline) is type(r.baseline) and back.cli_json(full=True) == r.cli_json(full=True)


def test_nonpositive_targets_excluded_and_counted():
    X, y, g = toy()
    y = y.copy()
    y[:3] = [0.0, -1.0, 1e-15]
    r = run_ensemble(X, y, models=["NNLS"], folds=5)
    assert r.excluded_rows == 3 and r.n_workloads == 57
    assert max(r.models[0].ape) < 1e6


@pytest.mark.parametrize("mutate,err,match", [
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 5, np.nan, X), y), DataError, "NaN"),
    (lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 5, np.inf, X), y), DataError, "infinite"),
    (lambda X, y: (X, np.where(np.arange(y.size) == 2, np.nan, y)), DataError, "target"),
    (lambda X, y: (np.column_stack([X, np.full(len(y), 3.0)]), y), DataError, "Constant"),
    (lambda X, y: (X[:7], y[:7]), NotEnoughDataError, "fewer than the 10"),
])
def test_bad_inputs_raise_clear_errors(mutate, err, match):
    X, y, g = toy()
    X2, y2 = mutate(X, y)
    with pytest.raises(err, match=match):
        run_ensemble(X2, y2, models=["OLS"], folds=10)


def test_group_errors():
    X, y, g = toy()
    with pytest.raises(NotEnoughDataError, match="at least 2 groups"):
        run_ensemble(X, y, models=["OLS"], cv="logo", groups=np.array(["a"] * len(y)))
    with pytest.raises(NotEnoughDataError, match="needs at least 10 applications.*leave-one-application-out"):
        run_ensemble(X, y, models=["OLS"], cv="group", folds=10, groups=g)
    with pytest.raises(ConfigError, match="group column"):
        run_ensemble(X, y, models=["OLS"], cv="group")
    with pytest.raises(ConfigError, match="Unknown model"):
        run_ensemble(X, y, models=["Magic"])
    with pytest.raises(ConfigError, match="ratio transform"):
        run_ensemble(X, y, models=["OLS"], transform="ratio")


def test_drop_constant_reports_columns():
    X, y, g = toy()
    X = np.column_stack([X, np.full(len(y), 3.0)])
    r = run_ensemble(X, y, models=["OLS"], folds=5, drop_constant=True,
                     feature_names=[f"c{i}" for i in range(9)])
    assert r.dropped_constant == ["c8"] and r.n_features == 8


def test_parallel_equals_serial():
    X, y, g = toy()
    a = run_ensemble(X, y, models=["OLS", "NNLS", "RandomForest"], folds=5, n_jobs=1)
    b = run_ensemble(X, y, models=["OLS", "NNLS", "RandomForest"], folds=5, n_jobs=2)
    assert [m.e_out for m in a.models] == [m.e_out for m in b.models]


def test_log_transform_extrapolation_stays_finite():
    from modeling.crossgen.estimators import OLSRegressor, TargetTransformRegressor
    X = np.linspace(1, 10, 30)[:, None]
    y = np.exp(X[:, 0])
    m = TargetTransformRegressor(OLSRegressor(), "log").fit(X, y)
    far = m.predict(np.array([[1e6]]))
    assert np.isfinite(far).all() and far[0] <= y.max() * 1e6 * (1 + 1e-9)
    assert np.allclose(m.predict(X), y, rtol=1e-6)


def test_progress_counts_completed_fits_and_never_runs_backwards():
    """Models train in parallel and finish out of order: progress reports fits done out of the total."""
    X, y, g = toy()
    seen = []
    run_ensemble(X, y, models="halwpe", folds=5, n_jobs=2, progress=lambda d, t, label: seen.append((d, t, label)))
    total = seen[0][1]
    assert [d for d, _, _ in seen] == list(range(1, total + 1)) and total == 13 * 6
    assert all(label.startswith(f"{d} of {t} fits done (last: ") for d, t, label in seen)


def test_log_ratio_transform_learns_a_ratio_and_predicts_in_target_units():
    X, _, g = toy()
    y = X[:, 0] * np.exp(0.1 * X[:, 1] / 10)  # log(y / host) linear in a feature
    r = run_ensemble(X, y, models=["OLS"], folds=5, host_index=0, transform="logratio")
    assert r.models[0].e_out < 1e-6
    with pytest.raises(ConfigError, match="host"):
        run_ensemble(X, y, models=["OLS"], transform="logratio")


def test_the_workloads_that_carry_a_models_error_are_a_statistic_of_its_result():
    from modeling.crossgen.ensemble import EnsembleResult, ModelResult

    apes = [1.0] * 20 + [500.0, 300.0, 200.0]
    m = ModelResult("OLS", sum(apes) / 23, 0.0, 0.0, {}, 1, 3, 0.0, [1.0] * 23, apes, [])
    k, share, order = m.error_carriers()
    assert (k, order[:2]) == (2, [20, 21]) and share == pytest.approx(800 / 1020) and m.median_ape == 1.0
    assert ModelResult("NNLS", 0.0, 0.0, 0.0, {}, 1, 3, 0.0, [1.0] * 3, [0.0] * 3, []).error_carriers()[:2] == (0, 0.0)
    r = EnsembleResult({"folds": 10}, 23, 3, ["a", "b", "c"], [str(i) for i in range(23)], None, [1.0] * 23, None, [m])
    assert r.smallest_training_fold == 20  # 23 workloads in 10 folds: the largest test fold holds 3
