"""What the LogCA and Accelerometer pages show for a set of validated inputs (no Dash callbacks here)."""

from __future__ import annotations


import numpy as np

from dashboard.accelerators import sources
from dashboard.accelerators.figures import (bounds_figure, energy_figure, multi_figure, regions_figure,
                                            speedup_figure, totem_figure)
from dashboard.ui.url_state import InvalidParameter, Param
from modeling.accelerators import logca
from modeling.accelerators.multi import parallel_speedup, pipelined_speedup
from modeling.accelerators.accelerometer import optimization_regions, totem
from modeling.accelerators.advisor import advise, fmt_bytes, implications
from modeling.accelerators.presets import OBSERVED, observed_for

GRID_POINTS_PER_OCTAVE = 12
MULTI_MODES = {"parallel-equal": "parallel, equal split (4.19)",
               "parallel-balanced": "parallel, finish together",
               "pipelined": "pipelined on one accelerator (4.26/4.28)"}


class OptionalFloat(Param):
    """A number that may be left empty (None)."""

    def parse(self, raw, values):
        if raw is None or raw == "":
            return None
        return super().parse(raw, values)


def granularity_params() -> list[Param]:
    return [Param("gmin", "float", 16.0, None, 1, 2.0**40), Param("gmax", "float", 32.0 * 2**20, None, 2, 2.0**44)]


DEFAULT_ACC = ["openssl-x86:aes-128-ctr", "ultrasparc-t2:aes", "sandy-bridge:aes"]
LOGCA_TABS = ["energy", "multi", "fit", "implications"]

# the links of /logca and /accelerometer (the pages and the redraw benchmark use these)
LOGCA_PARAMS = [
    sources.TimingParam("timing", "choice"),
    Param("acc", "multi", DEFAULT_ACC, sources.names),
    Param("focus", "choice", lambda v: (v["acc"] or DEFAULT_ACC)[0], lambda v: v["acc"] or DEFAULT_ACC),
    *sources.custom_params(),
    *granularity_params(),
    Param("tab", "choice", "energy", LOGCA_TABS),
    Param("mode", "choice", "parallel-equal", list(MULTI_MODES)),
    Param("n", "multi", ["1", "2", "4", "8"], [str(i) for i in range(1, 9)]),
    *[OptionalFloat(f"e{k}", "float", None, None, 0 if k in "Lo" else 1e-30, 1e30) for k in "LoCA"],
]
ACCEL_PARAMS = [
    sources.TimingParam("timing", "choice"),
    Param("acc", "choice", "ultrasparc-t2:aes", sources.names),
    *sources.custom_params(),
    *granularity_params(),
    Param("factor", "float", 10.0, None, 1.01, 1e6),
    Param("threshold", "float", 20.0, None, 0.1, 1000),
    Param("target", "float", 12.0, None, 1e-6, 1e9),
    Param("g0", "float", 4096.0, None, 1e-3, 2.0**50),
]


def grid_of(v) -> np.ndarray:
    if not v["gmin"] < v["gmax"]:
        raise InvalidParameter("gmax", f"{v['gmax']:g} must be larger than gmin = {v['gmin']:g}")
    return logca.log_grid(v["gmin"], v["gmax"], GRID_POINTS_PER_OCTAVE)


def metrics_rows(accels) -> list[dict]:
    rows = []
    for a in accels:
        s = logca.metrics(a.params)
        p = a.params
        rows.append({"accelerator": a.label, "latency": p.latency, "L": p.L, "o": p.o, "C": p.C, "A": p.A,
                     "beta": p.beta, "g1": s["g1"], "g1_thesis": s["g1_thesis"],
                     "g_half": s["g_half"], "g_half_thesis": s["g_half_thesis"],
                     "bound": s["bound"], "bound_kind": s["bound_kind"]})
    return rows


