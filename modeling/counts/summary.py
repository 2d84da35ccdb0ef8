"""What a count result says about itself (:class:`modeling.results.Summary`): the count models evaluated on one
program (:class:`~modeling.counts.results.CountEvaluation`) and every block's count at inputs never run
(:class:`~modeling.counts.results.CountPrediction`). The command line (``python -m modeling counts`` and
``counts predict``), /counts' cards and its report render these summaries; their ``summary()`` methods call them.
The leaderboard's and the prediction table's rows and columns are defined here once: the page's grids show the
same rows under the same headings."""

from __future__ import annotations

from modeling.counts.names import NAMES
from modeling.results import Fact, Note, Provenance, Summary, SummaryTable

#: fewer test inputs than this and the summary says the errors rest on few points
FEW_TEST_INPUTS = 8
#: the irregular blocks the sentence names (then "…")
SHOWN_IRREGULAR = 6


def pct(v: float) -> str:
    """An error in percent as a person reads it: below 0.001 % the prediction is exact to the count."""
    return "exact (< 0.001 %)" if v < 1e-3 else f"{v:.3g} %"


def _provenance(provenance: Provenance | None) -> str:
    return provenance.text("table") if provenance is not None else ""


def _size(v) -> str:
    return f"{v:,}" if isinstance(v, int) else f"{v:g}"


def inputs_text(inputs) -> str:
    """An input in words ("N=1,000, T=50"); a string (a total's "all inputs") as it is."""
    return inputs if isinstance(inputs, str) else ", ".join(f"{k}={_size(v)}" for k, v in inputs.items())


# ------------------------------------------------------------------ the models evaluated on one program

#: the leaderboard's columns: (field, heading), and the decimals of its numbers (the page's grid and the text)
LEADERBOARD_COLUMNS = (("name", "model"), ("mape", "mean APE %"), ("seed_range", "3 seeds' range %"),
                       ("max_ape", "max APE %"), ("nmse", "nMSE"), ("pearson", "Pearson"), ("spearman", "Spearman"),
                       ("exact_blocks", "exact blocks"), ("fit_seconds", "fit s"),
                       ("vs_baseline", "× baseline's error"))
LEADERBOARD_DECIMALS = {"mape": 3, "max_ape": 2, "nmse": 6, "pearson": 4, "spearman": 4, "exact_blocks": 0,
                        "fit_seconds": 2, "vs_baseline": 2}
IRREGULAR_COLUMNS = (("block", "block"), ("reason", "reason"), ("inner_error", "best held-back error %"))


def leaderboard_rows(ev) -> list[dict]:
    """The models, then the size-scaling baseline on the same test inputs; ``vs_baseline``: each one's mean APE
    as a multiple of the baseline's; ``seed_range``: a network's three seeds' mean APE range."""
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


def evaluation_text(ev) -> str:
    """What the evaluation's numbers mean: the program, the split, the few test inputs, the baseline's verdict and
    the irregular blocks."""
    best = ev.best
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
        text += " Irregular: " + ", ".join(f"{i.block} ({i.reason})" for i in ev.irregular[:SHOWN_IRREGULAR])
        text += " …" if len(ev.irregular) > SHOWN_IRREGULAR else "."
    return text


def evaluation(ev, provenance: Provenance | None = None) -> Summary:
    """The count models on one program's split: the lowest mean APE, the paper's network's, the baseline's, the
    irregular blocks and the inputs; a warning when the test inputs are few; what the numbers mean; the
    leaderboard (and the irregular blocks with their best held-back error); the provenance."""
    import pandas as pd

    best, pnn, b = ev.best, ev.score("pnn-paper"), ev.baseline
    facts = (Fact("lowest mean APE", f"{NAMES.get(best.model, best.model)}: {pct(best.mape)}", key="best"),
             Fact(f"{NAMES['pnn-paper']} mean APE", pct(pnn.mape) if pnn else "not run", key="pnn"),
             Fact("size-scaling baseline", pct(b.mape) if b else "–", key="baseline"),
             Fact("irregular blocks", f"{len(ev.irregular)} of {ev.n_blocks}", key="irregular"),
             Fact("train / test inputs", f"{ev.n_train} / {ev.n_test}"))
    notes = ((Note(f"Only {ev.n_test} test inputs on this split: the errors above rest on that few points.",
                   key="few"),) if ev.n_test < FEW_TEST_INPUTS else ())
    board = SummaryTable("Leaderboard (test inputs only)",
                         pd.DataFrame(leaderboard_rows(ev), columns=[f for f, _ in LEADERBOARD_COLUMNS]),
                         LEADERBOARD_COLUMNS, LEADERBOARD_DECIMALS, key="leaderboard", text_decimals=True)
    tables = (board,)
    if ev.irregular:
        rows = [{"block": i.block, "reason": i.reason, "inner_error": i.inner_error} for i in ev.irregular]
        tables += (SummaryTable("Irregular blocks", pd.DataFrame(rows), IRREGULAR_COLUMNS, {"inner_error": 1},
                                key="irregular-blocks", text_decimals=True),)
    return Summary(f"Count models on {ev.program} ({ev.split} split)", facts, evaluation_text(ev), notes, (),
                   tables, provenance, _provenance(provenance))


