"""What /new-app shows beside its cards, from a typed result (:mod:`dashboard.newapp.results`) and the calibration
form: grid rows and columns and the calibration's sentence (no Dash components or callbacks; every statistic
comes from the result types of modeling.newapp.results and .hypothetical; the headline facts, notes and sentences
are the results' summaries, :mod:`modeling.newapp.summary`)."""

from __future__ import annotations


from dashboard.newapp import work
from dashboard.newapp.results import HeldOutRun, UnbuiltGpuRun
from dashboard.ui.components import fitted, num_col
from dashboard.ui.format import si, si_col
from dashboard.ui.url_state import InvalidParameter
from modeling.errors import ModelingError
from modeling.newapp.estimators import COMPUTE_UTIL, MEMORY_FRACTION
from modeling.newapp.results import ApplicationEstimate, HeldOutEvaluation
from modeling.newapp.summary import HYPO_TIME_HEADERS, HYPO_TIMES, pct, track_rows  # noqa: F401 - for the page

P = "newapp"
ESTIMATE_NOTES = {
    "naive-pooled": "host × median target/host ratio of the training workloads; range: training kernels' ratios",
    "naive-balanced": "host × median of the training kernels' median ratios (each kernel once); same range",
    "roofline": (f"spec ratio by class from host counters: memory-bound (DRAM ≥ {MEMORY_FRACTION:g} × peak) → "
                 f"bandwidth; compute-bound (issue slots ≥ {COMPUTE_UTIL:g} %) → cores × clock; else latency → "
                 "clock × waves; range: the three class ratios"),
    "one-run": "the kernel's own ratio measured at the calibrating input(s); range: ± the training kernels' "
               "within-kernel spread",
}
MODEL_NOTE = "model on log(target/host); range: all models' spread"


def _num(field: str, header: str, digits: int, values) -> dict:
    """A number column (``num_col``'s format: thousands separated, ``digits`` decimals) wide enough for
    ``values``."""
    return fitted(num_col(field, header, digits), [f"{v:,.{digits}f}" for v in values if v is not None])


def picks_of(cal, cal_time):
    """The calibration the form asks for, validated: [] (none) or [{id, time?}]; InvalidParameter otherwise."""
    if cal in (None, ""):
        return []
    if not isinstance(cal, str) or len(cal) > 200:
        raise InvalidParameter("cal", "expected a workload id")
    if cal_time in (None, ""):
        return [{"id": cal}]
    if isinstance(cal_time, bool):
        raise InvalidParameter("cal_time", "expected a number")
    try:
        t = float(cal_time)
    except (TypeError, ValueError):
        raise InvalidParameter("cal_time", f"{str(cal_time)[:30]!r} is not a number") from None
    if not (t > 0 and t < float("inf")):
        raise InvalidParameter("cal_time", "a measured time must be a positive number")
    return [{"id": cal, "time": t}]


def shown_application(run: HeldOutRun, cal, cal_time) -> tuple[ApplicationEstimate, str | None, str | None]:
    """The held-out application as the page shows it: the cached result, calibrated with the form's input when
    one is chosen (its estimates recomputed, its models kept). Returns (result, the calibration's sentence,
    why the calibration was refused); the last two are None when there is nothing to say."""
    app = run.application
    try:
        picks = picks_of(cal, cal_time)
        if not picks:
            return app, None, None
        app = app.with_calibration(work.calibrated(run.params, picks))
    except (InvalidParameter, ModelingError) as exc:
        return app, None, str(exc)
    return app, calibration_text(app, picks[0]["id"]), None


def calibration_text(app: ApplicationEstimate, workload: str) -> str:
    one, naive = app.method("one-run"), app.method("naive-pooled")
    if not one.scored:
        return f"Calibrated with {workload}; the kernel's other inputs have no measured target here to score against."
    return (f"Calibrated with {workload}: mean APE on the kernel's other {one.n} input(s) {one.mean_ape:.1f} % "
            f"(naive-pooled on the same application: {pct(naive.mean_ape)}).")


def method_note(m, app: ApplicationEstimate) -> str:
    """What a method is, with what it used on this application (its ratio, the roofline's classes, the
    calibrated kernels' ratios)."""
    if m.missing:
        return f"not available: {m.missing}"
    if m.note:  # an absurd error first: what it means before what the method is
        return f"{m.note} ({ESTIMATE_NOTES.get(m.method, MODEL_NOTE)})"
    note = ESTIMATE_NOTES.get(m.method, MODEL_NOTE)
    if m.ratio is not None:
        note = f"ratio {m.ratio:.3g}: " + note
    if m.class_counts:
        note = ", ".join(f"{n} {c}-bound" for c, n in m.class_counts.items()) + ": " + note
    if m.method == "one-run":
        if not app.calibrated:
            return "choose a calibrating input below to see it"
        note = "; ".join(f"{k}: ratio {d['ratio']:.3g}" for k, d in app.one_run.items()) + "; " + note
    return note


