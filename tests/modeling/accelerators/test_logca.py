"""LogCA model: thesis tables and figures, closed forms against numeric roots, implications 1-7."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from modeling.errors import ConfigError
from modeling.accelerators.logca import (LogCAParams, crossings, efficiency, energy_params, g1, g1_thesis, g_a,
                                         g_half, g_half_thesis, large_g_limit, log_grid, metrics, sep, speedup)
from modeling.accelerators.presets import OBSERVED, PRESETS, preset


def _ape(model, observed):
    observed = np.asarray(observed, float)
    return float(np.mean(np.abs(np.asarray(model) - observed) / observed) * 100)


def _random_params(rng, latency, beta_range=(0.3, 2.0)):
    return LogCAParams(L=float(10 ** rng.uniform(-2, 3)), o=float(10 ** rng.uniform(0, 6)),
                       C=float(10 ** rng.uniform(0, 3)), A=float(rng.uniform(1.5, 60)),
                       beta=float(rng.uniform(*beta_range)), latency=latency)


def test_table_4_4_single_accelerator_column_from_the_t2_aes_preset():
    t = OBSERVED["table-4.4"]
    model = speedup(preset("ultrasparc-t2:aes"), np.array(t["granularity"], float))
    ape = _ape(model, t["speedup"][1])
    assert ape < 20.0, ape  # measured 16.5 %
    # the model follows the observed shape: monotone, crossing 1 between 256 B and 1 KiB as observed
    assert np.all(np.diff(model) > 0)
    assert 256 < g1(preset("ultrasparc-t2:aes")) < 1024


def test_table_4_5_from_one_mib_on_from_the_discrete_gpu_gemm_preset():
    from modeling.accelerators.multi import pipelined_speedup

    t = OBSERVED["table-4.5"]
    g = np.array(t["granularity"], float)
    big = g >= 2**20
    ape = _ape(pipelined_speedup(preset("discrete-gpu:matrix-multiplication"), g[big], 1),
               np.array(t["speedup"][1])[big])
    assert ape < 25.0, ape  # measured 18.9 %


def test_presets_are_named_device_kernel_and_follow_the_thesis_latency_modes():
    assert len(PRESETS) == 19
    for name, p in PRESETS.items():
        device, kernel = name.split(":")
        assert name == name.lower() and " " not in name
        assert p.latency == ("dependent" if device in ("discrete-gpu", "apu") else "independent")
    assert preset("Sandy-Bridge:AES").C == 35
    with pytest.raises(ConfigError, match="unknown preset"):
        preset("nope:aes")


@pytest.mark.parametrize("latency", ["independent", "dependent"])
def test_exact_roots_agree_with_an_independent_root_finder(latency):
    rng = np.random.default_rng(1)
    for _ in range(60):
        p = _random_params(rng, latency, (0.6, 1.8))
        for target, root in ((1.0, g1(p)), (p.A / 2, g_half(p))):
            f = lambda g: float(speedup(p, g)) - target  # noqa: E731 - on the speedup itself, in bytes
            grid = np.geomspace(1e-6, 1e14, 400)
            vals = np.array([f(g) for g in grid])
            ups = np.nonzero((vals[:-1] < 0) & (vals[1:] >= 0))[0]
            if root is None:
                assert len(ups) == 0 or grid[ups[0]] > 1e13
                continue
            if not 1e-5 < root < 1e13:  # outside the bracketing grid: check the equation itself
                assert float(speedup(p, root)) == pytest.approx(target, rel=1e-8)
                continue
            assert len(ups) >= 1
            ref = brentq(f, grid[ups[0]], grid[ups[0] + 1], xtol=1e-300, rtol=1e-13, maxiter=500)
            assert root == pytest.approx(ref, rel=1e-8)


def test_closed_forms_equal_numeric_roots_independent_latency_and_at_beta_one():
    rng = np.random.default_rng(2)
    for _ in range(100):
        p = _random_params(rng, "independent")
        assert g1(p) == pytest.approx(g1_thesis(p), rel=1e-10)          # eq. 4.7
        assert g_half(p) == pytest.approx(g_half_thesis(p), rel=1e-10)  # eq. 4.8
        assert g_half(p) == pytest.approx((p.A - 1) ** (1 / p.beta) * g1(p), rel=1e-10)  # eq. 4.9
        q = _random_params(rng, "dependent").with_(beta=1.0)
        if g1_thesis(q) is not None:                                     # eq. 4.13 at beta = 1
            assert g1(q) == pytest.approx(g1_thesis(q), rel=1e-10)
        else:
            assert g1(q) is None
        if g_half_thesis(q) is not None:                                 # eq. 4.14 at beta = 1
            assert g_half(q) == pytest.approx(g_half_thesis(q), rel=1e-10)


def test_newton_forms_differ_from_exact_roots_away_from_beta_one_and_g_a_equals_g_half():
    p = preset("apu:fft")
    assert g1(p) is not None and g1_thesis(p) is not None
    assert abs(g1(p) / g1_thesis(p) - 1) > 0.1
    assert float(speedup(p, g1(p))) == pytest.approx(1.0, rel=1e-9)
    rng = np.random.default_rng(3)
    for _ in range(50):
        q = _random_params(rng, "dependent")
        assert g_a(q) == g_half(q) or g_a(q) == pytest.approx(g_half(q), rel=1e-9)  # 4.15 vs 4.14


def test_implication_1_break_even_barely_moves_with_acceleration():
    rng = np.random.default_rng(4)
    for _ in range(50):
        p = _random_params(rng, "independent")
        big, bigger = g1(p.with_(A=100 * p.A)), g1(p.with_(A=1000 * p.A))
        assert bigger / big == pytest.approx(1.0, abs=1.0 / ((100 * p.A - 1) * p.beta))


def test_implication_2_doubling_c_divides_g1_by_two_to_the_one_over_beta():
    rng = np.random.default_rng(5)
    for _ in range(100):
        p = _random_params(rng, "independent")
        assert g1(p) / g1(p.with_(C=2 * p.C)) == pytest.approx(2 ** (1 / p.beta), rel=1e-10)


def test_implication_3_doubling_a_multiplies_g_half_by_two_to_the_one_over_beta():
    rng = np.random.default_rng(6)
    for _ in range(100):
        p = _random_params(rng, "independent")
        assert g_half(p.with_(A=2 * p.A)) / g_half(p) == pytest.approx(2 ** (1 / p.beta), rel=1e-10)


def test_implication_4_sublinear_speedup_falls_at_large_granularity_with_dependent_latency():
    rng = np.random.default_rng(7)
    for _ in range(50):
        p = _random_params(rng, "dependent", (0.1, 0.95))
        g = np.geomspace(1e12, 1e18, 7)
        assert np.all(np.diff(speedup(p, g)) < 0)
        assert large_g_limit(p) == 0.0


def test_implications_5_and_6_intensity_conditions_for_sublinear_kernels():
    # from one byte on: below a byte g**beta > g and the conditions (Newton steps from g = 1) say nothing
    rng = np.random.default_rng(8)
    grid = np.geomspace(1, 1e15, 500)
    checked = 0
    for _ in range(100):
        p = _random_params(rng, "dependent", (0.1, 0.99))
        if p.C / p.L <= 1:                      # implication 5
            checked += 1
            up, down = crossings(p, 1.0)
            assert up is None or down <= 1.0
            assert np.all(speedup(p, grid) < 1)
        if p.C / p.A / p.L <= 1:                # implication 6
            up, down = crossings(p, p.A / 2)
            assert up is None or down <= 1.0
            assert np.all(speedup(p, grid) < p.A / 2)
    assert checked > 10


def test_implication_7_more_acceleration_stays_below_the_intensity_bound():
    rng = np.random.default_rng(9)
    grid = np.geomspace(16, 1e12, 200)
    seen = 0
    for _ in range(200):
        p = _random_params(rng, "dependent", (0.5, 1.0))
        if g_half_thesis(p) is not None:
            continue
        seen += 1
        for k in (1, 10, 1000):
            s = speedup(p.with_(A=k * p.A), grid)
            assert np.all(s <= p.C / p.L * grid ** (p.beta - 1) * (1 + 1e-12))
    assert seen > 20


def test_limits_and_bounds():
    p = preset("ultrasparc-t2:aes")
    assert float(speedup(p, 1e15)) == pytest.approx(p.A, rel=1e-6)                          # 4.5
    q = LogCAParams(L=2.0, o=100.0, C=50.0, A=10.0, beta=1.0, latency="dependent")
    assert float(speedup(q, 1e15)) == pytest.approx(q.C / (q.L + q.C / q.A), rel=1e-9)    # 4.11
    assert metrics(q)["bound_kind"] == "latency" and metrics(p)["bound_kind"] == "compute"
    assert metrics(preset("discrete-gpu:matrix-multiplication"))["bound_kind"] == "compute"  # 6.3, beta > 1


def test_sublinear_dependent_speedup_has_a_window_of_gain():
    p = LogCAParams(L=1.0, o=1000.0, C=200.0, A=20.0, beta=0.8, latency="dependent")
    up, down = crossings(p, 1.0)
    assert up < down
    assert float(speedup(p, up)) == pytest.approx(1.0, rel=1e-9)
    assert float(speedup(p, down)) == pytest.approx(1.0, rel=1e-9)
    assert float(speedup(p, math.sqrt(up * down))) > 1


def test_energy_model_and_sep():
    pe = energy_params(Le=2.0, oe=1e4, Ce=40.0, Ae=8.0, beta=1.1)
    g = log_grid(16, 2**24, 2)
    c = pe.C * g**pe.beta
    assert np.allclose(efficiency(pe, g), c / (pe.o + pe.L * g + c / pe.A))            # 5.4
    assert g1_thesis(pe) == pytest.approx((pe.C * 0.1 * 7 + 8 * pe.o) / (pe.C * 1.1 * 7 - 8 * pe.L))  # 5.6
    p = preset("sparc-t4:aes")
    assert np.allclose(sep(p, pe, g), speedup(p, g) * efficiency(pe, g))                 # 5.8
    with pytest.raises(ConfigError):
        efficiency(p, g)


def test_bad_parameters_raise_config_errors():
    for kw in ({"C": 0}, {"A": -1}, {"L": -1}, {"beta": 0}, {"o": float("nan")}, {"latency": "sideways"}):
        base = {"L": 1.0, "o": 1.0, "C": 1.0, "A": 2.0, "beta": 1.0, "latency": "independent"}
        with pytest.raises(ConfigError):
            LogCAParams(**{**base, **kw})
