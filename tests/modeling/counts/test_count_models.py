"""Count models on planted data with known answers, the splits, and the count-table checks."""

import re

import numpy as np
import pandas as pd
import pytest

from modeling.counts import data, evaluate, models, splits
from modeling.counts.table import validate_counts
from modeling.errors import DataError, NotEnoughDataError


def _planted_poisson(seed=0):
    rng = np.random.default_rng(seed)
    X = np.array([(a, b) for a in range(8, 129, 8) for b in range(8, 129, 8)], dtype=float)
    mean = np.column_stack([3.0 * X[:, 0] ** 1.5 * X[:, 1] ** 0.5, 40.0 * X[:, 1]])
    return X, rng.poisson(mean).astype(float), mean


def test_glm_and_network_recover_a_planted_log_linear_poisson_mean():
    X, Y, mean = _planted_poisson()
    tr, te = splits.split(X, "high-low")
    glm = models.PoissonGLM().fit(X[tr], Y[tr])
    ape = np.abs(glm.predict(X[te]) - mean[te]) / mean[te]
    assert ape.mean() < 0.01  # extrapolated beyond the training range, within 1 % of the true mean
    net = models.make("pnn-tuned", seed=0).fit(X[tr], Y[tr])
    ape = np.abs(net.predict(X[te]) - mean[te]) / mean[te]
    assert ape.mean() < 0.10
    rnd_tr, rnd_te = splits.split(X, "random", 0)
    net = models.make("pnn-tuned", seed=0).fit(X[rnd_tr], Y[rnd_tr])
    assert (np.abs(net.predict(X[rnd_te]) - mean[rnd_te]) / mean[rnd_te]).mean() < 0.05


def test_a_planted_polynomial_count_is_found_exact():
    X = np.array([(n, m) for n in range(4, 41, 4) for m in range(2, 21, 2)], dtype=float)
    n, m = X[:, 0], X[:, 1]
    Y = np.column_stack([n * (n - 1) / 2 * m, n * m + 3, np.where(n.astype(int) % 8 == 0, n, 2 * n)])
    tr, te = splits.split(X, "high-low")
    poly = models.PolynomialCounts().fit(X[tr], Y[tr])
    assert poly.exact_.tolist() == [True, True, False]
    np.testing.assert_allclose(poly.predict(X[te])[:, :2], Y[te, :2], rtol=1e-9)


def test_negative_targets_are_refused_not_trained_to_nan():
    X = np.arange(1, 11, dtype=float)[:, None]
    with pytest.raises(DataError, match="zero or more"):
        models.make("pnn-paper").fit(X, -np.ones((10, 1)))


def test_splits_follow_the_paper():
    X = np.array([(a, b) for a in range(1, 11) for b in range(1, 11)], dtype=float)
    tr, te = splits.split(X, "high-low")
    cut = 1 + 0.7 * 9
    assert (X[tr] <= cut).all() and (X[te] > cut).all()
    mtr, mte = splits.split(X, "mixed")
    assert set(tr) < set(mtr) and list(mte) == list(te) and not set(mtr) & set(mte)
    rtr, rte = splits.split(X, "random", 3)
    assert len(rtr) == 70 and len(rte) == 30 and not set(rtr) & set(rte)
    assert list(splits.split(X, "random", 3)[0]) == list(rtr) and list(splits.split(X, "random", 4)[0]) != list(rtr)


def _table(over=None):
    rows = [{"program": "p", "N": n, "block": b, "count": n * (i + 1)} for n in (2, 4, 6, 8, 10, 12, 14, 16)
            for i, b in enumerate(["f:2", "f:3"])]
    df = pd.DataFrame(rows)
    df["count"] = df["count"].astype(float)
    for (i, col), v in (over or {}).items():
        df.loc[i, col] = v
    return df