def method_columns(app: ApplicationEstimate | None = None) -> list[dict]:
    """The estimates grid: names and numbers shown whole (a model can be off by millions of percent), the
    note takes the room left and wraps."""
    ms = app.methods if app else []
    return [
        fitted({"field": "method", "headerName": "method", "minWidth": 150}, [m.method for m in ms]),
        {"field": "kind", "headerName": "kind", "minWidth": 90, "maxWidth": 110},
        *[_num(f, h, d, [getattr(m, f) for m in ms]) for f, h, d in (
            ("mean_ape", "mean APE %", 1), ("median_ape", "median APE %", 1), ("within_10", "within 10 %", 0),
            ("within_25", "within 25 %", 0))],
        fitted({"field": "n", "headerName": "workloads", "minWidth": 96, "type": "numericColumn"}),
        {"field": "note", "headerName": "what it is", "minWidth": 260, "flex": 2, "wrapText": True,
         "autoHeight": True, "tooltipField": "note", "cellStyle": {"lineHeight": "1.35", "padding": "4px 8px"}},
    ]


def method_rows(app: ApplicationEstimate) -> list[dict]:
    return [{"method": m.method, "kind": m.kind, "mean_ape": m.mean_ape, "median_ape": m.median_ape,
             "within_10": m.within_10, "within_25": m.within_25, "n": m.n, "note": method_note(m, app)}
            for m in app.methods]


def _time_col(field: str, header: str, unit: str) -> dict:
    """A time (or cycles) column with an SI prefix: "99.5 ms" fits 112 px; the header's words are fitted."""
    return fitted({**si_col(field, header, unit), "minWidth": 112})


def _names(rows: list[dict], fields) -> list[dict]:
    """Text columns of ``rows`` (the first pinned left) as wide as their longest value, with tooltips."""
    return [fitted({"field": f, "headerName": h, "minWidth": 96, "tooltipField": f, **({"pinned": "left"} if i == 0
                                                                                     else {})},
                   [r.get(f) for r in rows]) for i, (f, h) in enumerate(fields)]


def workload_columns(app: ApplicationEstimate, unit: str) -> list[dict]:
    """The workload, its host and measured values, then each method that estimated something (one-run always:
    it fills in once calibrated), the estimates with their range."""
    cols = [*_names(app.rows, (("id", "workload"), ("kernel", "kernel"))),
            _time_col("host", "host's own", unit), _time_col("measured", "measured on target", unit)]
    for m in app.methods:
        if m.scored or m.method == "one-run":
            cols.append(_time_col(f"{m.method}|point", m.method, unit))
            if m.kind == "estimate":
                cols += [_time_col(f"{m.method}|lo", f"{m.method} low", unit),
                         _time_col(f"{m.method}|hi", f"{m.method} high", unit)]
    return cols


def held_out_columns(allres: HeldOutEvaluation) -> list[dict]:
    ms = allres.methods
    return [fitted({"field": "method", "headerName": "method", "minWidth": 150, "pinned": "left"},
                   [m.method for m in ms]),
            _num("mean_ape", "all: mean APE %", 1, [m.mean_ape for m in ms]),
            _num("median_ape", "all: median %", 1, [m.median_ape for m in ms]),
            _num("within_10", "all: within 10 %", 0, [m.within_10 for m in ms])] + \
        [_num(f"g|{g}", f"{g}: mean APE %", 1, [m.per_group[g].mean_ape for m in ms]) for g in allres.groups] + \
        ([{"field": "note", "headerName": "note", "minWidth": 260, "flex": 2, "wrapText": True, "autoHeight": True,
           "tooltipField": "note", "cellStyle": {"lineHeight": "1.35", "padding": "4px 8px"}}]
         if any(m.note for m in ms) else [])


def held_out_rows(allres: HeldOutEvaluation) -> list[dict]:
    return [{"method": m.method, "mean_ape": m.mean_ape, "median_ape": m.median_ape, "within_10": m.within_10,
             **{f"g|{g}": m.per_group[g].mean_ape for g in allres.groups}, "note": m.note or ""}
            for m in allres.methods]


def calibration_options(params: dict, rows: list[dict] | None = None) -> list[dict]:
    """One option per workload of the held-out application, by kernel and size (known before any run, so a
    link's calibrating input is kept while its job runs). ``rows``: the workloads when a result has them."""
    if rows is None:
        try:
            rows = work.held_out_workloads(params)
        except (ModelingError, LookupError):
            rows = []

    def host(r):
        return si(r["host"], "s") if params["metric"] == "duration" else f"{r['host']:.4g}"
    return [{"label": f"{r['id']} (host {host(r)})", "value": r["id"]}
            for r in sorted(rows, key=lambda r: (r["kernel"], r["host"]))]


# a GPU never built or measured

