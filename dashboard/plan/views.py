"""What /plan shows and exports, computed from a cached result (no Dash): the batch's rows, the expected
effect in words with its units, what the last round's simulations changed, the batch as the CSV a
simulation farm runs."""

from __future__ import annotations

import math
import pandas as pd

from dashboard.plan.results import PlanPage, PlanRound  # noqa: F401 - the page's result types, read here
from dashboard.plan.work import LEVEL
from dashboard.ui.format import number
from modeling.plan.strategies import LABELS

#: the columns of the batch export, in order (the farm's list: rank and id first)
EXPORT_COLUMNS = ("rank", "id", "group", "cost_hours", "width", "distance", "predicted", "lower", "upper",
                  "calibration", "why")


def plan_page(value) -> PlanPage | None:
    """The page's result when ``value`` (what ``jobs.result_for`` gave) is one, else None (not computed)."""
    return value if isinstance(value, PlanPage) else None


def hours(h: float | None) -> str:
    """Simulator hours as a person reads them: 0.25 h reads "15 min", 3.5 h "3.5 h", 200 h "200 h (8.3 days)"."""
    if h is None:
        return "–"
    if h < 1:
        return f"{h * 60:.3g} min"
    return f"{h:.3g} h" + (f" ({h / 24:.2g} days)" if h >= 48 else "")


def factor(w: float | None) -> str:
    return "–" if w is None else f"×{number(w)}"


def error_text(e: float | None) -> str:
    """A mean |log error| with the typical error it means: 0.10 is about 10.5 % off (exp(0.10) - 1)."""
    if e is None:
        return "–"
    return f"{e:.3g} (≈ {100 * (math.exp(e) - 1):.3g} % off)"


def batch_rows(page: PlanPage) -> list[dict]:
    """One row per workload of the batch, in rank order (1 = simulate first)."""
    return [{"rank": b.rank, "id": b.id, "group": b.group or "", "cost_hours": b.cost, "width": b.width,
             "distance": b.distance, "predicted": b.predicted, "lower": b.lower, "upper": b.upper,
             "calibration": "✓ at random" if b.calibration else "", "why": b.why}
            for b in page.plan.batch]


def facts(page: PlanPage) -> dict:
    """The numbers above the batch, as text."""
    p, e = page.plan, page.plan.expected
    budget = p.budget.get("text") if isinstance(p.budget, dict) else str(p.budget)
    return {"strategy": f"{p.strategy} ({LABELS.get(p.strategy, p.strategy)})",
            "batch": f"{e.n_batch} workloads, {hours(e.batch_hours)}",
            "error": (f"{e.error_now:.3g} → {e.error_after:.3g}" if e.error_now is not None
                      and e.error_after is not None else error_text(e.error_now)),
            "width": (f"{factor(e.width_now)} → {factor(e.width_after)}" if e.width_after is not None
                      else factor(e.width_now)),
            "counts": f"{p.n_measured} / {p.n_candidates}",
            "budget": budget}


def effect_sentence(page: PlanPage) -> str:
    """The expected effect of simulating the batch, in words with its units."""
    e = page.plan.expected
    head = f"Simulating these {e.n_batch} workloads costs {hours(e.batch_hours)} of simulator time"
    if e.n_batch == 0:
        return "The budget buys no candidate: raise it to at least the cheapest candidate's cost."
    if e.error_now is None:
        return f"{head}. Too few workloads are simulated to fit the model yet: {e.basis}."
    if e.error_after is None:
        return (f"{head}. The model's error now is a mean |log error| of {error_text(e.error_now)} on the simulated "
                f"workloads (cross-validated); no expected effect: {e.basis}.")
    words = (f"{head}. Expected: the model's mean |log error| goes from {error_text(e.error_now)} to "
             f"{error_text(e.error_after)}")
    if e.width_now is not None and e.width_after is not None:
        words += (f", and the median {LEVEL * 100:g} % interval on the candidates from {factor(e.width_now)} "
                  f"to {factor(e.width_after)} (upper / lower)")
    return f"{words}. How: {e.basis}."


def choice_sentence(page: PlanPage) -> str:
    p = page.plan
    return (f"Strategy: {p.strategy} ({LABELS.get(p.strategy, p.strategy)}); asked: {p.requested}. Why: "
            f"{p.chosen_because}.")


def round_facts(page: PlanPage) -> dict | None:
    """What the last batch's simulations changed, as text (None before any batch was merged)."""
    r = page.round
    if r is None:
        return None
    inside = r.inside
    moved = r.workloads[0] if r.workloads else None
    return {
        "round": f"round {r.round}",
        "error": f"{error_text(r.error_before)} → {error_text(r.error_now)}",
        "width": f"{factor(r.width_before)} → {factor(r.width_now)}",
        "measured": f"{r.measured_before if r.measured_before is not None else '–'} → {r.measured_now}",
        "sentence": (f"Round {r.round}: {r.merged} simulated values were merged into this dataset version. The model's "
                     f"cross-validated error went from {error_text(r.error_before)} to {error_text(r.error_now)}; the "
                     f"median interval width on the candidates from {factor(r.width_before)} to "
                     f"{factor(r.width_now)} (upper / lower)."
                     + (f" {sum(inside)} of {len(inside)} simulated values fell inside the interval the plan before "
                        "gave them." if inside else "")
                     + (f" The largest move: {moved.id}, simulated ×{number(math.exp(moved.moved))} its "
                        "prediction." if moved else "")),
    }


def round_rows(page: PlanPage) -> list[dict]:
    """Per simulated workload of the last batch: what the plan before predicted, what was simulated, the move."""
    if page.round is None:
        return []
    return [{"id": w.id, "predicted": w.predicted, "lower": w.lower, "upper": w.upper,
             "simulated": w.simulated, "ratio": math.exp(w.moved),
             "inside": "–" if w.inside is None else ("✓ yes" if w.inside else "✗ no")}
            for w in page.round.workloads]


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


def provenance_text(page: PlanPage) -> str:
    pv, p = page.provenance, page.plan
    made = (f"Dataset {pv.dataset} (fingerprint {pv.fingerprint}), code version {pv.code_version}, computed "
            f"{pv.date}." if pv else "Provenance not recorded.")
    return (f"{page.dataset_name}: target {page.target_label}; cost {p.cost_source}; model {p.model}; "
            f"{p.calibration}. {made}")


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
    c = page.plan.replay[0] if page.plan.replay else None
    if c is None:
        return ""
    out = [r.strategy for r in page.plan.replay if r.ran_out]
    return (f"Replayed on the {page.plan.n_measured} simulated workloads: {c.n_seeds} seed(s), "
            f"{max(len(r.error) for r in page.plan.replay) - 1} rounds from a random start"
            + (f" ({', '.join(out)}: the replay ran out of workloads to hold back, its line stops early)" if out
               else ""))