def energy_params_for(a, v):
    """Typed energy parameters, else the fitted energy model, else the performance parameters."""
    fitted = (a.fit or {}).get("energy")
    base = fitted or {"L": a.params.L, "o": a.params.o, "C": a.params.C, "A": a.params.A}
    vals = {k: (v.get(f"e{k}") if v.get(f"e{k}") is not None else base[k]) for k in ("L", "o", "C", "A")}
    source = "typed" if any(v.get(f"e{k}") is not None for k in "LoCA") else (
        "fitted from the energy columns" if fitted else "performance parameters (equal host and accelerator power)")
    return logca.energy_params(vals["L"], vals["o"], vals["C"], vals["A"], a.params.beta), source


def _on_grid(g, x):
    return x is not None and g[0] <= x <= g[-1]


def speedup_curve(a, g) -> dict:
    """One accelerator's speedup over ``g`` (eq. 4.4 / 4.10), its g1 and g_A/2 markers, observed points."""
    markers = [(float(x), float(logca.speedup(a.params, x)), what)
               for x, what in ((logca.g1(a.params), "g1"), (logca.g_half(a.params), "g_A/2")) if _on_grid(g, x)]
    return {"label": a.label, "speedup": logca.speedup(a.params, g), "A": a.params.A, "observed": a.observed,
            "markers": markers}


def energy_curves(p, pe, g) -> dict:
    """Speedup, energy efficiency (5.4) and the speedup-efficiency product (5.8) over ``g``."""
    return {"speedup": logca.speedup(p, g), "energy efficiency": logca.efficiency(pe, g),
            "speedup × efficiency (SEP)": logca.sep(p, pe, g)}


def multi_curves(p, g, mode, ns) -> dict:
    """n -> speedup over ``g`` of n accelerators in parallel (4.18, equal or balanced split) or pipelined."""
    if mode == "pipelined":
        return {n: pipelined_speedup(p, g, n) for n in ns}
    split = "balanced" if mode == "parallel-balanced" else "equal"
    return {n: parallel_speedup(p, g, n, split) for n in ns}


def logca_view(v: dict) -> dict:
    """Figures, rows and texts of /logca for validated values ``v``."""
    g = grid_of(v)
    accels = [sources.resolve(n, v) for n in v["acc"]]
    focus = next(a for a in accels if a.name == v["focus"])
    out = {"speedup": speedup_figure(g, [speedup_curve(a, g) for a in accels]), "rows": metrics_rows(accels)}
    pe, source = energy_params_for(focus, v)
    g1e = logca.g1(pe)
    out["energy"] = energy_figure(g, energy_curves(focus.params, pe, g), g1e if _on_grid(g, g1e) else None,
                                  focus.label)
    out["energy_note"] = (f"Energy parameters: {source}. L^e={pe.L:.4g}, o^e={pe.o:.4g}, C^e={pe.C:.4g}, "
                          f"A^e={pe.A:.4g}; g1^e = {fmt_bytes(logca.g1(pe))}, "
                          f"g^e_A/2 = {fmt_bytes(logca.g_half(pe))}.")
    observed = None
    for key in observed_for(focus.name):
        if (OBSERVED[key]["mode"] == "pipelined") == (v["mode"] == "pipelined"):
            observed = OBSERVED[key]
    out["multi"] = multi_figure(g, multi_curves(focus.params, g, v["mode"], [int(n) for n in v["n"]]), v["mode"],
                                observed, focus.label)
    out["fit_rows"], out["fit_note"] = fit_rows(focus)
    out["implications"] = implications(focus.params)
    return out


