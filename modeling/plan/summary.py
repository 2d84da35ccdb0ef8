"""A plan's summary (:class:`modeling.results.Summary`): what the command line prints (``python -m modeling plan``),
what /plan's card shows and what its report says, once.

* Facts, in order: the strategy, the batch (workloads and simulator hours), the budget asked, the mean |log
  error| now → after, the median interval width now → after, simulated / candidates.
* The lead: the expected effect of simulating the batch in words, with its units and how it was extrapolated.
* Notes: the plan's own (warnings), then what the round's simulator output said (information).
* Details: why this strategy; what the last round's simulations changed (when a round was merged); what the
  simulator output gave (when it was read); the model; the replay.
* Tables: the batch in rank order (``batch``), the last round's workloads, predicted before against simulated
  (``round``, largest moves first), and the replay curves (``replay``: one row per strategy and round).
* The provenance: the data, the target, the cost, the model and how the intervals are calibrated, then what
  computed it (:class:`~modeling.results.Provenance`) when it is known.

Numbers are given to 4 significant digits (the command line's precision before it printed this summary).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from modeling.plan.strategies import LABELS
from modeling.results import Fact, Note, Provenance, Summary, SummaryTable, number

if TYPE_CHECKING:
    from modeling.plan.loop import RoundChange, RoundResults

# ``p`` below is a :class:`modeling.plan.results.Plan`, not imported here: ``Plan.summary()`` imports this module

#: the nominal level of a plan's intervals when the caller does not say: ``plan()``'s and ``plan --level``'s
#: default, and /plan's level
LEVEL = 0.9

BATCH_COLUMNS = (("rank", "#"), ("id", "workload"), ("group", "application"), ("cost_hours", "cost (h)"),
                 ("width", "interval width (×)"), ("distance", "distance to simulated"), ("predicted", "predicted now"),
                 ("lower", "lower"), ("upper", "upper"), ("calibration", "drawn"), ("why", "why"))
ROUND_COLUMNS = (("id", "workload"), ("predicted", "predicted before"), ("lower", "lower"), ("upper", "upper"),
                 ("simulated", "simulated"), ("ratio", "simulated / predicted"), ("inside", "inside the interval"))
REPLAY_COLUMNS = (("strategy", "strategy"), ("round", "round"), ("simulated", "simulated (mean)"),
                  ("hours", "simulator hours (mean)"), ("error", "mean |log error|"), ("error_sd", "sd"),
                  ("coverage", "coverage"), ("median_width", "median width (×)"))


def hours(h: float | None) -> str:
    """Simulator hours as a person reads them: 0.25 h reads "15 min", 3.5 h "3.5 h", 200 h "200 h (8.3 days)"."""
    if h is None:
        return "–"
    if h < 1:
        return f"{h * 60:.4g} min"
    return f"{h:.4g} h" + (f" ({h / 24:.2g} days)" if h >= 48 else "")


def factor(w: float | None) -> str:
    return "–" if w is None else f"×{number(w)}"


def error_text(e: float | None) -> str:
    """A mean |log error| with the typical error it means: 0.10 is about 10.5 % off (exp(0.10) - 1)."""
    if e is None:
        return "–"
    return f"{e:.4g} (≈ {100 * (math.exp(e) - 1):.4g} % off)"


def _strategy(p) -> str:
    return f"{p.strategy} ({LABELS.get(p.strategy, p.strategy)})"


def effect_sentence(p, level: float = LEVEL) -> str:
    """The expected effect of simulating the batch, in words with its units."""
    e = p.expected
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
        words += (f", and the median {level * 100:g} % interval on the candidates from {factor(e.width_now)} "
                  f"to {factor(e.width_after)} (upper / lower)")
    return f"{words}. How: {e.basis}."


def choice_sentence(p) -> str:
    return f"{_strategy(p)}; asked: {p.requested}. Why: {p.chosen_because}."


def round_sentence(r: RoundChange) -> str:
    """What the last round's simulations changed, in words."""
    inside = r.inside
    moved = r.moves[0] if r.moves else None
    before = "–" if r.measured_before is None else str(r.measured_before)
    head = (f"Round {r.round}: {r.merged} simulated values were merged into this dataset version. "
            if r.round is not None else f"{len(r.moves)} simulated value(s) of the last batch were merged. ")
    return (f"{head}Simulated workloads {before} → {r.measured_now}. The model's cross-validated error went from "
            f"{error_text(r.error_before)} to {error_text(r.error_now)}; the median interval width on the candidates "
            f"from {factor(r.width_before)} to {factor(r.width_now)} (upper / lower)."
            + (f" {sum(inside)} of {len(inside)} simulated values fell inside the interval the plan before gave "
               "them." if inside else "")
            + (f" The largest move: {moved.id}, simulated ×{number(math.exp(moved.moved))} its prediction."
               if moved else ""))


def replay_sentence(p) -> str:
    c = p.replay[0] if p.replay else None
    if c is None:
        return ""
    out = [r.strategy for r in p.replay if r.ran_out]
    return (f"Replayed on the {p.n_measured} simulated workloads: {c.n_seeds} seed(s), "
            f"{max(len(r.error) for r in p.replay) - 1} rounds from a random start"
            + (f" ({', '.join(out)}: the replay ran out of workloads to hold back, its line stops early)" if out
               else ""))


