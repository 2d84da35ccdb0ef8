"""LogCA with several accelerators: parallel, serial and pipelined (thesis 4.5).

Parallel (4.16-4.21): the host sets up accelerator ``i`` after accelerator
``i-1``, so accelerator ``i`` starts after the lumped overhead ``o_1+...+o_i``;
the makespan is the latest finish (4.17) and the speedup is 4.18.  Two splits
of ``g`` are offered: the thesis' equal split ``g/n`` (4.19, where the last
accelerator finishes last) and the split that makes every used accelerator
finish together, found by bisection on the common finish time (each
accelerator's share is the largest ``g_i`` it can finish by then; an
accelerator whose lumped overhead alone exceeds that time gets nothing).

Serial (4.22-4.24) takes one stage per accelerator with its own parameters
and share ``g_i``.  The single-accelerator
pipeline of ``n`` sub-computations of ``g`` bytes each follows 4.26 (overhead
larger than latency) or 4.28 (latency larger), which reduce to 4.30 when
computation dominates; :func:`pipelined_limit` gives 4.27/4.29 (n -> inf).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import brentq

from modeling.errors import ConfigError
from modeling.accelerators.logca import LogCAParams, host_time, latency_time


def _check_n(n: int) -> int:
    if int(n) != n or n < 1 or n > 1024:
        raise ConfigError(f"the number of accelerators/stages must be an integer in 1..1024, got {n}.")
    return int(n)


def _stage_time(p: LogCAParams, g) -> np.ndarray:
    """Latency plus accelerator compute of ``g`` bytes (no overhead); zero for ``g = 0``."""
    g = np.asarray(g, dtype=float)
    t = latency_time(p, g) + host_time(p, g) / p.A
    return np.where(g > 0, t, 0.0)


def parallel_times(accels: Sequence[LogCAParams], shares) -> np.ndarray:
    """Finish time of each accelerator (4.17 terms): lumped overhead + latency + compute."""
    lumped = np.cumsum([a.o for a in accels])
    return np.array([lumped[i] + float(_stage_time(a, s)) if s > 0 else 0.0
                     for i, (a, s) in enumerate(zip(accels, shares))])


def balanced_shares(accels: Sequence[LogCAParams], g: float) -> np.ndarray:
    """Split ``g`` so that every accelerator that gets work finishes at the same time."""
    lumped = np.cumsum([a.o for a in accels])

    def share(i, t):  # largest g_i accelerator i finishes by time t
        room = t - lumped[i]
        if room <= 0:
            return 0.0
        a = accels[i]
        f = lambda x: float(_stage_time(a, math.exp(x))) - room  # noqa: E731
        if f(math.log(g)) <= 0:
            return g
        if f(-60.0) >= 0:
            return 0.0
        return math.exp(brentq(f, -60.0, math.log(g), xtol=1e-12, rtol=1e-13))

    def total(t):
        return sum(share(i, t) for i in range(len(accels))) - g

    hi = lumped[0] + float(_stage_time(accels[0], g))  # everything on the first accelerator
    lo = lumped[0]
    if total(hi) <= 0:  # numerical edge: the first alone is exactly the makespan
        return np.array([g] + [0.0] * (len(accels) - 1))
    t = brentq(total, lo, hi, xtol=1e-12 * hi, rtol=1e-13)
    shares = np.array([share(i, t) for i in range(len(accels))])
    return shares * (g / shares.sum())


def _inverse_stage(p: LogCAParams, t: np.ndarray) -> np.ndarray:
    """Largest ``x`` with latency + compute of ``x`` bytes <= ``t`` (vectorized; 0 where ``t`` is too small)."""
    t = np.asarray(t, dtype=float)
    k = p.C / p.A
    if not p.dependent or p.L == 0:
        room = t - (0.0 if p.dependent else p.L)
        return np.where(room > 0, (np.maximum(room, 0) / k) ** (1.0 / p.beta), 0.0)
    out = np.zeros_like(t)
    ok = t > 0
    tt = t[ok]
    u = np.minimum(np.log(tt / p.L), np.log(tt / k) / p.beta)  # both terms positive: a bound from above
    for _ in range(60):  # Newton on log(L e^u + k e^(beta u)) = log t; the slope lies in [min(1,b), max(1,b)]
        a, b = p.L * np.exp(u), k * np.exp(p.beta * u)
        step = (np.log(a + b) - np.log(tt)) * (a + b) / (a + p.beta * b)
        u = u - step
        if np.all(np.abs(step) < 1e-13):
            break
    out[ok] = np.exp(u)
    return out


def balanced_curve(p: LogCAParams, g, n: int) -> np.ndarray:
    """Makespan of ``n`` identical accelerators with the finish-together split, for many ``g`` at once.

    Parametrized by the common finish time ``T``: the data done by then is
    ``G(T) = sum_i x(T - i*o)``, increasing in ``T``; ``T(g)`` is read off a
    dense log grid of ``T`` by log-log interpolation, then polished by Newton
    steps on the exact ``G(T)`` (agrees with :func:`balanced_shares` to 1e-6).
    """
    g = np.atleast_1d(np.asarray(g, dtype=float))
    t_lo = p.o * (1 + 1e-12) + float(_stage_time(p, g.min())) * 1e-9
    t_hi = p.o + float(_stage_time(p, g.max())) * (1 + 1e-9)
    kinks = [(i + 1) * p.o for i in range(1, n)] if p.o > 0 else []  # another accelerator joins
    T = np.unique(np.concatenate([np.geomspace(t_lo, t_hi * 1.001, 6000), kinks]))
    G = sum(_inverse_stage(p, T - (i + 1) * p.o) for i in range(n))
    keep = G > 0
    T, G = T[keep], G[keep]
    t = np.exp(np.interp(np.log(g), np.log(G), np.log(T)))

    def done(t):
        return sum(_inverse_stage(p, t - (i + 1) * p.o) for i in range(n))

    for _ in range(6):  # polish with Newton steps on the exact G(T)
        gt = done(t)
        slope = (done(t * (1 + 1e-7)) - gt) / (t * 1e-7)
        t = np.where(slope > 0, t - (gt - g) / np.where(slope > 0, slope, 1.0), t)
    return t


def parallel_speedup(p: LogCAParams | Sequence[LogCAParams], g, n: int = 1,
                     split: str = "equal") -> np.ndarray:
    """Eq. 4.18 for ``n`` copies of ``p`` (or the given accelerators, which share ``C`` and beta)."""
    accels = list(p) if isinstance(p, (list, tuple)) else [p] * _check_n(n)
    if split not in ("equal", "balanced"):
        raise ConfigError("split must be 'equal' or 'balanced'.")
    if split == "balanced" and not isinstance(p, (list, tuple)):
        out = host_time(p, g) / balanced_curve(p, g, len(accels))
        return out if np.ndim(g) else float(out[0])
    ref = accels[0]
    if any(a.C != ref.C or a.beta != ref.beta for a in accels):
        raise ConfigError("parallel accelerators run one kernel: C and beta must be the same for all.")
    gs = np.atleast_1d(np.asarray(g, dtype=float))
    if split == "equal" and not isinstance(p, (list, tuple)) and np.all(gs > 0):
        # n copies of one accelerator, equal shares: every stage takes the same time, so the last one to
        # start finishes last (the largest lumped overhead); all g at once, the same terms as the loop below
        lumped = float(np.cumsum([a.o for a in accels]).max())
        out = host_time(ref, gs) / (lumped + _stage_time(ref, gs / len(accels)))
        return out if np.ndim(g) else out[0]
    out = np.empty_like(gs)
    for j, gj in enumerate(gs):
        shares = np.full(len(accels), gj / len(accels)) if split == "equal" else balanced_shares(accels, gj)
        out[j] = float(host_time(ref, gj)) / parallel_times(accels, shares).max()
    return out if np.ndim(g) else out[0]


def serial_speedup(stages: Sequence[LogCAParams], shares: Sequence[float]) -> float:
    """Eq. 4.24: stages run one after another, each with its own C_i, A_i, o_i, L_i and g_i."""
    t0 = sum(float(host_time(s, g)) for s, g in zip(stages, shares))
    t1 = sum(s.o + float(_stage_time(s, g)) for s, g in zip(stages, shares))
    return t0 / t1


def pipelined_speedup(p: LogCAParams, g, n: int = 1) -> np.ndarray:
    """Eqs. 4.26 / 4.28: ``n`` sub-computations of ``g`` bytes each on one accelerator."""
    n = _check_n(n)
    g = np.asarray(g, dtype=float)
    t0 = host_time(p, g)
    c = t0 / p.A
    lat = latency_time(p, g)
    o = p.o
    over = lat + np.maximum(n * o + c, o + n * c)       # 4.26, overhead >= latency
    under = o + np.maximum(n * lat + c, lat + n * c)    # 4.28, latency > overhead
    return n * t0 / np.where(o >= lat, over, under)


def pipelined_limit(p: LogCAParams, g) -> np.ndarray:
    """Eqs. 4.27 / 4.29 (n -> infinity): ``C f(g) / max(bottleneck, C f(g)/A)``."""
    g = np.asarray(g, dtype=float)
    t0 = host_time(p, g)
    lat = latency_time(p, g)
    return t0 / np.maximum(np.maximum(p.o, lat), t0 / p.A)