def fit_rows(a) -> tuple[list[dict], str]:
    if not a.fit:
        return [], (f"{a.label} is not fitted from measurements: choose a measured preset "
                    "(openssl-x86:…) or upload a timing table.")
    f = a.fit
    rows = []
    for mode, m in f["modes"].items():
        rows.append({"estimate": f"global fit, {mode}" + (" (chosen)" if mode == f["latency"] else ""),
                     **{k: m[k] for k in ("L", "o", "C", "A", "beta")}, "aic": m["aic"],
                     "mape": m["mape_speedup"]})
    for mode, m in f["thesis_procedure"].items():
        rows.append({"estimate": f"thesis procedure (4.3), {mode}", **{k: m[k] for k in ("L", "o", "C", "A", "beta")},
                     "aic": None, "mape": m["mape_speedup"]})
    sp = f["repeat_spread"]
    note = (f"{f['kernel']}: {len(f['residuals'])} granularities, clock {f['clock_hz'] / 1e9:.3g} GHz "
            f"({f['clock_source']}); chosen: {f['latency']} latency, mean APE on speedup "
            f"{f['mape_speedup']:.2f} %. Repeats: median coefficient of variation {100 * sp['host_cv_median']:.1f} % "
            f"(host), {100 * sp['accel_cv_median']:.1f} % (accelerated). {fit_range_text(a)}")
    return rows, note


def fit_range_text(a) -> str:
    """Where the focused accelerator's fit reproduces its measurements, and whether its break-even size lies
    outside what was measured (then it is the fit's extrapolation, not a measurement)."""
    from modeling.accelerators.calibrate import where_fit_holds

    w = where_fit_holds(a.fit["residuals"])
    tol = f"{100 * w['tolerance']:g} %"
    if w["holds"] == w["measured"]:
        text = f"The fit is within {tol} of the measured speedup at every measured size."
    else:
        worst = sorted(w["misses"], key=lambda m: -m["miss"])[:3]
        named = "; ".join(f"{fmt_bytes(m['granularity'])}: {m['measured']:.3g} measured, {m['fitted']:.3g} fitted"
                          for m in sorted(worst, key=lambda m: m["granularity"]))
        where = ("nowhere" if w["holds"] == 0 else
                 f"at {w['holds']} of {w['measured']} sizes, {fmt_bytes(w['holds_from'])} to "
                 f"{fmt_bytes(w['holds_to'])}")
        text = (f"The fit is within {tol} of the measured speedup {where}; it misses at "
                f"{len(w['misses'])} (largest: {named}): there, read the curve as the model's trend, not as the "
                "accelerator's speedup.")
    b1 = logca.g1(a.params)
    if b1 is not None and w["smallest_measured"] is not None and b1 < w["smallest_measured"]:
        text += (f" Break-even g1 = {fmt_bytes(b1)} lies below the smallest measured size "
                 f"({fmt_bytes(w['smallest_measured'])}): an extrapolation of the fit.")
    elif b1 is not None and w["largest_measured"] is not None and b1 > w["largest_measured"]:
        text += (f" Break-even g1 = {fmt_bytes(b1)} lies above the largest measured size "
                 f"({fmt_bytes(w['largest_measured'])}): an extrapolation of the fit.")
    return text


def accelerometer_view(v: dict) -> dict:
    """Bounds, regions, totems and the advisor for one accelerator."""
    g = grid_of(v)
    a = sources.resolve(v["acc"], v)
    factor, threshold = v["factor"], v["threshold"] / 100.0
    reg = optimization_regions(a.params, v["gmin"], v["gmax"], factor, threshold)
    cut_rows = [{"parameter": k, "from": c[0] if c else None, "to": c[1] if c else None,
                 "from_text": fmt_bytes(c[0]) if c else "no gain", "to_text": fmt_bytes(c[1]) if c else ""}
                for k, c in reg.cutoffs.items()]
    region_rows = [{"params": r.params, "from": r.start, "to": r.end, "from_text": fmt_bytes(r.start),
                    "to_text": fmt_bytes(r.end)} for r in reg.regions]
    p = a.params
    title = f"{a.label}: {logca.bound_kind(p)}-bound (limit {logca.large_g_limit(p):.3g})"
    return {"accel": a, "bounds": bounds_figure(g, logca.speedup(p, g), logca.bound_curves(p, g), title, p.dependent),
            "regions": regions_figure(reg, v["gmin"], v["gmax"]), "totem": totem_figure(totem(a.params, g), g,
                                                                                        a.label),
            "cutoffs": cut_rows, "region_rows": region_rows,
            "advice": advise(a.params, v["target"], v["g0"], factor, threshold)}