def track_columns(rows: list[dict] = ()) -> list[dict]:
    """The rule's record per pair; the architecture column as wide as its longest value (the pooled row lists
    every architecture)."""
    return [fitted({"field": "target", "headerName": "measured target", "minWidth": 170, "pinned": "left"},
                   [r["target"] for r in rows]),
            fitted({"field": "architecture", "headerName": "architecture", "minWidth": 110},
                   [r["architecture"] for r in rows]),
            {"field": "n", "headerName": "workloads", "minWidth": 96, "type": "numericColumn"},
            num_col("median_ape", "median APE %", 1), num_col("mean_ape", "mean APE %", 1),
            num_col("within_25", "within 25 %", 0),
            num_col("in_interval", "inside the interval built without it %", 0),
            num_col("in_class_range", "inside the class range (not an interval) %", 0)]


def hypo_columns(unit: str, rows: list[dict] = ()) -> list[dict]:
    """The per-workload columns of a never-measured GPU; the text columns as wide as ``rows``' values."""
    return _names(rows, (("id", "workload"), ("application", "application"), ("kernel", "kernel"),
                         ("class", "class"))) + \
        [_time_col(k, h, unit) for k, h in zip(HYPO_TIMES, HYPO_TIME_HEADERS)] + [num_col("ratio", "ratio to host", 4)]


# the four held-out splits of a GPU never built

SPLIT_COLUMNS = (("target", "held out"), ("architecture", "architecture"), ("released", "released"),
                 ("mean_ape", "mean APE %"), ("median_ape", "median APE %"), ("factor", "interval factor"),
                 ("coverage", "inside its interval %"), ("training", "interval calibrated on"))


def split_rows(split) -> list[dict]:
    """Per held-out GPU of one split (a :class:`~modeling.newapp.splits.SplitResult`): its figures as text."""
    def f(v, d=1):
        return "-" if v is None else f"{v:.{d}f}"
    return [{"target": g.target, "architecture": g.architecture, "released": g.released or "-",
             "mean_ape": f(g.mean_ape), "median_ape": f(g.median_ape), "factor": f(g.factor, 2),
             "coverage": f(g.coverage), "training": ", ".join(g.training) or "-",
             "note": g.note or ""} for g in split.gpus]


def split_summary_rows(splits) -> list[dict]:
    """One row per split: the lowest and the mean coverage over its held-out GPUs, the mean APE over them."""
    def f(v):
        return "-" if v is None else f"{v:.1f}"
    return [{"split": s.label, "min_coverage": f(s.min_coverage), "mean_coverage": f(s.mean_coverage),
             "mean_ape": f(s.mean_ape), "gpus": f"{len(s.covered)} of {len(s.gpus)}"} for s in splits.splits]


def kernel_table(split) -> tuple[list[tuple[str, str]], list[dict]]:
    """(columns, rows) of the mean APE % per kernel (rows) and held-out GPU (columns) of one split."""
    gpus = split.gpus
    kernels = sorted({k for g in gpus for k in g.per_kernel})
    cols = [("kernel", "kernel"), *[(f"g{i}", g.target) for i, g in enumerate(gpus)]]
    rows = [{"kernel": k, **{f"g{i}": ("-" if g.per_kernel.get(k) is None else f"{g.per_kernel[k]:.1f}")
                             for i, g in enumerate(gpus)}} for k in kernels]
    return cols, rows


SPLIT_SUMMARY_COLUMNS = (("split", "split"), ("min_coverage", "lowest coverage %"),
                         ("mean_coverage", "mean coverage %"), ("mean_ape", "mean APE %"),
                         ("gpus", "GPUs with an interval"))


def resembled_split(run: UnbuiltGpuRun):
    """The split the question resembles (:func:`modeling.newapp.splits.resembles`) and the sentence saying so,
    or (None, None) without splits."""
    from modeling.newapp.splits import resembles

    if run.splits is None:
        return None, None
    h = run.estimate
    measured = [{"architecture": p["architecture"]} for p in h.track.pairs if p.get("calibrates", True)]
    key = resembles(h.device, measured)
    s = run.splits.split(key)
    why = (f"{h.device['architecture']} is among the measured architectures" if key == "gpu" else
           f"no measured GPU other than it is {h.device['architecture']}")
    low = "no held-out GPU had an interval" if s.min_coverage is None else (
        f"its {run.splits.level * 100:g} % interval held for at least {s.min_coverage:.1f} % of a held-out GPU's "
        f"workloads (mean {s.mean_coverage:.1f} %)")
    text = (f"Your question resembles the split '{s.label}' ({why}): with each measured GPU held out that way, "
            f"the estimate's mean APE was {s.mean_ape:.1f} % on average over the held-out GPUs and {low}. "
            "A GPU released after every measured one is also the chronological split: see the table of all four. "
            + OUTSIDE[key])
    return s, text


#: what the splits' intervals did on two public datasets perfcast was not built on (KernelBench's timings on six
#: GPUs, apps-2016's kernels on eight: docs/methods/newapp.md, benchmarks/kernelbench_splits.py and
#: apps2016_splits.py)
OUTSIDE = {
    "gpu": "On two public datasets perfcast was not built on, this split's interval kept its promise.",
    "architecture": "On two public datasets perfcast was not built on, a new architecture's interval (and the "
                    "chronological one) held for fewer held-out GPUs than it promised: read it as a rough range, "
                    "not a guarantee (docs/methods/newapp.md).",
}
