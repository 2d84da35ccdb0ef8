"""``auto``: choose the strategy by replaying each on the workloads already simulated.

The simulated workloads are the only ones whose answer is known, so they are where strategies can be
compared: a random :data:`START_SHARE` of them is "known", each strategy plans :data:`ROUNDS` rounds of
:data:`ROUND_SHARE` of them (of their count, or of their simulator hours when the budget is in hours),
and the strategy whose predictions of the rest have the lowest mean |log error|, averaged over the rounds,
wins. With fewer than :data:`MIN_REPLAY` simulated workloads there is too little to replay on: the
default of the budget's kind is used (:data:`DEFAULT`, the strategy that did best in ``benchmarks/plan.py``)
and the reason says so. Above :data:`MAX_REPLAY_ROWS` simulated workloads the replay runs on a random subset
of that many.
"""

from __future__ import annotations

import numpy as np

from modeling.plan.inputs import Budget, PlanTable

MIN_REPLAY = 24
#: more simulated workloads than this are replayed on a random subset of this many
MAX_REPLAY_ROWS = 600
START_SHARE = 0.4
ROUND_SHARE = 0.15
ROUNDS = 3
#: strategies ``auto`` chooses among
CANDIDATES = ("random", "stratified", "diversity", "uncertainty", "cost", "cost-diversity")
#: used while too few workloads are simulated to replay on, per budget kind
DEFAULT = {"count": "diversity", "hours": "cost-diversity"}
#: how much lower (a share of the default's) another strategy's replayed error must be to replace it
SWITCH_MARGIN = 0.1


def compare(table: PlanTable, budget_kind: str, *, situation="new-inputs", level=0.9, seeds=(0,),
            candidates=CANDIDATES, Z=None):
    """Replay every candidate strategy on ``table`` (every workload measured): {strategy: [runs]}."""
    from modeling.plan.replay import embed, replay

    Z = embed(table) if Z is None else Z
    if len(table.y) > MAX_REPLAY_ROWS:  # a random subset keeps the replay's cost bounded
        rows = np.sort(np.random.default_rng(seeds[0]).choice(len(table.y), MAX_REPLAY_ROWS, replace=False))
        table, Z = table.subset(rows), Z[rows]
    n = len(table.y)
    start = max(int(round(START_SHARE * n)), 2)
    amount = (max(1.0, round(ROUND_SHARE * n)) if budget_kind == "count"
              else ROUND_SHARE * float(table.cost.sum()))
    per = Budget(budget_kind, amount)
    cands = [c for c in candidates if c != "stratified" or table.groups is not None]
    return {s: [replay(table, s, round_budget=per, rounds=ROUNDS, start=start, seed=sd, situation=situation,
                       level=level, Z=Z) for sd in seeds] for s in cands}


def pick(runs: dict, budget_kind: str = "count") -> tuple[str, str, dict]:
    """The strategy with the lowest replayed error (mean over rounds 1.., and seeds), the reason, the scores.

    The default of the budget's kind (:data:`DEFAULT`) is kept unless another strategy's error is lower by
    more than :data:`SWITCH_MARGIN` of it: a replay on a few dozen workloads is noisy, and in the benchmark
    switching on small differences cost more than it gained."""
    scores = {s: float(np.mean([r["error"] for run in rs for r in run[1:]])) for s, rs in runs.items()}
    best = min(scores, key=scores.get)
    default = DEFAULT[budget_kind]
    kept = default in scores and best != default and scores[best] > (1 - SWITCH_MARGIN) * scores[default]
    listed = ", ".join(f"{s} {v:.3f}" for s, v in sorted(scores.items(), key=lambda kv: kv[1]))
    why = (f"mean |log error| on the simulated workloads held back in a replay ({ROUNDS} rounds of "
           f"{ROUND_SHARE:.0%} from a {START_SHARE:.0%} random start): {listed}")
    if kept:
        return default, (f"the default, {default}: no strategy beat it by more than {SWITCH_MARGIN:.0%} in the "
                         f"{why}"), scores
    return best, f"lowest {why}", scores


class Chooser:
    """``auto`` across the rounds of a replay: re-chooses when the simulated workloads have grown by
    ``regrow`` since the last choice (a replay per round would cost a replay of replays)."""

    def __init__(self, budget_kind: str, *, situation="new-inputs", level=0.9, seed=0, regrow=1.5,
                 candidates=CANDIDATES):
        self.kind, self.situation, self.level, self.seed = budget_kind, situation, level, seed
        self.regrow, self.candidates = regrow, candidates
        self.last_n, self.choice = 0, None
        self.history: list = []

    def choose(self, known: PlanTable, Z=None) -> str:
        n = len(known.y)
        if n < MIN_REPLAY:
            return DEFAULT[self.kind]
        if self.choice is None or n >= self.regrow * self.last_n:
            runs = compare(known, self.kind, situation=self.situation, level=self.level, seeds=(self.seed,),
                           candidates=self.candidates, Z=Z)
            self.choice, _, scores = pick(runs, self.kind)
            self.last_n = n
            self.history.append((n, self.choice, scores))
        return self.choice


def replay_auto(table: PlanTable, *, round_budget: Budget, seed: int = 0, situation: str = "new-inputs",
                level: float = 0.9, auto_options: dict | None = None, **kw) -> list[dict]:
    """A replay (:func:`modeling.plan.replay.replay`) of ``auto`` itself: a :class:`Chooser` picks each
    round's strategy from the workloads known by then."""
    from modeling.plan.replay import replay

    chooser = Chooser(round_budget.kind, situation=situation, level=level, seed=seed, **(auto_options or {}))
    return replay(table, "auto", round_budget=round_budget, seed=seed, situation=situation, level=level,
                  chooser=chooser, **kw)


__all__ = ["CANDIDATES", "Chooser", "DEFAULT", "MIN_REPLAY", "compare", "pick", "replay_auto"]
