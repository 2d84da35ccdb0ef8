"""What /plan shows and exports, computed from a cached result (no Dash): the batch's rows and the last round's
(the plan summary's tables: :mod:`modeling.plan.summary`), the replay as the chart draws it, the batch as the
CSV a simulation farm runs."""

from __future__ import annotations

import pandas as pd

from dashboard.plan.results import PlanPage
from modeling.plan import summary as plan_summary

#: the columns of the batch export, in order (the farm's list: rank and id first)
EXPORT_COLUMNS = ("rank", "id", "group", "cost_hours", "width", "distance", "predicted", "lower", "upper",
                  "calibration", "why")


def plan_page(value) -> PlanPage | None:
    """The page's result when ``value`` (what ``jobs.result_for`` gave) is one, else None (not computed)."""
    return value if isinstance(value, PlanPage) else None


def batch_rows(page: PlanPage) -> list[dict]:
    """One row per workload of the batch, in rank order (1 = simulate first): the summary's ``batch`` table."""
    return plan_summary.batch_rows(page.plan)


def round_rows(page: PlanPage) -> list[dict]:
    """Per simulated workload of the last batch: what the plan before predicted, what was simulated, the move
    (the summary's ``round`` table; none before a batch was merged)."""
    return plan_summary.round_rows(page.round)


def export_frame(page: PlanPage) -> pd.DataFrame:
    """The batch as the list a simulation farm runs: rank, id, cost in hours, why; then the provenance."""
    df = pd.DataFrame(batch_rows(page), columns=list(EXPORT_COLUMNS))
    df["calibration"] = [b.calibration for b in page.plan.batch]
    prov = page.provenance.columns("dataset") if page.provenance else dict.fromkeys(
        ("dataset", "dataset_fingerprint", "code_version", "date"))
    for k, v in prov.items():
        df[k] = v
    df["strategy"] = page.plan.strategy
    return df


def export_bytes(page: PlanPage) -> tuple[bytes, str]:
    p = page.params
    from modeling.tables.export import export_bytes as table_bytes

    return table_bytes(export_frame(page), f"plan_{p.get('target', 'target')}_{page.plan.strategy}")


def replay_series(page: PlanPage) -> list[dict]:
    """The replay curves as the chart draws them: simulator hours spent (x), mean error and its spread."""
    out = []
    for c in page.plan.replay:
        chosen = c.strategy == page.plan.strategy
        out.append({"strategy": c.strategy, "label": c.strategy + (" (chosen)" if chosen else ""),
                    "x": list(c.hours), "y": list(c.error), "sd": [0.0 if v is None else v for v in c.error_sd],
                    "chosen": chosen})
    return out


def replay_title(page: PlanPage) -> str:
    return plan_summary.replay_sentence(page.plan)
