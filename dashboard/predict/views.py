"""What /predict shows and exports, computed from a typed result (:class:`dashboard.predict.results.PredictRun`;
no Dash): the table's rows, the facts above it, the candidates of a recommended model, the export table with its
provenance."""

from __future__ import annotations

import pandas as pd

from dashboard.predict.results import PredictRun
from dashboard.state import datasets
from dashboard.ui.format import number
from modeling.crossgen.situations import NEW_INPUTS
from modeling.intervals.conformal import quoted_coverage
from modeling.tables.export import export_bytes as table_bytes

NOT_VALID = "not valid here"
#: the page /new-app, for applications not in the training data
NEWAPP = "/new-app"


def unit(run: PredictRun) -> str:
    """The unit of a result's values: its dataset's (:meth:`~dashboard.state.datasets.DatasetView.unit`), or
    the one the result kept when that dataset is gone; "" when none was given."""
    return datasets.unit_of(run.params, fallback=run.unit or "")


def pct(v, digits=1) -> str:
    return "–" if v is None else f"{v:.{digits}f} %"


def table_rows(run: PredictRun) -> list[dict]:
    """One row per workload, sorted by prediction: the interval and the baseline's beside the point, the
    verdict as ✓/✗ and the reason."""
    rows = []
    for r in sorted(run.prediction.rows(), key=lambda r: r["predicted"]):
        rows.append({"id": r["id"], "application": r["group"] or "", "predicted": r["predicted"],
                     "lower": r["lower"], "upper": r["upper"], "baseline": r["baseline"],
                     "baseline_lower": r["baseline_lower"], "baseline_upper": r["baseline_upper"],
                     "applicable": "✓ yes" if r["applicable"] else "✗ no", "ok": bool(r["applicable"]),
                     "why": r["why"] or ("inside the training data" if r["applicable"] else "")})
    return rows


def interval_sentence(run: PredictRun) -> str:
    """What the interval means, in words, with the way to the other situation."""
    p = run.prediction
    lvl = f"{p.choice.level * 100:g} %"
    if not p.interval_supported:
        return (f"No {lvl} interval is given: too few applications (or workloads) can be held out to support that "
                f"level (see the note above). See {NEWAPP} for estimates of one held-out application with one-run "
                "calibration.")
    if p.choice.situation == NEW_INPUTS:
        return (f"What the interval means: {lvl} of workloads like the training ones (applications already "
                "measured, at new inputs) fall within their interval, as cross-validation on the measured workloads "
                f"showed ({pct(quoted_coverage(p.cv_coverage))} did). For applications not in the training data "
                "choose 'applications not in the training data' above (wider intervals, from holding applications "
                f"out), and see {NEWAPP} for estimates with one-run calibration.")
    return (f"What the interval means: {lvl} of workloads of an application not in the training data fall within "
            "their interval, as holding whole applications out showed "
            f"({pct(quoted_coverage(p.cv_coverage))} did, each held-out set of applications weighing one). See "
            f"{NEWAPP} for estimates of one held-out "
            "application with one-run calibration.")


def model_facts(run: PredictRun) -> dict:
    """Which model made the numbers and why: the chosen one, how often it won the outer folds, the
    trade-off note."""
    p = run.prediction
    label, sel = run.model_label, p.selection
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


def candidate_rows(run: PredictRun) -> list[dict]:
    """The candidates of a recommended model, best first (the baseline always among them)."""
    sel = run.prediction.selection
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


def outside_sentence(run: PredictRun) -> str | None:
    """How many workloads lie outside the training data (None when none does)."""
    p = run.prediction
    if p.n_applicable >= p.n_new:
        return None
    return (f"{p.n_new - p.n_applicable} of {p.n_new} workloads are outside the training data: their predictions "
            "are extrapolations and their intervals are not valid there.")


def workloads_sentence(run: PredictRun) -> str:
    p = run.prediction
    return (f"{p.n_train} measured ones trained the model; {p.n_new} predicted from {run.source_name}, "
            f"{p.n_applicable} of them inside the training data.")


def scenario_sentence(run: PredictRun, unit_: str) -> str:
    """The data, the GPUs, the metric, how the numbers were made and the provenance, in one line."""
    from dashboard.ui.format import unit_text

    p = run.params
    return (f"{run.dataset_name}: {run.host_label} → {p['target']}, {p['metric']} ({unit_text(unit_)}). "
            f"{run.prediction.how}. {provenance_text(run)}")


