"""Decisions from LogCA and Accelerometer, and the thesis' implications in plain words.

The programmer's and architect's flowcharts (thesis Figs. 4.20, 4.21, 6.16,
6.17) for a target speedup at an operating granularity, plus what the
flowcharts leave open: the smallest improvement factor of each single
parameter that reaches the target at that granularity, or "unreachable" with
the bound that stops it (the speedup with that parameter at its extreme).
Times are linear in o, L1(g) and 1/A, so every factor has a closed form.

Choices where the flowcharts are silent: break-even is judged by the exact
root (the thesis' Newton forms are reported beside it); the programmer's
sub-linear threshold is beta < 0.9 as in Fig. 4.20.
"""

from __future__ import annotations

import math

from modeling.accelerators.accelerometer import region_at
from modeling.errors import ConfigError
from modeling.accelerators.logca import (LogCAParams, computational_intensity, crossings, g1, g1_thesis, g_half,
                            g_half_thesis, host_time, large_g_limit, latency_time, speedup)

SUBLINEAR_BETA = 0.9


def fmt_bytes(g: float | None) -> str:
    """Human granularity: '2 KiB', '1.5 MiB', '>1e12 B'."""
    if g is None:
        return "does not exist"
    if g >= 2**60:
        return f"{g:.3g} B"
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if g >= size:
            return f"{g / size:.3g} {unit}"
    return f"{g:.3g} B"


def min_factors(p: LogCAParams, target: float, g: float) -> dict:
    """Smallest single-parameter improvement reaching ``target`` speedup at ``g``.

    Per parameter: ``factor`` (1.0 when already met, None when unreachable),
    and ``bound``: the speedup at ``g`` with that parameter at its extreme.
    """
    if not (target > 0 and g > 0):
        raise ConfigError("target speedup and granularity must be > 0.")
    t0 = float(host_time(p, g))
    lat = float(latency_time(p, g))
    comp = t0 / p.A
    need = t0 / target  # accelerated time that reaches the target
    out = {}

    def entry(factor, bound):
        ok = factor is not None
        return {"factor": (max(factor, 1.0) if ok else None), "reachable": ok, "bound": bound}

    rest = need - lat - comp
    out["o"] = entry(None if rest <= 0 else (p.o / rest if p.o > 0 else 1.0), t0 / (lat + comp))
    rest = need - p.o - comp
    out["L"] = entry(None if rest <= 0 else (lat / rest if lat > 0 else 1.0), t0 / (p.o + comp))
    rest = need - p.o - lat
    out["A"] = entry(None if rest <= 0 else comp / rest, t0 / (p.o + lat) if p.o + lat > 0 else math.inf)
    if target < p.A:
        c_needed = target * (p.o + lat) / (g**p.beta * (1.0 - target / p.A))
        out["C"] = entry(c_needed / p.C, p.A)
    else:
        out["C"] = entry(None, p.A)
    return out