def batch_rows(p) -> list[dict]:
    """One row per workload of the batch, in rank order (1 = simulate first)."""
    return [{"rank": b.rank, "id": b.id, "group": b.group or "", "cost_hours": b.cost, "width": b.width,
             "distance": b.distance, "predicted": b.predicted, "lower": b.lower, "upper": b.upper,
             "calibration": "✓ at random" if b.calibration else "", "why": b.why} for b in p.batch]


def round_rows(r: RoundChange | None) -> list[dict]:
    """Per simulated workload of the last batch: what the plan before predicted, what was simulated, the move."""
    if r is None:
        return []
    return [{"id": w.id, "predicted": w.predicted, "lower": w.lower, "upper": w.upper, "simulated": w.simulated,
             "ratio": math.exp(w.moved), "inside": "–" if w.inside is None else ("✓ yes" if w.inside else "✗ no")}
            for w in r.moves]


def replay_rows(p) -> list[dict]:
    """The replay curves, one row per strategy and round (round 0: the random start)."""
    out = []
    for c in p.replay:
        for i in range(len(c.error)):
            def at(xs, i=i):
                return xs[i] if i < len(xs) else None

            out.append({"strategy": c.strategy + (" (chosen)" if c.strategy == p.strategy else ""), "round": i,
                        "simulated": at(c.simulated), "hours": at(c.hours), "error": at(c.error),
                        "error_sd": at(c.error_sd), "coverage": at(c.coverage), "median_width": at(c.median_width)})
    return out


def _table(caption, rows, columns, key, decimals=None) -> SummaryTable:
    return SummaryTable(caption, pd.DataFrame(rows, columns=[f for f, _ in columns]), columns, decimals or {}, key)


def summarize(p, *, data: str = "", target: str = "", level: float = LEVEL, changes: RoundChange | None = None,
              results: RoundResults | None = None, provenance: Provenance | None = None) -> Summary:
    """The summary of plan ``p`` (see the module docstring): ``data`` names the table or dataset, ``target``
    the simulated column; ``changes``: what the last round changed; ``results``: what the round's simulator
    output gave; ``provenance``: what computed the plan."""
    e = p.expected
    budget = p.budget.get("text") if isinstance(p.budget, dict) else str(p.budget)
    batch = f"{e.n_batch} workloads, {hours(e.batch_hours)}"
    error = (f"{e.error_now:.4g} → {e.error_after:.4g}" if e.error_now is not None and e.error_after is not None
             else error_text(e.error_now))
    width = f"{factor(e.width_now)} → {factor(e.width_after)}" if e.width_after is not None else factor(e.width_now)
    facts = (Fact("strategy", _strategy(p), key="strategy-used"),
             Fact("batch", batch, key="batch-size"),
             Fact("budget", budget or "", key="budget-asked"),
             Fact("mean |log error| now → after", error, key="error"),
             Fact("median interval width now → after", width, key="width"),
             Fact("simulated / candidates", f"{p.n_measured} / {p.n_candidates}", key="counts"))
    notes = [Note(str(n)) for n in p.notes]
    details = [Fact("Strategy", choice_sentence(p), key="why")]
    if changes is not None:
        details.append(Fact("What the last round's simulations changed", round_sentence(changes), key="round-change"))
    if results is not None:
        lines = results.text()
        details.append(Fact("Results", "; ".join([lines[0], lines[1]]), key="results"))
        details += [Fact("Results", line, key="") for line in results.details()]
        notes += [Note(str(n), "info") for n in results.notes]
    details.append(Fact("Model", p.model, key="model"))
    if p.replay:
        details.append(Fact("How the strategies were compared", replay_sentence(p), key="replay"))
    tables = [_table("The batch to simulate, in order", batch_rows(p), BATCH_COLUMNS, "batch",
                     {"cost_hours": 3, "width": 2, "distance": 2})]
    if changes is not None:
        tables.append(_table("What the last batch's simulations changed: predicted before against simulated, "
                             "largest moves first", round_rows(changes), ROUND_COLUMNS, "round", {"ratio": 3}))
    if p.replay:
        tables.append(_table("Expected error against simulator hours, per strategy", replay_rows(p), REPLAY_COLUMNS,
                             "replay"))
    where = f"{data}: target {target}; " if data else (f"target {target}; " if target else "")
    made = ""
    if provenance is not None:
        mark = "" if provenance.fingerprint is None else f" (fingerprint {provenance.fingerprint})"
        named = f"Dataset {provenance.dataset}{mark}, made" if provenance.dataset and provenance.dataset != data \
            else "Made"
        made = f" {named} by code version {provenance.code_version}, computed {provenance.date}."
    text = f"{where}cost {p.cost_source}; model {p.model}; {p.calibration}.{made}"
    title = f"What to simulate next{f' on {data}' if data else ''}: {batch}"
    return Summary(title, facts, effect_sentence(p, level), tuple(notes), tuple(details), tuple(tables), provenance,
                   text[0].upper() + text[1:])


__all__ = ["batch_rows", "choice_sentence", "effect_sentence", "error_text", "factor", "hours", "replay_rows",
           "replay_sentence", "round_rows", "round_sentence", "summarize"]
