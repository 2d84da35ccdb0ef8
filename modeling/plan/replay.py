"""Replay: pretend only part of the measured workloads is known, plan, reveal, score.

On a table whose workloads all have a measured target, :func:`replay` draws a random start, then for each
round fits the model on what is "simulated" (:mod:`modeling.plan.assess`), scores its predictions on the
workloads not simulated (mean |log error|, mean APE, the share inside their interval, the median interval
width), lets a strategy choose a batch under the round's budget (:mod:`modeling.plan.batch`) and reveals
the batch's targets. Every round spends the same budget (a count, or hours), so rounds of different
strategies compare at equal spending. ``auto`` inside a replay re-chooses its strategy by a replay of its
own on the workloads simulated so far (:mod:`modeling.plan.auto`).
"""

from __future__ import annotations

import numpy as np

from modeling.crossgen.situations import NEW_INPUTS
from modeling.plan import strategies
from modeling.plan.assess import assess
from modeling.plan.batch import select
from modeling.plan.calibration import CALIBRATION_SHARE
from modeling.plan.inputs import Budget, PlanTable
from modeling.plan.results import ReplayCurve
from modeling.parallel import map_unordered


def embed(table: PlanTable) -> np.ndarray:
    """Every workload in the counter space of the strategies (:mod:`modeling.plan.strategies`)."""
    from modeling.crossgen.applicability import reference

    ref = reference(table.X)
    return ref.Zt / np.sqrt(max(table.X.shape[1], 1))


def _score(a, truth) -> dict:
    err = np.abs(np.log(np.maximum(a.predicted, 1e-300)) - np.log(truth))
    out = {"error": float(err.mean()), "mean_ape": float(100 * np.mean(np.abs(a.predicted - truth) / truth)),
           "coverage": None, "median_width": None}
    if a.lower is not None:
        out["coverage"] = float(np.mean((a.lower <= truth) & (truth <= a.upper)))
        out["median_width"] = float(np.median(a.upper / a.lower))
    return out


def replay(table: PlanTable, strategy: str, *, round_budget: Budget, rounds: int, start: int, seed: int = 0,
           situation: str = NEW_INPUTS, level: float = 0.9, share: float = CALIBRATION_SHARE,
           Z: np.ndarray | None = None, auto_options: dict | None = None, weighted: bool = True,
           first=None) -> list[dict]:
    """One replay (one seed): a list of rounds, round 0 being the random start of ``start`` workloads.

    ``first``: round 0's assessment when it is already known (:func:`first_assessment` with the same table,
    start, seed and options): every strategy's replay of one seed starts from the same workloads, so
    :func:`compare` assesses that start once per seed, not once per strategy."""
    if not np.all(np.isfinite(table.y)):
        raise ValueError("A replay needs a measured target for every workload.")
    rng = np.random.default_rng(seed)
    Z = embed(table) if Z is None else Z
    n = len(table.y)
    known = _start(rng, n, start)
    calib = known.copy()
    hidden_y = np.full(n, np.nan)
    out = []
    chooser = None
    if strategy == "auto":
        chooser = Chooser(round_budget.kind, situation=situation, level=level, seed=seed, **(auto_options or {}))
    for r in range(rounds + 1):
        y = hidden_y.copy()
        y[known] = table.y[known]
        rest = np.setdiff1d(np.arange(n), known)
        if len(rest) == 0:  # the last batch simulated every workload: nothing is left to score a round on
            out[-1]["ran_out"] = True
            break
        if r == 0 and first is not None:
            a = first
        else:
            a = assess(table, y, known, rest, calibration=calib, situation=situation, level=level, seed=seed,
                       Z=Z)
        row = {"round": r, "simulated": len(known), "hours": float(table.cost[known].sum()),
               **_score(a, table.y[rest]), "strategy": None, "ran_out": False}
        out.append(row)
        if r == rounds:
            break
        used = strategy
        if chooser is not None:
            used = chooser.choose(table.subset(known), Z[known])
        row["strategy"] = used
        ctx = strategies.Context(Z, rest, known, a.rank_width, table.cost, table.groups, round_budget, rng,
                                 a.feature_weight if weighted else None)
        picks, _, flags = select(used, ctx, share)
        if len(picks) == 0:  # the round's budget buys none of the workloads left (each costs more)
            row["ran_out"] = True
            break
        known = np.concatenate([known, picks])
        calib = np.concatenate([calib, picks[flags]])
    return out


