"""Rows and facts the /counts page shows, computed from a result (no Dash, so tests can import them)."""

from __future__ import annotations

from dashboard.counts.figures import NAMES
from dashboard.counts.results import CountsPredictionRun
from modeling.counts.predict import CountPrediction
from modeling.counts.results import CountEvaluation


#: fewer test inputs than this and the summary says the errors rest on few points
FEW_TEST_INPUTS = 8


def leaderboard_rows(ev: CountEvaluation) -> list[dict]:
    """The models, then the size-scaling baseline on the same test inputs; ``vs_baseline``: each one's mean APE
    as a multiple of the baseline's."""
    rows = []
    for m in ev.scored:
        r = {"model": m.model, "mape": m.mape, "max_ape": m.max_ape, "nmse": m.nmse, "pearson": m.pearson,
             "spearman": m.spearman, "fit_seconds": m.fit_seconds, "exact_blocks": m.exact_blocks,
             "vs_baseline": ev.vs_baseline(m.model), "name": NAMES.get(m.model, m.model)}
        if m.mape_range is not None:
            lo, hi = m.mape_range
            r["seed_range"] = f"{lo:.2f} – {hi:.2f}"
        rows.append(r)
    return rows


def block_rows(ev: CountEvaluation) -> list[dict]:
    irregular = ev.irregular_reason
    rows = []
    for b in ev.blocks:
        if b.block in irregular:
            status = f"irregular: {irregular[b.block]}"
        elif b.exact:
            status = "exact polynomial"
        else:
            status = "regular"
        rows.append({"block": b.block, "status": status, "chosen": NAMES.get(b.chosen, b.chosen),
                     "inner_error": b.inner_error, "test_ape": b.test_ape})
    return sorted(rows, key=lambda r: (not r["status"].startswith("irregular"), natural(r["block"])))


def natural(name: str) -> tuple:
    """A sort key that orders the numbers inside a name by value: "f:2" before "f:10"."""
    import re

    return tuple((0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name) if t)


def summary_facts(ev: CountEvaluation) -> dict:
    best = ev.best  # chosen by the result (modeling/counts/results.py)
    pnn = ev.score("pnn-paper")
    text = (f"{ev.program}: {ev.n_blocks} blocks; input sizes {', '.join(ev.sizes)}; {ev.split} "
            f"split, {ev.n_train} training and {ev.n_test} test inputs. Errors are over the test inputs' "
            "non-zero counts.")
    if ev.n_test < FEW_TEST_INPUTS:
        text += (f" Only {ev.n_test} test input{'s' if ev.n_test != 1 else ''}: every error here rests on "
                 "that few points; read them as indications, not rates.")
    b = ev.baseline
    if b:
        verdict = "beats it" if ev.beats_baseline else "does not beat it: prefer the baseline for these inputs"
        text += (f" The baseline a careful user would use (each block's count at the nearest training input scaled "
                 f"by the sizes it depends on) is at {pct(b.mape)}; the best model, "
                 f"{NAMES.get(best.model, best.model)}, {verdict}.")
    if ev.irregular:
        text += " Irregular: " + ", ".join(f"{i.block} ({i.reason})" for i in ev.irregular[:6])
        text += " …" if len(ev.irregular) > 6 else "."
    return {"best": f"{NAMES.get(best.model, best.model)}: {pct(best.mape)}",
            "pnn": pct(pnn.mape) if pnn else "not run", "text": text, "few": ev.n_test < FEW_TEST_INPUTS,
            "baseline": pct(b.mape) if b else "–", "beats_baseline": ev.beats_baseline}


def pct(v: float) -> str:
    """An error in percent as a person reads it: below 0.001 % the prediction is exact to the count."""
    return "exact (< 0.001 %)" if v < 1e-3 else f"{v:.3g} %"


# ------------------------------------------------------------------ predict at new inputs

def inputs_text(inputs) -> str:
    return inputs if isinstance(inputs, str) else ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v:g}"
                                                            for k, v in inputs.items())


def prediction_rows(run: CountsPredictionRun) -> list[dict]:
    """The table of predicted counts: one row per (input, block), then the totals."""
    rows = []
    for r in run.prediction.rows():
        how = "exact polynomial" if r.how == "exact" else NAMES.get(r.how, r.how)
        rows.append({"inputs": inputs_text(r.inputs), "block": r.block, "how": how,
                     "predicted": r.predicted, "lower": r.lower, "upper": r.upper,
                     "level": level_pct(r.level, r.how, r.lower),
                     "error": None if r.how == "exact" else r.error, "beyond": r.beyond,
                     "baseline": r.baseline, "baseline_error": r.baseline_error,
                     "baseline_scales": r.baseline_scales or "", "irregular": r.irregular or ""})
    for t in run.prediction.totals():
        rows.append({"inputs": inputs_text(t.inputs), "block": f"total: {t.block}", "how": "sum",
                     "predicted": t.predicted, "lower": t.lower, "upper": t.upper,
                     "level": None, "error": None, "beyond": None, "baseline": t.baseline,
                     "baseline_error": None, "baseline_scales": "", "irregular": ""})
    return rows