def facts(run: PredictRun) -> dict:
    """The numbers above the table, as text."""
    p = run.prediction
    cov, err, base = p.cv_coverage, p.cv_error, p.baseline_cv
    level = p.choice.level
    supported = p.interval_supported
    width = width_text(cov)
    v = p.verdict
    lines = {
        "level": f"{level * 100:g} %",
        "coverage": pct(quoted_coverage(cov)) if supported else "not supported",
        "width": width if supported else "",
        "coverage_detail": (f"held-out coverage: {pct(cov['workloads'])} of the training workloads, "
                            f"{pct(cov['folds'])} on average over {cov['n_folds']} folds"
                            + (" (the figure quoted: each held-out set of applications weighs one)"
                               if "quoted" in cov and p.interval_rule != "pooled" else "")
                            + (f", median width {width} (upper / lower)" if width else "")
                            + (f"; {cov['folds_below_level']} fold(s) below the level" if cov.get("folds_below_level")
                               else "")
                            + ("" if supported else "; no interval is given for the predictions (too few held-out "
                               "units for the level)")),
        "versus_baseline": v.text if v else "",
        "baseline_used": bool(v and v.baseline_used),
        "error": f"{err['mean_ape']:.1f} % mean, {err['median_ape']:.1f} % median APE",
        "error_detail": (f"cross-validated error of the whole procedure ({p.cv_scheme}): mean APE "
                         f"{err['mean_ape']:.2f} %, median {err['median_ape']:.2f} %, within 10 %: "
                         f"{err['ir10']:.0f} % of workloads, worst {number(err['max_ape'])} %"
                         + unit_weighting(err)),
        "baseline_error": "–" if not base else f"{base['mean_ape']:.1f} % mean, {base['median_ape']:.1f} % median APE",
        "baseline_detail": "" if not base else (
            f"baseline (host × median target/host ratio) through the same folds: mean APE {base['mean_ape']:.2f} %, "
            f"median {base['median_ape']:.2f} %, within 10 %: {base['ir10']:.0f} %, its interval covered "
            f"{pct(base['coverage']['workloads'])}"),
        "counts": f"{p.n_train} / {p.n_new} / {p.n_applicable}",
        "supported": (None if p.level_supported >= level or not supported else
                      f"The data supports at most a {p.level_supported * 100:.0f} % interval here "
                      f"(asked: {level * 100:g} %)."),
        "ignored": ", ".join(p.ignored_columns) if p.ignored_columns else None,
        "skipped": (", ".join(map(str, p.skipped[:20])) + (" …" if len(p.skipped) > 20 else "")
                    if p.skipped else None),
        "interval": interval_sentence(run),
    }
    return lines


def provenance_text(run: PredictRun) -> str:
    c = run.provenance_columns
    took = run.prediction.seconds
    return (f"Provenance: model {run.model_label}; dataset {c['dataset']} (fingerprint "
            f"{c['dataset_fingerprint']}); workloads: {run.source_name} (fingerprint "
            f"{c['inputs_fingerprint']}); code version {c['code_version']}; computed {c['date']} "
            f"in {took:.1f} s.")


def export_frame(run: PredictRun) -> pd.DataFrame:
    """The prediction table (docs/architecture.md): one row per workload, then the provenance as constant columns
    (the columns of :meth:`modeling.crossgen.prediction_result.Prediction.to_frame`)."""
    return run.to_frame(unit(run))


def export_bytes(run: PredictRun, fmt: str) -> tuple[bytes, str]:
    """(bytes, file name) of the export in ``fmt`` (csv or parquet)."""
    p = run.params
    return table_bytes(export_frame(run), f"predictions_{p['host']}_to_{p['target']}", fmt)


def summary_of(run: PredictRun) -> dict:
    """What the list of saved predictions shows of one (``text``: its line)."""
    p, c = run.prediction, run.provenance_columns
    out = {"model": run.model_label, "level": p.choice.level, "coverage": quoted_coverage(p.cv_coverage),
           "mean_ape": p.cv_error["mean_ape"], "n_new": p.n_new, "n_applicable": p.n_applicable,
           "source": run.source_name}
    out["text"] = (f"{out['model']}, {p.n_new} workloads ({p.n_applicable} applicable), {p.choice.level * 100:g} % "
                   f"interval reached {out['coverage']:.1f} %; dataset {c['dataset']} ({c['dataset_fingerprint']}), "
                   f"code {c['code_version']}, {c['date']}")
    return out
