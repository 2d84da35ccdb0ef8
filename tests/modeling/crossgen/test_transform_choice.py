"""The default transform follows the target's scale: the log ratio to the host when the target spans more
than two orders of magnitude and a host metric is there, the papers' "none" otherwise."""

import numpy as np
import pytest

from modeling.crossgen.ensemble import run_ensemble
from modeling.crossgen.transform_choice import SPAN_LIMIT, default_transform, target_span, transform_warning


def _multiscale(n=300, span=6.0, seed=0):
    """Host times over ``span`` orders of magnitude; the target is the host time x a speedup that depends
    on a memory-bound share the counters reveal."""
    rng = np.random.default_rng(seed)
    host = 10 ** rng.uniform(-4, -4 + span, n)
    mem = rng.uniform(0, 1, n)
    instr = host * 3e9 * rng.uniform(0.5, 3, n)
    loads = instr * (0.1 + 0.4 * mem)
    misses = loads * (0.01 + 0.2 * mem) * rng.lognormal(0, 0.1, n)
    y = host * (0.4 + 0.5 * mem) * rng.lognormal(0, 0.05, n)
    return np.column_stack([host, instr, loads, misses]), y


def test_target_span_is_the_95th_over_the_5th_percentile_of_positive_values():
    y = np.arange(1.0, 102.0)  # 1..101: percentiles 6 and 96
    assert target_span(y) == pytest.approx(96.0 / 6.0)
    assert target_span(np.r_[y, np.nan, -5.0, 0.0]) == pytest.approx(96.0 / 6.0)
    assert target_span([np.nan, 3.0]) is None and target_span([]) is None


def test_the_rule():
    y = np.geomspace(1e-3, 1e3, 200)  # six orders of magnitude
    wide = default_transform(y, host=y / 2)
    assert wide.transform == "logratio" and wide.wide and wide.relative_possible
    assert wide.span > SPAN_LIMIT and "more than 100x" in wide.reason and "host" in wide.reason
    assert default_transform(y).transform == "none" and "no host metric is mapped" in default_transform(y).reason
    bad_host = (y / 2).copy()
    bad_host[3] = 0.0
    assert default_transform(y, bad_host).transform == "none"
    assert "zero or negative" in default_transform(y, bad_host).reason
    narrow = np.geomspace(1.0, 50.0, 200)
    assert default_transform(narrow, narrow).transform == "none" and not default_transform(narrow, narrow).wide
    # a workload not measured on the target (NaN) is ignored, its host value too
    y2, h2 = np.r_[y, np.nan], np.r_[y / 2, np.nan]
    assert default_transform(y2, h2).transform == "logratio"
    assert default_transform([1.0], [1.0]).transform == "none"
    assert default_transform(y, host=y / 2, limit=1e7).transform == "none"
    with pytest.raises(ValueError):
        default_transform(y, host=y[:5])
    assert wide.to_dict()["transform"] == "logratio"


def test_the_warning_is_for_absolute_fits_of_a_wide_target_only():
    y = np.geomspace(1e-3, 1e3, 200)
    wide = default_transform(y, y / 2)
    assert "which span 251,190x" in transform_warning("none", wide) and transform_warning("log", wide)
    assert transform_warning("ratio", wide) is None and transform_warning("logratio", wide) is None
    assert transform_warning("none", default_transform(np.geomspace(1, 50, 20), np.geomspace(1, 50, 20))) is None
    assert transform_warning("none", default_transform(y)) is None  # no host: the reason says it already


def test_on_a_multiscale_table_the_chosen_transform_keeps_errors_sane():
    """The evidence behind the rule, small: with the target as it is a linear model misses by > 100 %,
    the log ratio the rule picks brings it near the noise."""
    X, y = _multiscale()
    assert default_transform(y, X[:, 0]).transform == "logratio"
    e = {t: run_ensemble(X, y, models=["OLS", "NNLS"], folds=5, transform=t, host_index=0, seed=0).models
         for t in ("none", "ratio", "logratio")}
    assert min(m.e_out for m in e["none"]) > 100
    assert max(m.e_out for m in e["logratio"]) < 25
    assert max(m.e_out for m in e["ratio"]) < 25
