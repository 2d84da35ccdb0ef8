"""The summaries of /new-app's results (:class:`modeling.results.Summary`): an application held out
(:class:`~modeling.newapp.results.ApplicationEstimate`), every application held out in turn
(:class:`~modeling.newapp.results.HeldOutEvaluation`) and a GPU never built or measured
(:class:`~modeling.newapp.hypothetical.HypotheticalEstimate`). The command line (``python -m modeling newapp``),
/new-app's cards and its report render these summaries; their ``summary()`` methods call them."""

from __future__ import annotations

from modeling.results import Fact, Note, Provenance, Summary, SummaryTable
from modeling.shipped import METRIC_LABELS


def pct(v) -> str:
    """A percentage to one decimal, "–" for none."""
    return "–" if v is None else f"{v:.1f} %"


def _provenance(provenance: Provenance | None) -> str:
    return provenance.text() if provenance is not None else ""


def _warning_notes(warnings: list[dict], head: str = "") -> tuple[Note, ...]:
    """The warnings ({code, title, evidence}) as notes: the title said strongly, then its evidence."""
    return tuple(Note(w["evidence"], head=f"{head}{w['title']} ") for w in warnings)


def _absurd_notes(methods) -> tuple[Note, ...]:
    return tuple(Note(m.note, head=f"{m.method}: ") for m in methods if m.note)


def _methods_table(res, groups: tuple[str, ...] = ()) -> SummaryTable:
    import pandas as pd

    rows = [{"method": m.method, "kind": m.kind, "mean_ape": m.mean_ape, "median_ape": m.median_ape,
             "within_10": m.within_10, "within_25": m.within_25, "n": m.n,
             **{f"g|{g}": m.per_group[g].mean_ape for g in groups if m.per_group}, "missing": m.missing or ""}
            for m in res.methods]
    columns = (("method", "method"), ("kind", "kind"), ("mean_ape", "mean APE %"), ("median_ape", "median APE %"),
               ("within_10", "within 10 %"), ("within_25", "within 25 %"), ("n", "workloads"),
               *[(f"g|{g}", f"{g}: mean APE %") for g in groups], ("missing", "not available"))
    decimals = {"mean_ape": 1, "median_ape": 1, "within_10": 1, "within_25": 1, **{f"g|{g}": 1 for g in groups}}
    # the numbers whole with their decimals: a model can be off by millions of percent
    return SummaryTable("The estimates' errors on the held-out workloads", pd.DataFrame(rows),
                        columns, decimals, key="methods", text_decimals=True)


def _best(res) -> str:
    best = res.best
    return "–" if best is None else f"{best.method}: {best.mean_ape:.1f} %"


def specs_text(host_spec: dict | None, target_spec: dict | None) -> str:
    """The roofline's device specs in words ("none chosen" without any)."""
    return ", ".join(f"{w} {s['device']} ({s['architecture']}, {s['sms']:.0f} SMs, {s['memory_bandwidth_gbs']:g} GB/s)"
                     for w, s in (("host", host_spec), ("target", target_spec)) if s) or "none chosen"


def application(app, dataset_name: str, host_spec: dict | None = None, target_spec: dict | None = None,
                provenance: Provenance | None = None, metric: str | None = None) -> Summary:
    """An application held out: who it is, what was learned from, the naive and the best error, its warnings,
    which data and specs the numbers come from, the methods' errors and the provenance. ``metric``: the metric
    as the page's parameters name it (an upload's is "value"; default the table's scenario's)."""
    naive = app.method("naive-pooled")
    s = app.scenario
    facts = (Fact("held out", app.application, key="held-out"),
             Fact("workloads (measured)", f"{app.n_workloads} ({app.n_measured})"),
             Fact("learned from", ", ".join(app.training_applications) or "–"),
             Fact("naive-pooled mean APE", pct(naive.mean_ape if naive else None), key="naive"),
             Fact("lowest mean APE", _best(app), key="best"))
    label = METRIC_LABELS.get(metric or s.get("metric"))
    lead = (f"{dataset_name}: {s.get('host')} → {s.get('target')}, {label}; roofline specs: "
            f"{specs_text(host_spec, target_spec)}. Errors are against the measured target of the held-out workloads.")
    return Summary(f"{app.application} held out: estimates for an application never run on the target", facts, lead,
                   _warning_notes(app.warnings) + _absurd_notes(app.methods), (), (_methods_table(app),),
                   provenance, _provenance(provenance))


