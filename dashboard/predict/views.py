"""What /predict shows and exports, computed from a typed result (:class:`dashboard.predict.results.PredictRun`;
no Dash): the table's rows, the export table with its provenance, a saved prediction's line. The facts above the
table, the notes, the details and the candidates are the result's summary (:meth:`PredictRun.summary`)."""

from __future__ import annotations

import pandas as pd

from dashboard.predict.results import PredictRun
from dashboard.state import datasets
from modeling.intervals.conformal import quoted_coverage
from modeling.tables.export import export_bytes as table_bytes

NOT_VALID = "not valid here"


def unit(run: PredictRun) -> str:
    """The unit of a result's values: its dataset's (:meth:`~dashboard.state.datasets.DatasetView.unit`), or
    the one the result kept when that dataset is gone; "" when none was given."""
    return datasets.unit_of(run.params, fallback=run.unit or "")


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
