"""The conformal module at the bottom of modeling/: its split-conformal intervals against MAPIE's on the same
data, its rank and the fewest units a level needs, and that it is the only place the rank is written."""

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, Ridge

from modeling.errors import ConfigError, NotEnoughDataError
from modeling.intervals import SplitConformalRegressor, conformal_quantile, conformal_rank, units_needed

ROOT = Path(__file__).resolve().parents[3]


def _data(n, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + rng.normal(scale=0.3, size=n)
    return X, (np.exp(0.3 * y) if positive else y)


@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95])
@pytest.mark.parametrize("n_conf", [20, 37, 100])
def test_split_intervals_equal_mapies_on_the_same_data(level, n_conf):
    from mapie.regression import SplitConformalRegressor as MapieSplit

    X, y = _data(60 + n_conf + 40, seed=n_conf)
    tr, cf, te = slice(0, 60), slice(60, 60 + n_conf), slice(60 + n_conf, None)
    ours = SplitConformalRegressor(Ridge(alpha=0.5), confidence_level=level).fit(X[tr], y[tr])
    pred, iv = ours.conformalize(X[cf], y[cf]).predict_interval(X[te])
    theirs = MapieSplit(Ridge(alpha=0.5), confidence_level=level, prefit=False)
    m_pred, m_int = theirs.fit(X[tr], y[tr]).conformalize(X[cf], y[cf]).predict_interval(X[te])
    np.testing.assert_allclose(pred, m_pred, rtol=1e-12)
    np.testing.assert_allclose(iv.lower, m_int[:, 0, 0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(iv.upper, m_int[:, 1, 0], rtol=1e-12, atol=1e-12)
    assert iv.level == iv.level_supported == level


def test_a_prefit_estimator_and_log_scale_intervals():
    X, y = _data(200, seed=3, positive=True)
    est = LinearRegression().fit(X[:100], np.log(y[:100]))

    class Exp:  # a fitted model of y whose log is linear
        def predict(self, Z):
            return np.exp(est.predict(Z))

    s = SplitConformalRegressor(Exp(), confidence_level=0.9, prefit=True, log_scale=True)
    with pytest.raises(ConfigError):
        s.fit(X[:100], y[:100])
    pred, iv = s.conformalize(X[100:150], y[100:150]).predict_interval(X[150:])
    r = np.sort(np.abs(np.log(y[100:150]) - est.predict(X[100:150])))
    w = r[int(np.ceil(0.9 * 51)) - 1]  # the 46th smallest of 50
    np.testing.assert_allclose(iv.upper / pred, np.exp(w))
    np.testing.assert_allclose(pred / iv.lower, np.exp(w))
    assert np.all(iv.lower > 0)


def test_too_few_scores_give_the_widest_and_the_level_they_support():
    X, y = _data(30)
    s = SplitConformalRegressor(LinearRegression(), confidence_level=0.9).fit(X[:20], y[:20])
    _, iv = s.conformalize(X[20:25], y[20:25]).predict_interval(X[25:])
    assert iv.level_supported == pytest.approx(5 / 6)
    assert s.half_width_ == pytest.approx(s.scores_.max())
    with pytest.raises(ConfigError):
        SplitConformalRegressor(LinearRegression(), confidence_level=1.0)
    with pytest.raises(ConfigError):
        SplitConformalRegressor(LinearRegression()).predict_interval(X)


def test_rank_quantile_and_units_needed_agree():
    assert [units_needed(lv) for lv in (0.5, 0.8, 0.9, 0.95, 0.99)] == [1, 4, 9, 19, 99]
    for lv in (0.5, 0.8, 0.9, 0.95, 0.99):
        n = units_needed(lv)
        assert conformal_rank(lv, n) <= n and conformal_rank(lv, n - 1) > n - 1 if n > 1 else True
    q, sup = conformal_quantile([0.4, 0.1, 0.3, 0.2], 0.5)  # rank ceil(0.5 x 5) = 3
    assert (q, sup) == (0.3, 0.5)
    q, sup = conformal_quantile(np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 6.0]]), 0.9)  # rank 4 > 3: the largest
    assert q.tolist() == [3.0, 6.0] and sup == pytest.approx(0.75)
    with pytest.raises(NotEnoughDataError):
        conformal_quantile([], 0.9)


#: Code that computes a conformal rank or the units a level needs, in the spacing :func:`_code` leaves: a ceil of a
#: level times (n + 1) in either order, a loop counting up to the rank, or the units from ``level / (1 - level)``.
RANK_CODE = re.compile(r"ceil\(\(?[\w.]+\*\(?[\w.]+\+1\)|ceil\(\([\w.]+\+1\)\*"
                       r"|while\s+[\w.]*conformal_rank\(|[\w.]+/\(1-[\w.]+\)")


def _code(text: str) -> str:
    """``text``'s code without its string literals and comments (docstrings may state the formula, code must not),
    with no spaces around operators and brackets."""
    import io
    import tokenize

    skip = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    toks = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in skip]
    return re.sub(r"\s*([()\[\]*+/\-,.])\s*", r"\1", " ".join(toks))


def test_no_other_module_writes_a_conformal_rank_or_counts_the_units_a_level_needs():
    """The rank ``ceil(level (n + 1))`` and the fewest units a level needs are computed in modeling/intervals/ only:
    no second formula (with its own rounding epsilon) and no copy of ``units_needed`` elsewhere."""
    found = []
    for pkg in ("modeling", "dashboard", "benchmarks"):
        for p in (ROOT / pkg).rglob("*.py"):
            if not p.is_relative_to(ROOT / "modeling" / "intervals") and RANK_CODE.search(_code(p.read_text())):
                found.append(str(p.relative_to(ROOT)))
    assert found == [], found


def test_the_rank_pattern_catches_the_forms_it_looks_for():
    for line in ("k = math.ceil((n + 1) * level - 1e-9)", "k = int(np.ceil(level * (n + 1) - 1e-12))",
                 "a = np.ceil(alpha_ref * (n_calib + 1)) / n_calib", "while conformal.conformal_rank(level, g) > g:",
                 "MIN_HELD_OUT = math.ceil(LEVEL / (1 - LEVEL) - 1e-9)"):
        assert RANK_CODE.search(_code(line + "\n")), line
    for line in ('"""k = ceil((n + 1) x level)"""', "x = np.ceil(a * b)  # ceil((n + 1) * level)",
                 "w = (hi - lo) / 2"):
        assert not RANK_CODE.search(_code(line + "\n")), line


def test_the_intervals_package_sits_at_the_bottom_of_modeling():
    """It imports nothing from modeling but the errors, so every method can use it."""
    import ast

    for p in (ROOT / "modeling" / "intervals").glob("*.py"):
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("modeling"):
                assert node.module.startswith(("modeling.intervals", "modeling.errors")), (p.name, node.module)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("modeling") for a in node.names), p.name