def evaluation(ev, dataset_name: str, provenance: Provenance | None = None) -> Summary:
    """Every application (or kernel) held out in turn: the scenario, the best method, each held-out group's
    warnings (their titles), the methods' errors overall and per group, and the provenance."""
    s = ev.scenario
    facts = (Fact("scenario", f"{s.get('host')} → {s.get('target')}, {METRIC_LABELS.get(s.get('metric'))}"),
             Fact("held out", ev.cv_label),
             Fact("workloads", f"{ev.n_workloads}"),
             Fact("one-run calibrates with", f"{s.get('calibrate_with')} input(s) per kernel"),
             Fact("lowest mean APE", _best(ev), key="best"))
    notes = tuple(Note(w["title"], head=f"{g}: ") for g, ws in ev.warnings.items() for w in ws)
    return Summary(f"Every application held out in turn ({dataset_name})", facts,
                   "Errors are against the measured target of the held-out workloads.",
                   notes + _absurd_notes(ev.methods), (), (_methods_table(ev, tuple(ev.groups)),),
                   provenance, _provenance(provenance))


def interval_fact(iv: dict | None) -> Fact:
    """The error interval of a never-measured GPU's estimates, with the coverage reached by each measured GPU
    held out in turn (the lowest and the mean, not pooled)."""
    if not iv:
        return Fact("interval", "needs two measured pairs", key="interval")
    cap = ("" if iv["level_supported"] >= iv["level"] else
           f"; {iv['n_pairs']} pairs support at most {iv['level_supported'] * 100:.0f} %")
    held = (f"each measured GPU held out: lowest {iv['held_out_min']:.1f} %, mean {iv['held_out_coverage']:.1f} % "
            "inside" if iv.get("held_out_min") is not None else iv.get("note") or "held-out coverage not measured")
    return Fact(f"{iv['level'] * 100:g} % interval (estimate ÷/× factor)", f"×{iv['factor']:.2f} ({held}{cap})",
                key="interval")


def track_rows(track) -> list[dict]:
    """The rule's record per measured pair (the predicted GPU's own pair marked: scored, never calibrating), then
    pooled over the calibrating pairs and over the same-architecture pairs."""
    keys = ("n", "median_ape", "mean_ape", "within_25", "in_interval", "in_class_range")
    rows = [{"target": p["target"] + ("" if p.get("calibrates", True) else " (predicted GPU: not calibrating)"),
             "architecture": p["architecture"], **{k: p.get(k) for k in keys}} for p in track.pairs]
    if track.pairs:
        rows.append({"target": "calibrating pairs pooled", "architecture": ", ".join(track.architectures),
                     **track.pooled})
    same = track.same_architecture
    if same:
        arch = same.get("architecture", "")
        rows.append({"target": f"{arch} pairs pooled".strip(), "architecture": arch, **same})
    return rows


#: the record's columns: (field, heading)
TRACK_COLUMNS = (("target", "measured target"), ("architecture", "architecture"), ("n", "workloads"),
                 ("median_ape", "median APE %"), ("mean_ape", "mean APE %"), ("within_25", "within 25 %"),
                 ("in_interval", "inside the interval built without it %"),
                 ("in_class_range", "inside the class range (not an interval) %"))
