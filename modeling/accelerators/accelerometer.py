"""Accelerometer: bounds, sensitivity regions and totem plots of LogCA (thesis chapter 6).

* Bounds (6.1-6.3): :func:`modeling.accelerators.logca.bound_kind` classifies a kernel as
  compute-bound (bounded by A) or latency-bound (by ``C/L * g**(beta-1)``);
  :func:`modeling.accelerators.logca.bound_curves` draws the ceilings.
* Sensitivity (6.2.2): a parameter is in the optimization region at ``g``
  when improving it by ``factor`` (L/f, o/f, C*f, A*f) raises the speedup by
  at least ``threshold`` (defaults 10 and 20 %, as the thesis).  Region edges
  are the exact granularities where a gain crosses the threshold (a root
  search between grid points), not grid points; a region is a maximal range
  with one non-empty set of parameters, labelled in the order L, o, C, A
  (e.g. "oC", "oCA", "A").  Ranges where no parameter helps are not regions.
* Totem plots (6.2.3): the speedup with each parameter improved by 2, 4, 6,
  8, 10 and the extremes (L, o -> 0; C, A -> infinity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from modeling.errors import ConfigError
from modeling.accelerators.logca import PARAMS, LogCAParams, log_grid, speedup
from modeling.results import Result

TOTEM_FACTORS = (2, 4, 6, 8, 10)


def improved(p: LogCAParams, param: str, factor: float) -> LogCAParams:
    """``p`` with one parameter improved by ``factor`` (``inf``: L, o -> 0; C, A -> inf)."""
    if param not in PARAMS:
        raise ConfigError(f"parameter must be one of {PARAMS}, not {param!r}.")
    if not factor >= 1:
        raise ConfigError(f"an improvement factor must be >= 1, got {factor}.")
    value = getattr(p, param)
    if param in ("L", "o"):
        return p.with_(**{param: 0.0 if math.isinf(factor) else value / factor})
    return p.with_(**{param: math.inf if math.isinf(factor) else value * factor})


def gain(p: LogCAParams, param: str, g, factor: float = 10.0) -> np.ndarray:
    """Relative speedup gain ``S_improved(g) / S(g) - 1``."""
    return speedup(improved(p, param, factor), g) / speedup(p, g) - 1.0


def _label(params) -> str:
    return "".join(k for k in PARAMS if k in params)


@dataclass(frozen=True)
class Region(Result):
    """A maximal granularity range ``[start, end]`` (bytes) where improving each of ``params`` (labelled in the
    order L, o, C, A, e.g. "oCA") by the factor raises the speedup by at least the threshold."""

    params: str
    start: float
    end: float

    def cli_json(self) -> dict:
        """The command line's JSON: ``{"params", "from", "to"}``."""
        return {"params": self.params, "from": self.start, "to": self.end}


@dataclass(frozen=True)
class OptimizationRegions(Result):
    """The optimization regions over a granularity range (thesis 6.2.2, Fig. 6.4) with the improvement
    ``factor`` and the gain ``threshold`` that define them; each parameter's cut-off is derived from them."""

    regions: list[Region]
    factor: float
    threshold: float

    @property
    def cutoffs(self) -> dict[str, tuple[float, float] | None]:
        """Per parameter (L, o, C, A), the first and last granularity where its gain reaches the threshold (the
        thesis' arrows), or None where it never does."""
        out = {}
        for k in PARAMS:
            spans = [r for r in self.regions if k in r.params]
            out[k] = (spans[0].start, spans[-1].end) if spans else None
        return out

    def cli_json(self) -> dict:
        """The command line's JSON: ``{"regions": [{"params", "from", "to"}], "cutoffs": {param: {"from", "to"}
        | None}, "factor", "threshold"}``."""
        return {"regions": [r.cli_json() for r in self.regions],
                "cutoffs": {k: None if c is None else {"from": c[0], "to": c[1]} for k, c in self.cutoffs.items()},
                "factor": self.factor, "threshold": self.threshold}


def optimization_regions(p: LogCAParams, lo: float = 16, hi: float = 32 * 2**20, factor: float = 10.0,
                         threshold: float = 0.2, per_octave: int = 16) -> OptimizationRegions:
    """Regions and cut-offs over ``[lo, hi]`` bytes (:class:`OptimizationRegions`)."""
    if not (0 < lo < hi):
        raise ConfigError("the granularity range needs 0 < from < to.")
    if not threshold > 0:
        raise ConfigError("the gain threshold must be > 0.")
    grid = log_grid(lo, hi, per_octave)
    edges = {lo, hi}
    beneficial = {}
    for k in PARAMS:
        d = gain(p, k, grid, factor) - threshold
        beneficial[k] = d >= 0
        for i in np.nonzero(np.diff(np.sign(d)) != 0)[0]:
            f = lambda x, k=k: float(gain(p, k, math.exp(x), factor)[()]) - threshold  # noqa: E731
            a, b = math.log(grid[i]), math.log(grid[i + 1])
            edges.add(math.exp(brentq(f, a, b, xtol=1e-12)) if f(a) * f(b) < 0 else grid[i + 1])
    cuts = sorted(edges)
    regions = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        mid = math.sqrt(a * b)
        label = _label([k for k in PARAMS if float(gain(p, k, mid, factor)[()]) >= threshold])
        if regions and regions[-1]["params"] == label and regions[-1]["to"] == a:
            regions[-1]["to"] = b
        else:
            regions.append({"params": label, "from": a, "to": b})
    regions = [Region(r["params"], r["from"], r["to"]) for r in regions if r["params"]]
    return OptimizationRegions(regions, factor, threshold)


def region_at(p: LogCAParams, g: float, factor: float = 10.0, threshold: float = 0.2) -> str:
    """Label of the parameters that pay off at one granularity ("" when none does)."""
    return _label([k for k in PARAMS if float(gain(p, k, g, factor)[()]) >= threshold])


def totem(p: LogCAParams, g, factors=TOTEM_FACTORS) -> dict:
    """Speedup curves for each parameter improved by each factor and at its extreme."""
    out = {"base": speedup(p, g)}
    for k in PARAMS:
        curves = {str(f): speedup(improved(p, k, f), g) for f in factors}
        curves["0" if k in ("L", "o") else "inf"] = speedup(improved(p, k, math.inf), g)
        out[k] = curves
    return out
