"""The summary of a cross-generation prediction (:class:`modeling.results.Summary`): the headline facts, what the
interval means, the warnings, the details, the table of predictions and the candidates a recommended model was
chosen from. The command line (``python -m modeling predict``), the /predict page and its report render this one
summary (:meth:`modeling.crossgen.prediction_result.Prediction.summary`)."""

from __future__ import annotations

from dataclasses import dataclass

from modeling.crossgen.situations import NEW_INPUTS
from modeling.intervals import conformal
from modeling.results import Fact, Note, Summary, SummaryTable, number

#: where the estimates of one application never measured are (the /new-app page, ``python -m modeling newapp``)
NEWAPP = "/new-app"


@dataclass(frozen=True)
class Context:
    """What a prediction's summary says beside the prediction: the workloads' source in words, the unit of the
    values, the scenario's sentence and the provenance (its sentence and the :class:`~modeling.results.Provenance`)."""

    source_name: str
    target: str = ""
    unit: str = ""
    scenario_text: str = ""
    provenance: object = None
    provenance_text: str = ""


def pct(v, digits=1) -> str:
    return "–" if v is None else f"{v:.{digits}f} %"


def with_unit(label: str, unit: str | None) -> str:
    """A column heading with its unit in brackets, or the label alone when there is no unit."""
    return f"{label} ({unit})" if unit else label


def interval_sentence(p) -> str:
    """What the interval means, in words, with the way to the other situation."""
    lvl = f"{p.choice.level * 100:g} %"
    if not p.interval_supported:
        return (f"No {lvl} interval is given: too few applications (or workloads) can be held out to support that "
                f"level (see the note above). See {NEWAPP} for estimates of one held-out application with one-run "
                "calibration.")
    if p.choice.situation == NEW_INPUTS:
        return (f"What the interval means: {lvl} of workloads like the training ones (applications already "
                "measured, at new inputs) fall within their interval, as cross-validation on the measured workloads "
                f"showed ({pct(conformal.quoted_coverage(p.cv_coverage))} did). For applications not in the training "
                "data choose 'applications not in the training data' above (wider intervals, from holding "
                f"applications out), and see {NEWAPP} for estimates with one-run calibration.")
    return (f"What the interval means: {lvl} of workloads of an application not in the training data fall within "
            "their interval, as holding whole applications out showed "
            f"({pct(conformal.quoted_coverage(p.cv_coverage))} did, each held-out set of applications weighing one). "
            f"See {NEWAPP} for estimates of one held-out application with one-run calibration.")


def model_facts(p) -> dict:
    """Which model made the numbers and why: the chosen one, how often it won the outer folds, the trade-off
    note."""
    label, sel = p.choice.label, p.selection
    if not sel:
        return {"model": label, "why": f"chosen by you ({p.choice.requested_model}, transform "
                                       f"{p.choice.requested_transform})", "folds": None, "note": None}
    wins = sel.get("chosen_in_folds") or {}
    n = sum(wins.values())
    won = wins.get(sel["chosen"], 0)
    others = ", ".join(f"{k} {v}" for k, v in sorted(wins.items(), key=lambda kv: -kv[1]) if k != sel["chosen"])
    folds = (f"{sel['chosen']} was chosen in {won} of {n} outer folds" + (f" (others: {others})" if others else "")
             if n else None)
    return {"model": label, "why": f"recommended: lowest {sel['criterion']} among {sel['n_candidates']} candidates "
                                   "(models × transforms and the baseline), by nested cross-validation",
            "folds": folds, "note": sel.get("note")}


def candidate_rows(p) -> list[dict]:
    """The candidates of a recommended model, best first (the baseline always among them)."""
    sel = p.selection
    if not sel:
        return []
    return [{"rank": i + 1, "candidate": c.get("label") or c["model"], "male": c.get("male"),
             "mean_ape": c.get("mean_ape"), "median_ape": c.get("median_ape"), "ir10": c.get("ir10"),
             "chosen": "★" if (c.get("label") or c["model"]) == sel["chosen"] else ""}
            for i, c in enumerate(sel["candidates"])]


def unit_weighting(err: dict) -> str:
    """How a new-application error is weighted, with the workload-weighted mean beside it ("" otherwise)."""
    if err.get("mean_ape_workloads") is None:
        return ""
    return (f"; each of the {err['units']} held-out sets of whole applications weighs one, its workloads "
            f"equally (as the table weighs its rows); every workload weighing one: mean APE "
            f"{err['mean_ape_workloads']:.2f} %")


def width_text(cov: dict) -> str:
    """The median held-out interval's width factor (upper / lower), "" in a result saved without it."""
    w = cov.get("median_width")
    return "" if w is None else f"×{number(w)}"


def coverage_detail(p, width: str) -> str:
    cov = p.cv_coverage
    return (f"held-out coverage: {pct(cov['workloads'])} of the training workloads, "
            f"{pct(cov['folds'])} on average over {cov['n_folds']} folds"
            + (" (the figure quoted: each held-out set of applications weighs one)"
               if "quoted" in cov and p.interval_rule != "pooled" else "")
            + (f", median width {width} (upper / lower)" if width else "")
            + (f"; {cov['folds_below_level']} fold(s) below the level" if cov.get("folds_below_level") else "")
            + ("" if p.interval_supported else "; no interval is given for the predictions (too few held-out "
               "units for the level)"))


def error_detail(p) -> str:
    err = p.cv_error
    return (f"cross-validated error of the whole procedure ({p.cv_scheme}): mean APE {err['mean_ape']:.2f} %, "
            f"median {err['median_ape']:.2f} %, within 10 %: {err['ir10']:.0f} % of workloads, worst "
            f"{number(err['max_ape'])} %" + unit_weighting(err))