def _start(rng, n: int, start: int) -> np.ndarray:
    """The random start of a replay (the first draw of its generator)."""
    return rng.choice(n, size=min(start, n - 1), replace=False)


def first_assessment(table: PlanTable, *, start: int, seed: int = 0, situation: str = NEW_INPUTS,
                     level: float = 0.9, Z: np.ndarray | None = None):
    """Round 0's assessment of :func:`replay` with the same arguments (None when it has nothing to score)."""
    n = len(table.y)
    known = _start(np.random.default_rng(seed), n, start)
    rest = np.setdiff1d(np.arange(n), known)
    if len(rest) == 0:
        return None
    y = np.full(n, np.nan)
    y[known] = table.y[known]
    return assess(table, y, known, rest, calibration=known.copy(), situation=situation, level=level, seed=seed,
                  Z=embed(table) if Z is None else Z)


def ran_out(run: list[dict]) -> bool:
    """Whether a replay stopped before its last round: a batch simulated every workload it had held back, or
    the round's budget bought none of those left."""
    return bool(run and run[-1].get("ran_out"))


def curve(strategy: str, runs: list[list[dict]], budget_kind: str) -> ReplayCurve:
    """Mean and spread over seeds of replays of one strategy (rounds aligned by index; a replay that ran out
    of workloads cuts the curve at its last scored round)."""
    m = min(len(r) for r in runs)

    def stat(key, f):
        vals = [[run[i][key] for run in runs] for i in range(m)]
        return [None if any(v is None for v in col) else float(f(np.asarray(col, float))) for col in vals]

    return ReplayCurve(strategy=strategy, budget_kind=budget_kind, n_seeds=len(runs),
                       simulated=stat("simulated", np.mean), hours=stat("hours", np.mean),
                       error=stat("error", np.mean), error_sd=stat("error", np.std),
                       mean_ape=stat("mean_ape", np.mean), coverage=stat("coverage", np.mean),
                       coverage_sd=stat("coverage", np.std), median_width=stat("median_width", np.mean),
                       ran_out=sum(ran_out(r) for r in runs))


# ---------------------------------------------------------------- auto (modeling.plan.auto): a replay of its own
# ``auto`` replays the strategies, and a replay of ``auto`` re-chooses by a replay: both live in this module so
# that neither imports the other; :mod:`modeling.plan.auto` is where they are documented and imported from.
MIN_REPLAY = 24
#: more simulated workloads than this are replayed on a random subset of this many
MAX_REPLAY_ROWS = 600
START_SHARE = 0.4
ROUND_SHARE = 0.15
ROUNDS = 3
#: strategies ``auto`` chooses among
CANDIDATES = ("random", "stratified", "diversity", "representative", "uncertainty", "cost", "cost-diversity",
              "cost-representative")
#: used while too few workloads are simulated to replay on, per budget kind
#: (hours: on heavy-tailed costs cost-diversity spends a round on the many nearly free workloads and its error
#: stalls; representative reached random's error at 15 % of the hours with 58 % of its hours, benchmarks/plan.py)
DEFAULT = {"count": "representative", "hours": "representative"}
#: how much lower (a share of the default's) another strategy's replayed error must be to replace it
SWITCH_MARGIN = 0.2


