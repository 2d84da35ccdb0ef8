"""Intervals that stay calibrated while a planner chooses what to simulate.

A conformal interval (:mod:`modeling.intervals.conformal`) covers at its level when the workloads it
calibrates on and the workloads it is for are exchangeable. A planner breaks that: it simulates the unusual,
uncertain workloads, so their residuals are larger than those of the workloads left unsimulated, and an
interval calibrated on all simulated workloads over-covers the rest (and is wider than it needs to be); a
planner that picks cheap workloads can bias it the other way.

What is done here: **a random slice of every batch is kept for calibration**. Of each batch, a share
(:data:`CALIBRATION_SHARE`, drawn with stochastic rounding so small batches get one now and then) is chosen
uniformly at random among the candidates; with a budget in hours the slice is at most that share of the
batch's hours and at most that share of its workloads, drawn among the candidates the slice's hours can buy
(:mod:`modeling.plan.batch`). The random start and every workload chosen by the ``random`` strategy count
too. Only these workloads' out-of-fold residuals
set the interval's quantile (the model is still fitted on every simulated workload). A workload drawn at
random among the candidates is exchangeable with the candidates of that round, so the interval's level holds
for them (split/CV+ conformal on an exchangeable calibration set, Barber et al. 2021); the candidates left
after later active rounds are a little easier than those the slice was drawn from, so the remaining bias
is towards over-coverage. It is measured, not assumed: ``benchmarks/plan.py`` reports the coverage on the
unsimulated workloads after every replayed round.

The slice alone still over-covered after k-center rounds in the replays (0.97-1.00 at 90 % on the ARM
phases: the pool left behind lies near the simulated workloads and is easier than the slice, drawn
earlier). So the residuals are **normalized by the distance to the simulated set** (:func:`distance_scale`):
the score is ``|r| / sigma(d)`` and an unsimulated workload's half-width ``q sigma(d)``, so a workload close
to simulated ones gets a narrower interval. Weighting the slice's residuals by a likelihood ratio in
distance bins (conformal prediction under covariate shift, Tibshirani et al. 2019) was tried first and
moved the coverage less (0.93-1.00); a likelihood ratio in the whole counter space is unstable with a few
dozen calibration workloads. Last, the out-of-fold residuals are shrunk for the learning curve
(:func:`learning_curve_factor`): with a few dozen workloads the model fitted on all of them is better than the
fold models whose residuals calibrate it.

From 50 simulated workloads on, the scale is a line fitted to the residuals (:func:`fitted_distance_scale`).

Measured (``benchmarks/plan.py --seeds 40``, 1 % rounds from a 1 % random start, the mean over seeds of the
coverage of the 90 % intervals on the unsimulated workloads after each round; one seed's coverage spreads
too widely for three seeds to place it in a band): shipped GPU workloads, ``auto`` 0.88-0.93 (no interval in
the first two rounds: 3 and 6 workloads are too few for a model), random 0.88-0.95; ARM phases, ``auto``
0.91-0.95 (0.9505 after round 7, standard error 0.006), random 0.88-0.92. With the fixed scale at every size
the ARM phases' ``auto`` rounds fell to 0.84-0.88 late; with a fitted line at every size they fell to 0.82
after round 1 (20 workloads); with a least-squares line instead of the median one, 0.957 after round 7.
Drawing the whole batch at random until the random workloads alone can calibrate (nine at 90 %) was tried
and judged on three seeds only.
"""

from __future__ import annotations

import numpy as np

#: share of each batch drawn at random for calibration
CALIBRATION_SHARE = 0.2


def slice_size(slots: int, rng: np.random.Generator, share: float = CALIBRATION_SHARE) -> int:
    """How many of a batch of ``slots`` workloads are drawn at random for calibration (stochastic rounding
    of ``share x slots``)."""
    x = share * slots
    return int(np.floor(x) + (rng.random() < x - np.floor(x)))