def baseline_detail(p) -> str:
    base = p.baseline_cv
    if not base:
        return ""
    return (f"baseline (host × median target/host ratio) through the same folds: mean APE {base['mean_ape']:.2f} %, "
            f"median {base['median_ape']:.2f} %, within 10 %: {base['ir10']:.0f} %, its interval covered "
            f"{pct(base['coverage']['workloads'])}")


def supported_sentence(p) -> str:
    level = p.choice.level
    if p.level_supported >= level or not p.interval_supported:
        return ""
    return f"The data supports at most a {p.level_supported * 100:.0f} % interval here (asked: {level * 100:g} %)."


def workloads_sentence(p, source_name: str) -> str:
    return (f"{p.n_train} measured ones trained the model; {p.n_new} predicted from {source_name}, "
            f"{p.n_applicable} of them inside the training data.")


def table_rows(p) -> list[dict]:
    """One row per workload, sorted by prediction: the interval and the baseline's beside the point, whether it
    is inside the training data and why not."""
    rows = []
    for r in sorted(p.rows(), key=lambda r: r["predicted"]):
        rows.append({"id": r["id"], "application": r["group"] or "", "predicted": r["predicted"],
                     "lower": r["lower"], "upper": r["upper"], "baseline": r["baseline"],
                     "baseline_lower": r["baseline_lower"], "baseline_upper": r["baseline_upper"],
                     "applicable": "yes" if r["applicable"] else "no",
                     "why": r["why"] or ("inside the training data" if r["applicable"] else "")})
    return rows


def summarize(p, ctx: Context) -> Summary:
    """The summary of the prediction ``p`` (:class:`~modeling.crossgen.prediction_result.Prediction`) in the
    context ``ctx``."""
    import pandas as pd

    cov, err, base = p.cv_coverage, p.cv_error, p.baseline_cv
    supported = p.interval_supported
    width = width_text(cov) if supported else ""
    m = model_facts(p)
    facts = (
        Fact("model used", m["model"], key="model-used"),
        Fact("interval level (asked)", f"{p.choice.level * 100:g} %", key="level-asked"),
        Fact("held-out coverage reached", pct(conformal.quoted_coverage(cov)) if supported else "not supported",
             key="coverage"),
        Fact("held-out interval width (median upper / lower)", width, key="width"),
        Fact("CV error (procedure)", f"{err['mean_ape']:.1f} % mean, {err['median_ape']:.1f} % median APE",
             key="cv-error"),
        Fact("CV error (baseline)",
             "–" if not base else f"{base['mean_ape']:.1f} % mean, {base['median_ape']:.1f} % median APE",
             key="baseline-error"),
        Fact("trained / predicted / applicable", f"{p.n_train} / {p.n_new} / {p.n_applicable}", key="counts"),
    )
    notes = []
    if p.n_applicable < p.n_new:
        notes.append(Note("Their predictions are extrapolations and their intervals are not valid there: see each "
                          "row's reason (highlighted in the table, red ✗ in the chart).",
                          head=f"{p.n_new - p.n_applicable} of {p.n_new} workloads are outside the training data. "))
    v = p.verdict
    if v is not None and v.text:
        notes.append(Note(v.text, "info" if v.baseline_used else "warning", key="versus-baseline"))
    if supported_sentence(p):
        notes.append(Note(supported_sentence(p)))
    notes += [Note(n) for n in p.notes]
    details = [Fact("Model", f"{m['model']}: {m['why']}."),
               Fact("Interval", f"nominal {p.choice.level * 100:g} %; {coverage_detail(p, width_text(cov))}."),
               Fact("Error", f"{error_detail(p)}.")]
    if m["folds"]:
        details.append(Fact("Stability", f"{m['folds']}."))
    if m["note"]:
        details.append(Fact("Trade-off", m["note"]))
    if baseline_detail(p):
        details.append(Fact("Baseline", f"{baseline_detail(p)}."))
    details.append(Fact("Workloads", workloads_sentence(p, ctx.source_name)))
    if p.ignored_columns:
        details.append(Fact("Ignored columns (never read)", ", ".join(p.ignored_columns)))
    if p.skipped:
        details.append(Fact("Skipped (a counter value missing)",
                            ", ".join(map(str, p.skipped[:20])) + (" …" if len(p.skipped) > 20 else "")))
    u = ctx.unit
    rows = table_rows(p)
    columns = (("id", "workload"), ("application", "application"), ("predicted", with_unit("predicted", u)),
               ("lower", with_unit("lower", u)), ("upper", with_unit("upper", u)),
               ("baseline", with_unit("baseline", u)), ("baseline_lower", "baseline lower"),
               ("baseline_upper", "baseline upper"), ("applicable", "applicable"), ("why", "why"))
    frame = pd.DataFrame(rows, columns=[f for f, _ in columns])
    tables = [SummaryTable("Predictions with their intervals", frame, columns, key="predictions")]
    cands = candidate_rows(p)
    if cands:
        tables.append(SummaryTable("Candidates compared by nested cross-validation", pd.DataFrame(cands),
                                   (("chosen", ""), ("rank", "#"), ("candidate", "candidate"),
                                    ("male", "mean |log error|"), ("mean_ape", "mean APE %"),
                                    ("median_ape", "median APE %"), ("ir10", "within 10 %")),
                                   {"male": 3, "mean_ape": 1, "median_ape": 1, "ir10": 0}, key="candidates"))
    target = ctx.target or (p.choice.scenario or {}).get("target") or "the target"
    return Summary(f"Predictions for {target}: {p.n_new} workloads never measured there", facts,
                   interval_sentence(p), tuple(notes), tuple(details), tuple(tables), ctx.provenance,
                   " ".join(s for s in (ctx.scenario_text, p.how + ".", ctx.provenance_text) if s))
