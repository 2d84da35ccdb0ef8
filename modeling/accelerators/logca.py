"""LogCA: speedup of an accelerator as a function of offloaded granularity.

Thesis chapter 4 (logca-accelerometer-thesis.txt).  Parameters (Table 4.1):

* ``L`` latency: cycles (granularity-independent) or cycles per byte
  (granularity-dependent, ``L1(g) = L*g``);
* ``o`` overhead: cycles the host spends setting up an offload;
* ``C`` computational index: host cycles per byte (per ``g**beta``);
* ``A`` acceleration: peak speedup of the accelerator (unitless);
* ``beta``: the power of ``g`` in the kernel's complexity, ``f(g) = g**beta``.

Times: ``T0(g) = C*g**beta`` (4.1), ``T1(g) = o + L1(g) + C*g**beta/A`` (4.2);
speedup ``T0/T1`` (4.3): eq. 4.4 (independent latency) or 4.10 (dependent).

Break-even ``g1`` and half-acceleration ``g_{A/2}`` granularities are given
two ways: the thesis' closed forms (4.7/4.8, exact for independent latency;
4.13/4.14 for dependent latency, which are one Newton step from ``g = 1`` and
exact only at ``beta = 1``) and the exact root of ``speedup(g) = s`` found
numerically.  ``g_A`` (4.15) solves the same equation as ``g_{A/2}``.
Everything is vectorized over granularity; times are in whatever unit the
parameters use (cycles for the thesis presets).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np
from scipy.optimize import brentq

from modeling.errors import ConfigError

LATENCY_MODES = ("independent", "dependent")
PARAMS = ("L", "o", "C", "A")


@dataclass(frozen=True)
class LogCAParams:
    """One accelerator running one kernel (Table 4.1 plus ``beta`` and the latency mode)."""

    L: float
    o: float
    C: float
    A: float
    beta: float = 1.0
    latency: str = "independent"

    def __post_init__(self):
        if self.latency not in LATENCY_MODES:
            raise ConfigError(f"latency must be 'independent' or 'dependent', not {self.latency!r}.")
        for name in ("L", "o", "C", "A", "beta"):
            v = getattr(self, name)
            if not isinstance(v, (int, float, np.floating, np.integer)) or math.isnan(v):
                raise ConfigError(f"LogCA parameter {name} must be a number, got {v!r}.")
        if self.L < 0 or self.o < 0:
            raise ConfigError(f"L and o must be >= 0 (got L={self.L}, o={self.o}).")
        if not (self.C > 0 and self.A > 0):
            raise ConfigError(f"C and A must be > 0 (got C={self.C}, A={self.A}).")
        if not (0 < self.beta <= 4) or math.isinf(self.beta):
            raise ConfigError(f"beta must be in (0, 4], got {self.beta}.")

    def with_(self, **changes) -> LogCAParams:
        return replace(self, **changes)

    @property
    def dependent(self) -> bool:
        return self.latency == "dependent"

    def to_dict(self) -> dict:
        return {k: (None if isinstance(v, float) and math.isinf(v) else v) for k, v in asdict(self).items()}


def granularities(values) -> np.ndarray:
    """Validated granularity array in bytes (all finite and > 0)."""
    g = np.atleast_1d(np.asarray(values, dtype=float))
    if g.size == 0 or not np.all(np.isfinite(g)) or np.any(g <= 0):
        raise ConfigError("granularities must be finite numbers of bytes > 0.")
    return g


def log_grid(lo: float = 16, hi: float = 32 * 2**20, per_octave: int = 8) -> np.ndarray:
    """Granularities from ``lo`` to ``hi`` bytes, ``per_octave`` points per doubling."""
    n = int(round(math.log2(hi / lo) * per_octave)) + 1
    return np.geomspace(lo, hi, max(n, 2))


def host_time(p: LogCAParams, g) -> np.ndarray:
    """Eq. 4.1 with ``C0(g) = C*g**beta``."""
    return p.C * np.power(g, p.beta)


def latency_time(p: LogCAParams, g) -> np.ndarray:
    """``L1(g)``: ``L`` (independent) or ``L*g`` (dependent)."""
    g = np.asarray(g, dtype=float)
    return p.L * g if p.dependent else np.full_like(g, p.L, dtype=float)


def accel_time(p: LogCAParams, g) -> np.ndarray:
    """Eq. 4.2: ``o + L1(g) + C*g**beta / A`` (``A = inf`` drops the last term)."""
    comp = 0.0 if math.isinf(p.A) else host_time(p, g) / p.A
    return p.o + latency_time(p, g) + comp


def speedup(p: LogCAParams, g) -> np.ndarray:
    """Eq. 4.4 (independent latency) / 4.10 (dependent latency).  ``C = inf`` gives ``A``."""
    g = np.asarray(g, dtype=float)
    if math.isinf(p.C):
        return np.full_like(g, p.A, dtype=float)
    t1 = accel_time(p, g)
    with np.errstate(divide="ignore"):
        return np.where(t1 > 0, host_time(p, g) / np.where(t1 > 0, t1, 1.0), np.inf)


# -- granularities where the speedup reaches a value ------------------------------------------

def crossings(p: LogCAParams, s: float) -> tuple[float | None, float | None]:
    """Exact granularities where ``speedup(g) = s``: (upward crossing, downward crossing).

    ``speedup = s`` is ``a*g**beta - s*L1(g) - s*o = 0`` with ``a = C*(1 - s/A)``.
    Independent latency: one closed-form root.  Dependent latency: the
    function is convex for beta > 1 (one root), linear at beta = 1, concave
    for beta < 1 (zero or two roots: speedup rises above ``s`` then falls
    back, implication 4).  Returns ``(None, None)`` when ``s`` is never reached;
    an upward crossing of 0.0 means ``s`` is exceeded at every small ``g``.
    """
    if s <= 0:
        raise ConfigError("a target speedup must be > 0.")
    a = p.C * (1.0 - (0.0 if math.isinf(p.A) else s / p.A))
    if a <= 0:
        return None, None
    b = p.beta
    if not p.dependent or p.L == 0:
        k = s * (p.o + (0.0 if p.dependent else p.L))
        return (k / a) ** (1.0 / b), None
    lin, k = s * p.L, s * p.o
    if b == 1.0:
        return (k / (a - lin), None) if a > lin else (None, None)

    def h(x):  # in log-granularity, to handle roots from 1e-20 to 1e30 bytes alike
        g = math.exp(x)
        return a * g**b - lin * g - k

    if b > 1.0:
        if k == 0:
            return (lin / a) ** (1.0 / (b - 1.0)), None
        hi = 0.0
        while h(hi) <= 0:
            hi += 5.0
            if hi > 700:
                return None, None
        return math.exp(brentq(h, -700.0, hi, xtol=1e-13, rtol=1e-14)), None
    g_star = (a * b / lin) ** (1.0 / (1.0 - b))  # maximum of the concave function
    x_star = math.log(g_star)
    if h(x_star) <= 0:
        return None, None
    up = 0.0 if k == 0 else math.exp(brentq(h, -700.0, x_star, xtol=1e-13, rtol=1e-14))
    hi = x_star + 5.0
    while h(hi) > 0:
        hi += 5.0
    return up, math.exp(brentq(h, x_star, hi, xtol=1e-13, rtol=1e-14))


def g1(p: LogCAParams) -> float | None:
    """Exact break-even granularity (speedup 1), or None when it does not exist."""
    return crossings(p, 1.0)[0]


def g_half(p: LogCAParams) -> float | None:
    """Exact granularity reaching half the acceleration, or None."""
    return crossings(p, p.A / 2.0)[0]


def g_a(p: LogCAParams) -> float | None:
    """Eq. 4.15: granularity where an infinitely fast accelerator reaches speedup ``A``."""
    return crossings(p.with_(A=math.inf), p.A)[0]


def _positive(num: float, den: float) -> float | None:
    return num / den if den > 0 and num > 0 else None


def g1_thesis(p: LogCAParams) -> float | None:
    """Eq. 4.7 (independent) or 4.13 (dependent, Newton form); None when not positive."""
    A, C, o, L, b = p.A, p.C, p.o, p.L, p.beta
    if A <= 1:
        return None
    if not p.dependent:
        return (A / (A - 1.0) * (o + L) / C) ** (1.0 / b)
    return _positive(C * (b - 1.0) * (A - 1.0) + A * o, C * b * (A - 1.0) - A * L)


def g_half_thesis(p: LogCAParams) -> float | None:
    """Eq. 4.8 (independent) or 4.14 (dependent, Newton form); None when not positive."""
    A, C, o, L, b = p.A, p.C, p.o, p.L, p.beta
    if not p.dependent:
        return (A * (o + L) / C) ** (1.0 / b)
    return _positive(C * (b - 1.0) + A * o, C * b - A * L)


def g_a_thesis(p: LogCAParams) -> float | None:
    """Eq. 4.15 as printed (the same expression as 4.14)."""
    return _positive(p.C * (p.beta - 1.0) + p.A * p.o, p.C * p.beta - p.A * p.L) if p.dependent \
        else g_half_thesis(p)


# -- limits and bounds -------------------------------------------------------------------------

def small_g_limit(p: LogCAParams) -> float:
    """Speedup at ``g = 1`` byte scale: eq. 4.6 ``C/(o+L+C/A)`` (4.12 for dependent latency)."""
    return p.C / (p.o + p.L + p.C / p.A)


def large_g_limit(p: LogCAParams) -> float:
    """``lim g->inf speedup``: ``A`` (4.5); dependent: ``A`` if beta>1, ``C/(L+C/A)`` at 1, 0 below."""
    if not p.dependent or p.L == 0 or p.beta > 1:
        return p.A
    if p.beta == 1:
        return p.C / (p.L + p.C / p.A)
    return 0.0


def bound_kind(p: LogCAParams) -> str:
    """Accelerometer 6.1-6.3: 'compute' (bounded by A) or 'latency' (bounded by C/L * g^(beta-1))."""
    return "latency" if p.dependent and p.L > 0 and p.beta <= 1 else "compute"


def bound_curves(p: LogCAParams, g) -> dict[str, np.ndarray]:
    """Roofline-like ceilings of the speedup over ``g`` (each term of T1 alone).

    ``acceleration``: A (4.5); ``overhead``: C g^beta / o (Amdahl, 4.6);
    ``latency``: C g^beta / L1(g), i.e. ``C/L * g^(beta-1)`` when dependent (4.11, 6.2).
    The speedup is below the smallest of them.
    """
    g = np.asarray(g, dtype=float)
    t0 = host_time(p, g)
    out = {"acceleration": np.full_like(g, p.A, dtype=float)}
    with np.errstate(divide="ignore"):
        out["overhead"] = t0 / p.o if p.o > 0 else np.full_like(g, np.inf)
        lat = latency_time(p, g)
        out["latency"] = np.where(lat > 0, t0 / np.where(lat > 0, lat, 1.0), np.inf)
    return out


def computational_intensity(p: LogCAParams) -> float:
    """C / L (section 4.2); infinite when L = 0."""
    return math.inf if p.L == 0 else p.C / p.L


def finite_or_none(v) -> float | None:
    """A JSON-safe number: None for 'does not exist' and for infinities / NaN."""
    return None if v is None or not math.isfinite(v) else float(v)


def metrics(p: LogCAParams) -> dict:
    """Metrics of one accelerator as plain JSON (None for 'does not exist' / infinite)."""
    clean = finite_or_none
    up, down = crossings(p, 1.0)
    return {
        "params": p.to_dict(),
        "g1": clean(up), "g1_end": clean(down), "g1_thesis": clean(g1_thesis(p)),
        "g_half": clean(g_half(p)), "g_half_thesis": clean(g_half_thesis(p)),
        "g_a": clean(g_a(p)), "g_a_thesis": clean(g_a_thesis(p)),
        "bound": clean(large_g_limit(p)), "bound_kind": bound_kind(p),
        "small_g_speedup": clean(small_g_limit(p)),
        "computational_intensity": clean(computational_intensity(p)),
    }


# -- LogCA^e: the energy counterpart (thesis chapter 5) ------------------------------------------

def energy_params(Le: float, oe: float, Ce: float, Ae: float, beta: float) -> LogCAParams:
    """LogCA^e parameters (Table 5.1).  Link energy always grows with the data (section 5.2)."""
    return LogCAParams(L=Le, o=oe, C=Ce, A=Ae, beta=beta, latency="dependent")


def efficiency(pe: LogCAParams, g) -> np.ndarray:
    """Eq. 5.4: ``Ce*g^beta / (oe + Le*g + Ce*g^beta/Ae)``; g1^e and g^e_{A/2} are 5.6-5.7."""
    if not pe.dependent:
        raise ConfigError("LogCA^e uses granularity-dependent link energy (thesis 5.2).")
    return speedup(pe, g)


def sep(p: LogCAParams, pe: LogCAParams, g) -> np.ndarray:
    """Eq. 5.8: speedup-efficiency product, the ratio of unaccelerated to accelerated EDP."""
    return speedup(p, g) * efficiency(pe, g)