#: the per-workload columns of a never-measured GPU that hold times (their heading names the unit)
HYPO_TIMES = ("host", "point", "lower", "upper", "lo", "hi")
HYPO_TIME_HEADERS = ("host's own", "estimate", "interval low", "interval high", "class range low", "class range high")


def hypothetical(h, dataset_name: str, unit: str = "", provenance: Provenance | None = None) -> Summary:
    """A GPU never built or measured: its specs, the rule's record on measured pairs (median and mean APE, how
    often the measured value fell inside the class range, the interval), its applicability, whether it is itself
    a measured target, its warnings, where the figures come from, the record and every workload's estimate."""
    import pandas as pd

    d, tr, counts = h.device, h.track, h.class_counts
    pooled, same = tr.pooled, tr.same_architecture
    facts = (
        Fact("device", f"{d['architecture']}, {d['sms']:.0f} SMs, {d['cuda_cores']:,.0f} cores, "
                       f"{d['boost_clock_mhz']:,.4g} MHz, {d['memory_bandwidth_gbs']:,.4g} GB/s"),
        Fact("workloads estimated", f"{h.n_workloads}", key="n"),
        Fact("rule's median APE on measured pairs", pct(pooled.get("median_ape")), key="median"),
        Fact("mean APE", pct(pooled.get("mean_ape")), key="mean"),
        Fact("inside the class range (which class; not an interval)", pct(pooled.get("in_class_range")),
             key="inrange"),
        interval_fact(tr.interval),
        Fact("same architecture: median APE", pct(same["median_ape"]) if same else "none measured"),
        Fact("applicability", h.applicability["verdict"], key="verdict"))
    verdict = h.applicability["verdict"]
    itself = [p for p in tr.pairs if not p.get("calibrates", True)]
    own_note = ()
    if itself:
        own, iv = itself[0], tr.interval
        check = "" if own.get("in_interval") is None or not iv else (
            f" {own['in_interval']:.1f} % of its measured workloads lie inside the stated {iv['level'] * 100:g} % "
            f"interval: it {'covers' if own['in_interval'] >= 100 * iv['level'] else 'does NOT cover'} what it "
            "says.")
        own_note = (Note(f"{own['target']} is itself one of the measured targets: its row in the record below is "
                         "this very estimate scored against its measured times. Nothing measured on it is used: not "
                         "for the estimate, not for the interval's calibration, not for the pooled figures." + check,
                         "info", key="itself"),)
    notes = own_note + _warning_notes(h.warnings)
    lead = (f"From {dataset_name}: {h.host['device']}'s counters, {METRIC_LABELS.get(h.metric)}. "
            f"Classes: {counts['memory']} memory-, {counts['compute']} compute-, {counts['latency']} latency-bound. "
            f"The error figures come from {tr.source} (pooled over all their workloads, the predicted GPU's own pair "
            "left out)"
            + ("" if verdict == "inside" else "; a device unlike those measured is an extrapolation of them") + ".")
    suffix = f" ({unit})" if unit else ""
    decimals = {"median_ape": 1, "mean_ape": 1, "within_25": 1, "in_interval": 1, "in_class_range": 1}
    record = SummaryTable("The same rule on measured pairs", pd.DataFrame(track_rows(tr), columns=[
        f for f, _ in TRACK_COLUMNS]), TRACK_COLUMNS, decimals, key="track", text_decimals=True)
    wcols = (("id", "workload"), ("application", "application"), ("kernel", "kernel"), ("class", "class"),
             *[(k, f"{head}{suffix}") for k, head in zip(HYPO_TIMES, HYPO_TIME_HEADERS)], ("ratio", "ratio to host"))
    workloads = SummaryTable("Estimates per workload", pd.DataFrame(h.rows, columns=[f for f, _ in wcols]), wcols,
                             {"ratio": 4}, key="workloads", digits=5)
    return Summary(f"{d['device']}: estimates for a GPU never measured (from its specs only)", facts, lead, notes,
                   (), (record, workloads), provenance, _provenance(provenance))