def draw_slice(candidates: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` candidates drawn uniformly at random (without replacement)."""
    n = min(int(n), len(candidates))
    return rng.choice(candidates, size=n, replace=False) if n else np.empty(0, int)


__all__ = ["CALIBRATION_SHARE", "draw_slice", "slice_size"]


def distance_scale(d_cal: np.ndarray, d_pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scale ``sigma(d) = d + median(d_cal)`` of a workload's error, for calibration and pool workloads.

    Normalized nonconformity scores (Lei, G'Sell, Rinaldo, Tibshirani and Wasserman 2018, Sec. 5.2): the
    score of a calibration workload is ``|r| / sigma(d)`` and an unsimulated workload's interval is
    ``+- q sigma(d)``, with ``d`` the distance to the nearest simulated workload (for a calibration workload,
    outside its cross-validation fold). The coverage guarantee still rests on the calibration workloads being
    drawn at random; the scale takes out of the score what the active strategies shift most (the pool they
    leave behind lies near the simulated workloads, and its errors are smaller).
    """
    d0 = float(np.median(d_cal)) if len(d_cal) else 0.0
    d0 = d0 if d0 > 0 else 1e-6
    return np.asarray(d_cal, float) + d0, np.asarray(d_pool, float) + d0


__all__ += ["distance_scale"]


def learning_curve_factor(error_k: float, error_half: float, k: int) -> float:
    """How much smaller the residuals of the model fitted on every simulated workload are than K-fold's.

    An out-of-fold residual comes from a model fitted on ``(K - 1) / K`` of the workloads; the interval is
    for the model fitted on all of them, which is better while the learning curve is steep (a few dozen
    workloads), so intervals from out-of-fold residuals over-cover there (0.96 at 90 % in the replays with
    every workload drawn at random). With the error a power of the training size, ``e(n) ~ n ** -b``, the
    2-fold error (half the workloads) and the K-fold one give ``b = log(e_2 / e_K) / log(2 (K - 1) / K)``
    (kept within [0, 1]) and the residuals shrink by ``((K - 1) / K) ** b``.
    """
    if not (error_k > 0 and error_half > 0) or k < 3:
        return 1.0
    b = float(np.clip(np.log(error_half / error_k) / np.log(2.0 * (k - 1) / k), 0.0, 1.0))
    return float(((k - 1) / k) ** b)


__all__ += ["learning_curve_factor"]


#: fewest simulated workloads whose residuals fit the scale's line (:func:`fitted_distance_scale`); below, the
#: fixed scale of :func:`distance_scale`
MIN_FITTED_SCALE = 50
#: most residuals the line is fitted on (an evenly spaced subset beyond)
MAX_LINE_POINTS = 2000


def least_absolute_line(x: np.ndarray, r: np.ndarray) -> tuple[float, float]:
    """``(a, b)``, both non-negative, minimizing ``sum |r - a - b x|`` (a median regression line).

    A linear program (HiGHS through :func:`scipy.optimize.linprog`): ``a + b x_i + u_i - v_i = r_i`` with
    ``u, v >= 0`` and the objective ``sum(u + v)``; the constraint matrix is sparse, so thousands of
    workloads stay cheap."""
    from scipy import sparse
    from scipy.optimize import linprog

    m = len(x)
    eye = sparse.identity(m, format="csr")
    A = sparse.hstack([sparse.csr_matrix(np.column_stack([np.ones(m), x])), eye, -eye], format="csr")
    c = np.r_[0.0, 0.0, np.ones(2 * m)]
    res = linprog(c, A_eq=A, b_eq=r, bounds=(0, None), method="highs")
    if res.status != 0:
        raise RuntimeError(f"median regression line: {res.message}")
    return float(res.x[0]), float(res.x[1])


def fitted_distance_scale(d_all: np.ndarray, abs_r: np.ndarray, d_cal: np.ndarray,
                          d_pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scale ``sigma(d) = a + b d`` fitted to the out-of-fold residuals, for calibration and pool workloads.

    :func:`distance_scale` assumes a workload's error grows in proportion to its distance ``d`` from the
    simulated ones beyond a floor. On the ARM phases it does not grow that fast: after many k-medoids rounds
    the pool left near the medoids got intervals too narrow for its errors (90 % intervals covered 0.84-0.88
    in rounds 8-14, 40 seeds). Here the line is fitted over the out-of-fold residuals of *every* simulated
    workload and its out-of-fold distance ``d_all``: the scale is a model of the error's size, as in locally
    weighted conformal prediction (Lei et al. 2018, Sec. 5.2, where a model of the absolute residual is
    fitted), and the quantile of the calibration workloads' scaled residuals still sets the level. The line is
    the median regression of ``|r|`` on ``d`` (:func:`least_absolute_line`), not least squares: the residuals
    are heavy-tailed, and a least-squares line, pulled up by a few large ones, left the ARM phases' rounds
    after many k-medoids picks over-covering (0.957); the median line gave 0.907-0.950 (40 seeds). A slope of
    zero gives plain conformal intervals. The floor ``a`` is kept at 5 % of the mean residual or more, so a
    scale is never zero. Two parameters fitted on a few dozen heavy-tailed residuals are noisy (with 20
    workloads the ARM phases' coverage fell to 0.82), hence :data:`MIN_FITTED_SCALE`.
    """
    d_all, abs_r = np.asarray(d_all, float), np.asarray(abs_r, float)
    ok = np.flatnonzero(np.isfinite(d_all) & np.isfinite(abs_r))
    if len(ok) > MAX_LINE_POINTS:  # 6,000 points take about a second; every k-th of them fit the same line
        ok = ok[np.linspace(0, len(ok) - 1, MAX_LINE_POINTS).astype(int)]
    a, b = least_absolute_line(d_all[ok], abs_r[ok])
    a = max(a, 0.05 * float(np.mean(abs_r[ok])), 1e-12)
    return a + b * np.asarray(d_cal, float), a + b * np.asarray(d_pool, float)


__all__ += ["MIN_FITTED_SCALE", "fitted_distance_scale", "least_absolute_line"]