def level_pct(level, how: str, lower) -> float | None:
    """The level of a row's range as a number in percent for the grid (90.0; 100 for an exact count, whose
    range is the count itself; None: no range, or a sum of ranges)."""
    if how == "exact":
        return 100.0
    if level is None or lower is None:
        return None
    return float(level) * 100


def prediction_facts(run: CountsPredictionRun) -> dict:
    p = run.prediction
    n_model = p.n_blocks - p.n_exact
    level = p.range_level
    far = max(p.factors_beyond) if p.n_inputs else 1.0
    mx = ", ".join(f"{k}={v:,}" if isinstance(v, int) else f"{k}={v:g}" for k, v in p.measured_max.items())
    text = (f"{p.program}: {p.model_name} fitted on all {p.n_measured} measured inputs (largest "
            f"sizes {mx}); {p.n_inputs} input(s) predicted, up to {far:,.3g}× beyond the measured ones (the "
            f"smallest growth of the sizes from a measured input). Errors, the choice per block and ranges come "
            f"from {held_out_text(p)}.")
    if level is not None:
        text += (f" Ranges are at the {level * 100:.0f} % level" + ("." if p.level_supported else
                 ": the held-out inputs cannot support 90 %."))
    if p.median_baseline_error is not None and p.median_error is not None:
        n_base = p.n_baseline
        text += (f" Beside each count, the baseline ({p.baseline_rule}): on the "
                 f"held-out inputs its median error over the blocks not exact is {p.median_baseline_error:.3g} %, "
                 f"the chosen predictions' {p.median_error:.3g} %"
                 + (f"; {n_base} block(s) take the baseline itself, no model beat it." if n_base else "."))
    if p.n_irregular:
        odd = [f"{blk} ({why})" for blk, why in zip(p.blocks, p.irregular) if why]
        text += " Irregular (no model within 5 % on high-low): " + ", ".join(odd[:6]) + (" …" if len(odd) > 6 else ".")
    return {"exact": f"{p.n_exact} of {p.n_blocks}", "model": f"{n_model} of {p.n_blocks}",
            "irregular": f"{p.n_irregular}",
            "level": (f"{level * 100:.0f} %" + ("" if p.level_supported else " (90 % not supported)"))
            if level is not None else "–",
            "text": text, "notes": list(p.notes)}


def held_out_text(p: CountPrediction) -> str:
    n, k = p.n_hl_test, p.n_hl_train
    if p.scheme == "leave-one-input-out":
        return (f"leave-one-input-out: {n} measured inputs each predicted from the inputs not at least as large in "
                f"every size (median {k} training inputs)")
    return f"the high-low split of the measured inputs ({k} training, {n} held-out inputs)"


def provenance_text(run: CountsPredictionRun) -> str:
    said = run.provenance.text("table") if run.provenance else "Provenance: not recorded."
    return f"Range rule: {run.prediction.rule}. {said}"


def export_bytes(run: CountsPredictionRun, fmt: str) -> tuple[bytes, str]:
    """(bytes, file name) of the prediction table (:meth:`CountsPredictionRun.to_frame`) with its provenance, as
    CSV or Parquet."""
    from modeling.tables.export import export_bytes as table_bytes

    return table_bytes(run.to_frame(), f"counts_{run.prediction.program}_{run.prediction.model}", fmt)


def block_choices(run: CountsPredictionRun) -> list[str]:
    return (["all blocks"] if run.prediction.kind == "blocks" else []) + list(run.prediction.blocks)


def saved_summary(run: CountsPredictionRun) -> dict:
    """What the list of saved predictions shows of counts predicted at new inputs."""
    p, pv = run.prediction, run.provenance
    first = inputs_text(p.inputs_of(0)) if p.n_inputs else ""
    more = f" and {p.n_inputs - 1} more" if p.n_inputs > 1 else ""
    made = (f"table {pv.dataset_name} ({str(pv.fingerprint)[:16]}), code {pv.code_version}, {pv.date}" if pv
            else "provenance not recorded")
    return {"text": (f"{p.program} at {first}{more}: {p.n_exact} of {p.n_blocks} blocks exact, "
                     f"{p.n_irregular} irregular ({p.model_name}); {made}"),
            "model": p.model, "n_inputs": p.n_inputs}