def compare(table: PlanTable, budget_kind: str, *, situation=NEW_INPUTS, level=0.9, seeds=(0,),
            candidates=CANDIDATES, Z=None, n_jobs: int = 1):
    """Replay every candidate strategy on ``table`` (every workload measured): {strategy: [runs]}.

    Each (strategy, seed) replay is one task of :func:`modeling.parallel.map_unordered` on ``n_jobs``
    processes: each draws from its own seed, so the runs are the same whatever ``n_jobs`` is. Every strategy's
    replay of one seed starts from the same random workloads: their round 0 is assessed once per seed
    (:func:`first_assessment`, also spread over the processes) and shared."""
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
    tasks = [(s, sd) for s in cands for sd in seeds]

    def start_of(sd):
        return sd, first_assessment(table, start=start, seed=sd, situation=situation, level=level, Z=Z)

    firsts = dict(map_unordered(start_of, seeds, n_jobs)) if len(cands) > 1 else {}

    def one(task):
        s, sd = task
        return s, sd, replay(table, s, round_budget=per, rounds=ROUNDS, start=start, seed=sd, situation=situation,
                             level=level, Z=Z, first=firsts.get(sd))

    done = {(s, sd): run for s, sd, run in map_unordered(one, tasks, n_jobs)}
    return {s: [done[s, sd] for sd in seeds] for s in cands}


def pick(runs: dict, budget_kind: str = "count") -> tuple[str, str, dict]:
    """The strategy with the lowest replayed error (mean over rounds 1.., and seeds), the reason, the scores.

    The default of the budget's kind (:data:`DEFAULT`) is kept unless another strategy's error is lower by
    more than :data:`SWITCH_MARGIN` of it: a replay on a few dozen workloads is noisy, and in the benchmark
    switching on small differences cost more than it gained (40 seeds on the ARM phases: with a 10 % margin
    ``auto`` reached random's error at 15 % of the workloads one round later than with 20 %, 73 % of random's
    simulations instead of 67 %; the GPU table's result was the same with either)."""
    default = DEFAULT[budget_kind]
    # the rounds every replay has: one that ran out of workloads early is not scored on its early rounds alone
    common = min((len(run) for rs in runs.values() for run in rs), default=0)
    scores = {s: float(np.mean([r["error"] for run in rs for r in run[1:common]])) for s, rs in runs.items()}
    out = sorted(s for s, rs in runs.items() if any(ran_out(run) for run in rs))
    if common < 2:  # a replay ran out in its first round: nothing to compare the strategies on
        return default, (f"the default, {default}: the replay ran out of workloads to hold back in its first "
                         f"round (a round's budget, {ROUND_SHARE:.0%} of the simulated workloads' "
                         f"{'count' if budget_kind == 'count' else 'hours'}, simulated every workload held back "
                         "or could buy none of them), so it could not compare the strategies"), {}
    best = min(scores, key=scores.get)
    kept = default in scores and best != default and scores[best] > (1 - SWITCH_MARGIN) * scores[default]
    listed = ", ".join(f"{s} {v:.3f}" for s, v in sorted(scores.items(), key=lambda kv: kv[1]))
    why = (f"mean |log error| on the simulated workloads held back in a replay ({ROUNDS} rounds of "
           f"{ROUND_SHARE:.0%} from a {START_SHARE:.0%} random start): {listed}")
    if out:
        why += (f" (the replay of {', '.join(out)} ran out of workloads to hold back before its last round; "
                f"every strategy is scored on the first {common - 1} round(s))")
    if kept:
        return default, (f"the default, {default}: no strategy beat it by more than {SWITCH_MARGIN:.0%} in the "
                         f"{why}"), scores
    return best, f"lowest {why}", scores


class Chooser:
    """``auto`` across the rounds of a replay: re-chooses when the simulated workloads have grown by
    ``regrow`` since the last choice (a replay per round would cost a replay of replays)."""

    def __init__(self, budget_kind: str, *, situation=NEW_INPUTS, level=0.9, seed=0, regrow=1.5,
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


__all__ = ["CANDIDATES", "Chooser", "DEFAULT", "MIN_REPLAY", "compare", "curve", "embed", "pick", "ran_out",
           "replay"]
