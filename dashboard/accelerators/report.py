"""/logca and /accelerometer as design-review reports (dashboard/ui/report.py): the charts and tables the page
shows for the same validated settings, the implications or the advisor's decisions, the inputs, where each
accelerator's parameters come from (a thesis preset, timings measured on this machine, an uploaded timing
table with its checksum, typed values), the code version and the link that reopens the view."""

from __future__ import annotations

import time

from dashboard.accelerators import sources
from dashboard.accelerators.views import accelerometer_view, logca_view
from dashboard.ui.report import Report, Section, Table
from modeling.accelerators.advisor import fmt_bytes
from modeling.version import code_version


def _source(a, v: dict) -> str:
    if a.name == sources.CUSTOM:
        return f"{a.label}: typed parameters"
    if a.name.startswith("upload:"):
        from dashboard.state import timings

        meta = timings.timing_meta(sources.upload_ref(a.name, v)[0])
        return (f"{a.label}: fitted from the uploaded timing table {meta['name']!r} ({meta['id']}, "
                f"sha256 {meta['sha256'][:16]})")
    if a.fit:
        return f"{a.label}: fitted from timings measured on this machine (shipped with perfcast)"
    return f"{a.label}: preset from the thesis' tables"


def provenance(accels, v: dict) -> str:
    return ("; ".join(_source(a, v) for a in accels) + f". Code version {code_version()}; "
            f"made {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.")


def _now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


METRICS = [("accelerator", "accelerator"), ("latency", "latency"), ("L", "L"), ("o", "o"), ("C", "C"), ("A", "A"),
           ("beta", "β"), ("g1", "g1 (B)"), ("g1_thesis", "g1 closed form"), ("g_half", "g_A/2 (B)"),
           ("g_half_thesis", "g_A/2 closed form"), ("bound", "bound"), ("bound_kind", "bound kind")]
FIT = [("estimate", "estimate"), ("L", "L"), ("o", "o"), ("C", "C"), ("A", "A"), ("beta", "β"), ("aic", "AIC"),
       ("mape", "mean APE % (speedup)")]


def build_logca(v: dict, link: str) -> Report:
    """The /logca report for validated settings ``v``."""
    out = logca_view(v)
    accels = [sources.resolve(n, v) for n in v["acc"]]
    focus = next(a for a in accels if a.name == v["focus"])
    m = next(r for r in out["rows"] if r["accelerator"] == focus.label)
    implications = [f"Implication {i['id']}{'' if i['applies'] else ' (does not apply here)'}: {i['text']}"
                    for i in out["implications"]]
    return Report(
        title=f"LogCA: when offloading pays ({', '.join(a.label for a in accels)})",
        facts=[("focus", focus.label), ("break-even g1", fmt_bytes(m["g1"]) if m["g1"] else "none"),
               ("half of the acceleration at", fmt_bytes(m["g_half"]) if m["g_half"] else "none"),
               ("speedup bound", f"{m['bound']:.3g} ({m['bound_kind']})" if m["bound"] else "none")],
        sections=[Section("Speedup against granularity", figures=[out["speedup"]],
                          tables=[Table(METRICS, out["rows"], "Metrics (exact roots beside the closed forms)")]),
                  Section(f"Energy of {focus.label}", [out["energy_note"]], figures=[out["energy"]]),
                  Section(f"Several accelerators ({v['mode']})", figures=[out["multi"]]),
                  Section("Fitted parameters", [out["fit_note"]],
                          tables=[Table(FIT, out["fit_rows"])] if out["fit_rows"] else []),
                  Section("Implications", implications)],
        inputs={k: v[k] for k in v if v[k] not in (None, "", [])}, provenance=provenance(accels, v), link=link,
        generated=_now())


def build_accelerometer(v: dict, link: str) -> Report:
    """The /accelerometer report for validated settings ``v``."""
    out = accelerometer_view(v)
    a, adv = out["accel"], out["advice"]
    factors = [{"parameter": k, "factor": x["factor"] if x["reachable"] else None,
                "reachable": x["reachable"], "bound": x["bound"]} for k, x in adv["min_factors"].items()]
    return Report(
        title=f"Accelerometer: what limits {a.label}",
        facts=[("speedup now", f"{adv['speedup']:.3g} at {fmt_bytes(adv['granularity'])}"),
               ("optimization region", adv["region"] or "none"), ("target", f"{adv['target']:g}×"),
               ("smallest granularity for the target", fmt_bytes(adv["min_granularity"]))],
        sections=[Section("Bounds", figures=[out["bounds"]]),
                  Section("Optimization regions", figures=[out["regions"]], tables=[
                      Table([("params", "region"), ("from_text", "from"), ("to_text", "to")], out["region_rows"]),
                      Table([("parameter", "parameter"), ("from_text", "pays from"), ("to_text", "to")],
                            out["cutoffs"], "Where improving each parameter pays")]),
                  Section("Totem", figures=[out["totem"]]),
                  Section("Advisor", [f"Programmer: {adv['programmer']['decision']}",
                                      *adv["programmer"]["notes"],
                                      f"Architect: {adv['architect']['decision']}", *adv["architect"]["notes"][:1]],
                          tables=[Table([("parameter", "parameter"), ("factor", "smallest improvement (×)"),
                                         ("reachable", "reaches the target"), ("bound", "speedup at its extreme")],
                                        factors)])],
        inputs={k: v[k] for k in v if v[k] not in (None, "", [])}, provenance=provenance([a], v), link=link,
        generated=_now())