@pytest.mark.parametrize("change, message", [
    ({(3, "count"): -4}, "zero or more"),
    ({(3, "count"): 2.5}, "whole numbers"),
    ({(3, "count"): np.nan}, "missing"),
])
def test_bad_counts_each_get_their_own_message(change, message):
    with pytest.raises(DataError, match=message):
        validate_counts(_table(change))


def test_a_single_size_and_an_empty_test_split_get_their_own_message():
    df = _table()
    df["N"] = 8
    with pytest.raises(DataError, match="single input size"):
        validate_counts(df.drop_duplicates(["N", "block"]))
    X = np.array([[1.0, 1.0], [1.0, 10.0], [10.0, 1.0], [2.0, 2.0]])  # no input large in both sizes
    with pytest.raises(NotEnoughDataError, match="no test points"):
        splits.split(X, "high-low")


def test_evaluation_reports_every_model_and_flags_a_periodic_block():
    n = np.arange(8, 200, 4)
    rows = []
    for v in n:
        rows += [{"program": "k", "N": v, "block": "f:3", "count": v * v},
                 {"program": "k", "N": v, "block": "f:4", "count": v % 8 // 4 * 100 + 1},
                 {"program": "k", "N": v, "block": "f:5", "count": 7}]
    prog = data.program(validate_counts(pd.DataFrame(rows)), "k")
    result = evaluate.evaluate_program(prog, "high-low", ("glm", "poly", "best"), curve=True)
    assert result.score("poly").exact_blocks == 2 and result.score("glm").exact_blocks is None
    assert result.best.mape == min(m.mape for m in result.models) and result.n_exact == 2
    r = result.cli_json()
    assert r["best_model"] == result.best.model and "exact_blocks" not in r["models"][0]
    m = {x["model"]: x for x in r["models"]}
    assert set(m) == {"glm", "poly", "best"} and r["n_test"] > 0
    assert m["poly"]["exact_blocks"] == 2  # n^2 and the constant, not the alternating block
    assert [i["block"] for i in r["irregular"]] == ["f:4"]
    # one size: every training point is in one group along N, where the block goes 1, 101, 1, 101, ...
    assert r["irregular"][0]["reason"] == "non-monotone in N"
    text = result.summary().as_text()  # what the command line prints: the irregular block with its inner error
    assert re.search(rf"^f:4 +non-monotone in N +{result.irregular[0].inner_error:,.1f}$", text, re.M)
    assert {c["fraction"] for c in r["curve"]} == set(evaluate.CURVE_FRACTIONS)
    total = [t for t in r["totals"] if t["block"] == "all blocks"][0]
    test_n = [int(x[0]) for x in r["test"]["X"]]
    assert test_n and total["actual"] == sum(v * v + (v % 8 // 4 * 100 + 1) + 7 for v in test_n)  # from the formulas
    assert total["poly"] == pytest.approx(sum(v * v + 7 for v in test_n), rel=0.05)  # exact blocks, the odd one off


def test_the_cli_prints_the_leaderboard_as_json(tmp_path, capsys):
    import json

    from modeling.__main__ import main

    path = tmp_path / "counts.csv"
    _table().to_csv(path, index=False)
    assert main(["counts", "--csv", str(path), "--models", "glm,poly,best", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    (p,) = out["programs"]
    assert p["program"] == "p" and p["n_blocks"] == 2 and p["n_test"] >= 1 and p["irregular"] == []
    assert [m["model"] for m in p["models"]] == ["glm", "poly", "best", "baseline"]  # the baseline last, beside
    poly = p["models"][1]  # linear counts: the polynomial is exact, so every metric takes its perfect value
    assert poly["mape"] == pytest.approx(0, abs=1e-9) and poly["max_ape"] == pytest.approx(0, abs=1e-9)
    assert poly["nmse"] == pytest.approx(0, abs=1e-12)
    assert poly["pearson"] == pytest.approx(1) and poly["spearman"] == pytest.approx(1)
    assert p["models"][0]["fit_seconds"] > 0
    assert main(["counts", "--csv", str(path), "--models", "nope"]) == 2
    assert "unknown model" in capsys.readouterr().err