# ------------------------------------------------------------------ counts predicted at new inputs

#: the prediction table's columns: (field, heading), the decimals of its counts (the page's grid shows the same)
PREDICTION_COLUMNS = (("inputs", "inputs"), ("block", "block / event"), ("how", "how"),
                      ("predicted", "predicted count"), ("lower", "lower"), ("upper", "upper"),
                      ("level", "range level %"), ("error", "held-out error %"), ("beyond", "× beyond measured"),
                      ("baseline", "baseline (size scaling)"), ("baseline_scales", "baseline scales with"),
                      ("baseline_error", "baseline held-out error %"), ("irregular", "irregular: reason"))
#: counts are whole numbers everywhere; the errors and the distance beyond keep their significant digits
PREDICTION_DECIMALS = {"predicted": 0, "lower": 0, "upper": 0, "level": 0, "baseline": 0}


def level_pct(level, how: str, lower) -> float | None:
    """The level of a row's range as a number in percent (90.0; 100 for an exact count, whose range is the count
    itself; None: no range, or a sum of ranges)."""
    if how == "exact":
        return 100.0
    if level is None or lower is None:
        return None
    return float(level) * 100


def prediction_rows(p) -> list[dict]:
    """The table of predicted counts: one row per (input, block), then the totals."""
    rows = []
    for r in p.rows():
        how = "exact polynomial" if r.how == "exact" else NAMES.get(r.how, r.how)
        rows.append({"inputs": inputs_text(r.inputs), "block": r.block, "how": how,
                     "predicted": r.predicted, "lower": r.lower, "upper": r.upper,
                     "level": level_pct(r.level, r.how, r.lower),
                     "error": None if r.how == "exact" else r.error, "beyond": r.beyond,
                     "baseline": r.baseline, "baseline_error": r.baseline_error,
                     "baseline_scales": r.baseline_scales or "", "irregular": r.irregular or ""})
    for t in p.totals():
        rows.append({"inputs": inputs_text(t.inputs), "block": f"total: {t.block}", "how": "sum",
                     "predicted": t.predicted, "lower": t.lower, "upper": t.upper,
                     "level": None, "error": None, "beyond": None, "baseline": t.baseline,
                     "baseline_error": None, "baseline_scales": "", "irregular": ""})
    return rows


def held_out_text(p) -> str:
    """Where the errors, the choice per block and the ranges come from."""
    n, k = p.n_hl_test, p.n_hl_train
    if p.scheme == "leave-one-input-out":
        return (f"leave-one-input-out: {n} measured inputs each predicted from the inputs not at least as large in "
                f"every size (median {k} training inputs)")
    return f"the high-low split of the measured inputs ({k} training, {n} held-out inputs)"


def prediction_text(p) -> str:
    """What the prediction's numbers mean: the model and its data, how far beyond, where the errors come from,
    the ranges' level, the baseline beside and the irregular blocks."""
    level = p.range_level
    far = max(p.factors_beyond) if p.n_inputs else 1.0
    mx = ", ".join(f"{k}={_size(v)}" for k, v in p.measured_max.items())
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
        text += (" Irregular (no model within 5 % on high-low): " + ", ".join(odd[:SHOWN_IRREGULAR])
                 + (" …" if len(odd) > SHOWN_IRREGULAR else "."))
    return text


def prediction(p, provenance: Provenance | None = None) -> Summary:
    """Every block's count at inputs never run: how many blocks are exact, model-predicted and irregular, the
    ranges' level; the notes; what the numbers mean; the range rule; every predicted count and the totals; the
    provenance."""
    import pandas as pd

    level = p.range_level
    facts = (Fact("exact blocks (the count itself)", f"{p.n_exact} of {p.n_blocks}", key="exact"),
             Fact("model-predicted blocks", f"{p.n_blocks - p.n_exact} of {p.n_blocks}", key="model"),
             Fact("irregular blocks", f"{p.n_irregular}", key="irregular"),
             Fact("range level", (f"{level * 100:.0f} %" + ("" if p.level_supported else " (90 % not supported)"))
                  if level is not None else "–", key="level"))
    table = SummaryTable("Every predicted count",
                         pd.DataFrame(prediction_rows(p), columns=[f for f, _ in PREDICTION_COLUMNS]),
                         PREDICTION_COLUMNS, PREDICTION_DECIMALS, key="predictions", digits=6, text_decimals=True)
    return Summary(f"Counts of {p.program} at inputs never run", facts, prediction_text(p),
                   tuple(Note(n) for n in p.notes), (Fact("Range rule", f"{p.rule}."),), (table,), provenance,
                   _provenance(provenance))