def advise(p: LogCAParams, target: float, g: float, factor: float = 10.0, threshold: float = 0.2) -> dict:
    """Programmer's and architect's decisions for ``target`` speedup at granularity ``g``."""
    s = float(speedup(p, g))
    up, down = crossings(p, target)
    b1, b1_thesis = g1(p), g1_thesis(p)
    factors = min_factors(p, target, g)
    region = region_at(p, g, factor, threshold)
    met = s >= target
    prog, arch = [], []
    # programmer: Figs. 4.20 / 6.16
    if p.dependent and p.beta < SUBLINEAR_BETA:
        prog.append(f"beta = {p.beta:g} < {SUBLINEAR_BETA}: a sub-linear kernel on an interface whose latency "
                    "grows with the data; its speedup falls at large sizes (implication 4).")
    if b1 is None:
        prog_decision = "Do not offload: the accelerator never breaks even for this kernel."
    elif met:
        prog_decision = f"Offload: speedup {s:.3g} at {fmt_bytes(g)} meets the target {target:g}."
    elif up is not None and (down is None or up < down):
        where = f"between {fmt_bytes(up)} and {fmt_bytes(down)}" if down else f"from {fmt_bytes(up)} on"
        prog_decision = (f"Offload more data: the target {target:g} is reached {where}; "
                         f"at {fmt_bytes(g)} the speedup is {s:.3g}.")
    else:
        prog_decision = (f"Do not offload for this target: no granularity reaches {target:g} "
                         f"(the speedup tends to {large_g_limit(p):.3g}).")
    if not met and factors["C"]["reachable"]:
        prog.append(f"At a fixed {fmt_bytes(g)}, raising the computational index C by "
                    f"{factors['C']['factor']:.3g}x (e.g. fusing kernels) reaches the target.")
    # architect: Figs. 4.21 / 6.17
    if b1 is None or b1_thesis is None:
        arch_decision = ("Improve the interface (overhead o, latency L): "
                         + ("there is no break-even granularity" if b1 is None else
                            "the thesis' closed form finds no break-even (eq. 4.13)")
                         + "; more acceleration will not move it (implication 1).")
    elif met:
        arch_decision = f"The design meets the target {target:g} at {fmt_bytes(g)}."
    elif g_half_thesis(p) is None or g_half(p) is None:
        arch_decision = ("Improve the interface: half the acceleration is out of reach "
                         "(eq. 4.14), so a faster accelerator is bounded by the computational intensity "
                         "(implication 7).")
    else:
        arch_decision = "Spend resources on the accelerator (A): the interface lets the speedup approach A."
    arch.append(f"Optimization region at {fmt_bytes(g)}: {region or 'none'} "
                f"(parameters whose {factor:g}x improvement gains at least {threshold:.0%}).")
    for k, f in factors.items():
        if not met:
            arch.append(f"{k}: " + (f"{f['factor']:.3g}x improvement reaches {target:g}" if f["reachable"]
                                    else f"unreachable; even at its extreme the speedup is {f['bound']:.3g}"))
    return {"target": target, "granularity": g, "speedup": s, "met": met,
            "min_granularity": up, "max_granularity": down, "region": region,
            "programmer": {"decision": prog_decision, "notes": prog},
            "architect": {"decision": arch_decision, "notes": arch},
            "min_factors": factors}


def implications(p: LogCAParams) -> list[dict]:
    """The thesis' implications 1-7 evaluated for ``p``: id, whether it applies, plain words."""
    out = []
    b1 = g1(p)
    if b1 is not None and p.A > 1:
        b1_2a = g1(p.with_(A=2 * p.A))
        out.append({"id": 1, "applies": True, "text":
                    f"Doubling A to {2 * p.A:.3g} moves break-even from {fmt_bytes(b1)} to {fmt_bytes(b1_2a)}: "
                    "g1 hardly depends on acceleration; lower it through the interface."})
        b1_2c = g1(p.with_(C=2 * p.C))
        out.append({"id": 2, "applies": True, "text":
                    f"Doubling C moves break-even from {fmt_bytes(b1)} to {fmt_bytes(b1_2c)} "
                    f"(the closed form divides it by 2^(1/beta) = {2 ** (1 / p.beta):.3g})."})
    gh = g_half(p)
    if gh is not None:
        out.append({"id": 3, "applies": True, "text":
                    f"Doubling A moves the half-acceleration point from {fmt_bytes(gh)} to "
                    f"{fmt_bytes(g_half(p.with_(A=2 * p.A)))}: more acceleration needs more data."})
    if p.dependent:
        ci = computational_intensity(p)
        if p.beta < 1:
            out.append({"id": 4, "applies": True, "text":
                        "Sub-linear kernel on a latency that grows with the data: the speedup peaks and then "
                        "falls as the granularity grows."})
        out.append({"id": 5, "applies": ci * p.beta > 1, "text":
                    f"Computational intensity C/L = {ci:.3g}; any gain needs C/L > 1/beta = {1 / p.beta:.3g} "
                    f"(eq. 4.13): {'met' if ci * p.beta > 1 else 'not met'}."})
        out.append({"id": 6, "applies": ci / p.A * p.beta > 1, "text":
                    f"Accelerator's computational intensity (C/A)/L = {ci / p.A:.3g}; half the acceleration "
                    f"needs it above 1/beta (eq. 4.14): {'met' if ci / p.A * p.beta > 1 else 'not met'}."})
        if g_half_thesis(p) is None:
            out.append({"id": 7, "applies": True, "text":
                        "Half the acceleration is out of reach, so a faster accelerator stays bounded by "
                        "the computational intensity: invest in the interface instead."})
    else:
        out.append({"id": 5, "applies": False, "text":
                    f"Latency does not grow with the data: the speedup rises towards A = {p.A:g} for every "
                    "kernel (eq. 4.5)."})
    return out
