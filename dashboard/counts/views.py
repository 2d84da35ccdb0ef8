"""Rows the /counts page shows, computed from a result (no Dash, so tests can import them); the facts and
sentences are the results' summaries (:mod:`modeling.counts.summary`)."""

from __future__ import annotations

from dashboard.counts.figures import NAMES
from dashboard.counts.results import CountsPredictionRun
from modeling.counts import summary
from modeling.counts.results import CountEvaluation
from modeling.counts.summary import inputs_text, level_pct  # noqa: F401 - for the page and its tests


def leaderboard_rows(ev: CountEvaluation) -> list[dict]:
    """The leaderboard's rows (:func:`modeling.counts.summary.leaderboard_rows`: the command line prints them)."""
    return summary.leaderboard_rows(ev)


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


def prediction_rows(run: CountsPredictionRun) -> list[dict]:
    """The table of predicted counts (:func:`modeling.counts.summary.prediction_rows`: the command line and the
    report print them): one row per (input, block), then the totals."""
    return summary.prediction_rows(run.prediction)


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
