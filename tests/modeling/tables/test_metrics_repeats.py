"""APE, E_out, inlier ratio (RastSim eqs. 3-5) and the MAD filter (HALWPE VI.A)."""

import numpy as np
import pytest

from modeling.errors import DataError
from modeling.metrics import ape, inlier_ratio, inlier_ratios, mean_ape, percent_safe
from modeling.tables.repeats import MAD_SCALE, mad_window


def test_ape_and_e_out_hand_computed():
    y = np.array([100.0, 200.0, 50.0, 400.0])
    f = np.array([110.0, 150.0, 50.0, 500.0])
    assert np.allclose(ape(y, f), [10.0, 25.0, 0.0, 25.0])
    assert mean_ape(y, f) == pytest.approx(15.0)


def test_inlier_ratio_hand_computed():
    a = [0.5, 4.0, 10.0, 10.1, 19.0, 35.0, 60.0, 100.0]
    assert inlier_ratio(a, 10) == pytest.approx(37.5)  # APE <= T counts (eq. 5)
    r = inlier_ratios(a)
    assert r == {"1": 12.5, "5": 25.0, "10": 37.5, "15": 50.0, "20": 62.5, "30": 62.5, "40": 75.0, "50": 75.0}


def test_percent_safe_excludes_nonpositive_and_tiny():
    y = np.array([1.0, 2.0, 0.0, -3.0, 1e-12, 5.0])
    assert percent_safe(y).tolist() == [True, True, False, False, False, True]
    with pytest.raises(DataError, match="non-zero"):
        ape(np.array([0.0, 1.0]), np.array([1.0, 1.0]))


def test_mad_window_constructed_sample():
    runs = np.array([100.0, 101, 99, 100, 102, 98, 100, 130, 60])
    w = mad_window(runs, k=7)
    assert w.median == 100.0
    # |x - 100| = 0,1,1,0,2,2,0,30,40 -> median 1 -> scaled MAD 1.4826
    assert w.mad == pytest.approx(MAD_SCALE)
    assert w.high == pytest.approx(100 + 7 * MAD_SCALE)
    assert w.inlier.tolist() == [True] * 7 + [False, False]
    assert w.mean_inliers == pytest.approx(100.0)
    assert w.n_outliers == 2
    assert mad_window(runs, k=30).n_outliers == 0


def test_mad_window_zero_mad_keeps_all_and_bad_input():
    assert mad_window([5, 5, 5, 6]).n_outliers == 0
    with pytest.raises(DataError):
        mad_window([])
    with pytest.raises(DataError):
        mad_window([1.0, np.nan])
    with pytest.raises(DataError):
        mad_window([1.0, 2.0], k=0)


def test_a_level_shift_and_two_interleaved_levels_are_named_not_called_outliers():
    from modeling.tables.repeats import structure

    rng = np.random.default_rng(2)
    shifted = np.r_[rng.normal(9.0, 0.05, 162), rng.normal(8.0, 0.05, 350)]  # the first 162 runs slower
    s = structure(shifted)
    assert s.kind == "level shift" and s.split == 162 and s.levels[0] == pytest.approx(9.0, abs=0.02)
    assert mad_window(shifted).n_outliers >= 150  # what the filter alone would report
    mixed = rng.permutation(shifted)
    m = structure(mixed)
    assert m.kind == "bimodal" and m.low_share == pytest.approx(350 / 512)
    assert structure(rng.normal(8.0, 0.05, 512)).kind == "none"
    noisy = rng.normal(8.0, 0.05, 512)
    noisy[[10, 200, 300]] = 30.0  # three scattered outliers are outliers
    assert structure(noisy).kind == "none"
