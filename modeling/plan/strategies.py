"""Which candidates to simulate next: an order of preference per strategy, then the budget takes a prefix.

Every strategy returns the candidates in the order it would simulate them (with a short reason per pick);
:func:`fill` then takes them in that order while the budget allows (a count: the first N; hours: each
candidate that still fits, skipping those that do not). With a budget in hours the greedy strategies
(k-center, k-medoids) pick only among the candidates the hours left still buy and go on until nothing fits,
so whatever the spread of the costs (six orders of magnitude, a few workloads dearer than the whole budget,
many nearly free) the budget is spent on their picks, not on the order's tail.

* ``random``: a uniformly random order (the reference a user compares against).
* ``stratified``: random within each application, applications in proportion to their candidates
  (proportional stratified sampling; systematic: any prefix is close to proportional).
* ``diversity``: greedy k-center in counter space (Gonzalez 1985), as workload subsetting does (SimPoint,
  PCA-clustering subsetting): each pick is the candidate farthest from everything simulated or picked.
  The space is that of the applicability check (:mod:`modeling.crossgen.applicability`): each non-negative
  counter as ``log1p(x / median)``, standardized.
* ``uncertainty``: uncertainty with diversity (batch active learning, after Ïpek et al. 2006 and
  BOOM-Explorer 2021): the candidates with the widest interval (the pooled CV+ width of
  :mod:`modeling.plan.assess`), three per batch slot, are split into one k-means cluster per slot, and each
  cluster gives its most uncertain candidate, so a batch does not spend itself on one unusual corner.
* ``cost``: the same clusters, but each cluster gives its candidate with the most width per simulator hour
  (``width / cost ** COST_POWER``): a long workload is taken only when nothing similar and nearly as
  uncertain is cheaper.
* ``cost-diversity``: k-center where each pick maximizes ``distance / cost ** COST_POWER``.
* ``representative``: greedy k-medoids (facility location; Cornuéjols, Fisher & Nemhauser 1977): each pick is
  the candidate that lowers the candidates' mean distance to their nearest simulated-or-picked workload the
  most. k-center covers the worst-placed candidate, which is often an outlier that stands for nobody; the
  planner is scored on the mean error over every workload not simulated, which this objective follows. With
  nothing simulated the first pick is the candidates' medoid. Above :data:`MEDOID_PICKS` candidates a random
  sample of them is weighed as picks; above :data:`MEDOID_ROWS`, the mean runs over a random sample of that
  many. Candidates beyond the picks follow, the farthest from the simulated and picked ones first.
* ``cost-representative``: the same, each pick maximizing ``gain / cost ** COST_POWER`` (with nothing
  simulated, the first minimizes mean distance x ``cost ** COST_POWER``).

Once a model is fitted, the k-center, k-medoids and k-means space weighs each counter by half a uniform share and half
its share of the forest's RSS importance (:mod:`modeling.plan.assess`): counters the model does not use
count less in "how unlike the simulated ones". On the ARM phases this brought k-center's early rounds level
with random (``benchmarks/plan.py``).

Dividing by the raw cost (power 1) lets the cheapest workloads win everywhere, whatever they teach; the
square root keeps a long workload that is far more uncertain than its cheap neighbours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from modeling.errors import ConfigError
from modeling.plan.inputs import Budget

STRATEGIES = ("random", "stratified", "diversity", "representative", "uncertainty", "cost", "cost-diversity",
              "cost-representative")
LABELS = {
    "random": "random choice",
    "stratified": "random within each application, in proportion",
    "diversity": "k-center in counter space",
    "uncertainty": "widest intervals, spread over k-means clusters",
    "cost": "widest intervals per simulator hour, spread over k-means clusters",
    "cost-diversity": "k-center in counter space per simulator hour",
    "representative": "greedy k-medoids in counter space",
    "cost-representative": "greedy k-medoids in counter space per simulator hour",
}
#: at most this many candidates are weighed as picks, and this many rows as those a pick represents
MEDOID_PICKS, MEDOID_ROWS = 1500, 3000
COST_POWER = 0.5
#: candidates considered per batch slot by the cluster strategies
TOP_PER_SLOT = 3


@dataclass
class Context:
    """What a strategy sees: the embedded counters ``Z`` (n, p) of every workload, the candidate and
    simulated indices, the ranking width per candidate (aligned with ``candidates``; None without a model),
    cost per workload (hours), groups, the budget and a random generator."""

    Z: np.ndarray
    candidates: np.ndarray
    simulated: np.ndarray
    width: np.ndarray | None
    cost: np.ndarray
    groups: np.ndarray | None
    budget: Budget
    rng: np.random.Generator
    feature_weight: np.ndarray | None = None

    def space(self) -> np.ndarray:
        """``Z``, each counter scaled by the square root of its weight when the model gives weights."""
        if self.feature_weight is None:
            return self.Z
        return self.Z * np.sqrt(self.feature_weight * self.Z.shape[1])[None, :]


def pairwise_distance(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Euclidean distances (len(A), len(B)) between the rows of A and those of B."""
    d2 = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :] - 2.0 * A @ B.T
    return np.sqrt(np.maximum(d2, 0.0))


def nearest_distance(Z: np.ndarray, rows: np.ndarray, to: np.ndarray) -> np.ndarray:
    """Distance of each of ``rows`` to its nearest of ``to`` (inf when ``to`` is empty)."""
    out = np.full(len(rows), np.inf)
    if len(to) == 0 or len(rows) == 0:
        return out
    B = Z[to]
    for s in range(0, len(rows), 1024):
        out[s:s + 1024] = pairwise_distance(Z[rows[s:s + 1024]], B).min(axis=1)
    return out


def slots(ctx: Context) -> int:
    """How many workloads the budget is expected to buy among the candidates: a count budget's number; an
    hours budget over the candidates' *mean* cost (what a pick drawn at random costs on average). The median
    would be far too many when costs are heavy-tailed: a budget of 100 h over a median of 0.03 h is 3,000
    slots, where a random draw costs ten times the median on such a table."""
    if ctx.budget.kind == "count":
        return int(min(ctx.budget.amount, len(ctx.candidates)))
    if len(ctx.candidates) == 0:
        return 0
    per = float(np.mean(ctx.cost[ctx.candidates]))
    return int(max(1, min(len(ctx.candidates), ctx.budget.amount // per if per > 0 else len(ctx.candidates))))


def _hours_left(ctx: Context) -> float:
    """The hours a budget-aware greedy may still spend (infinite for a count budget: it stops at its limit)."""
    return float(ctx.budget.amount) if ctx.budget.kind == "hours" else np.inf


def _random(ctx: Context):
    order = ctx.rng.permutation(ctx.candidates)
    return order, ["drawn at random"] * len(order)


def _stratified(ctx: Context):
    if ctx.groups is None:
        order, _ = _random(ctx)
        return order, ["drawn at random (no application column: nothing to stratify by)"] * len(order)
    g = ctx.groups[ctx.candidates]
    key = np.empty(len(g))
    for name in np.unique(g):
        idx = np.flatnonzero(g == name)
        key[idx] = (ctx.rng.permutation(len(idx)) + ctx.rng.random()) / len(idx)
    o = np.argsort(key, kind="stable")
    order = ctx.candidates[o]
    return order, [f"drawn at random within application {ctx.groups[i]}" for i in order]


def _k_center(ctx: Context, per_cost: bool, limit: int):
    cand, Z = ctx.candidates, ctx.space()
    d = nearest_distance(Z, cand, ctx.simulated)
    div = ctx.cost[cand] ** COST_POWER if per_cost else np.ones(len(cand))
    taken = np.zeros(len(cand), bool)
    left, cost = _hours_left(ctx), ctx.cost[cand]
    order, why = [], []
    for _ in range(min(limit, len(cand))):
        fits = ~taken & (cost <= left + 1e-12)  # an hours budget: only what the hours left still buy
        if not fits.any():
            break
        if np.isfinite(d).any():
            j = int(np.argmax(np.where(fits, d / div, -np.inf)))
            why.append(f"farthest from the simulated and already picked ({d[j]:.2f}"
                       + (f" per sqrt hour: / {div[j]:.3g})" if per_cost else ")"))
        else:  # nothing simulated yet: start nearest the centre of the candidates
            j = int(np.argmin(np.where(fits, np.linalg.norm(Z[cand] - Z[cand].mean(axis=0), axis=1), np.inf)))
            why.append("the first pick: nearest the centre of the candidates")
        taken[j] = True
        left -= cost[j]
        order.append(cand[j])
        d = np.minimum(d, np.linalg.norm(Z[cand] - Z[cand[j]], axis=1))
        d[taken] = 0.0
    rest = np.flatnonzero(~taken)
    return np.concatenate([np.asarray(order, int), cand[rest]]), why + ["not reached by k-center"] * len(rest)


def _medoids(ctx: Context, per_cost: bool, limit: int):
    """Greedy facility location, evaluated lazily (Minoux 1978): a candidate's gain can only shrink as picks
    are added (the objective is submodular), so a gain computed in an earlier pick bounds today's from above
    and only the candidates at the top of the bounds are recomputed. The picks are those of recomputing every
    gain at every pick (ties: the lower position in the pool)."""
    import heapq

    cand, Z = ctx.candidates, ctx.space()
    if len(cand) == 0:
        return np.empty(0, int), []
    pool = cand if len(cand) <= MEDOID_PICKS else np.sort(ctx.rng.choice(cand, MEDOID_PICKS, replace=False))
    rows = cand if len(cand) <= MEDOID_ROWS else np.sort(ctx.rng.choice(cand, MEDOID_ROWS, replace=False))
    D = pairwise_distance(Z[pool], Z[rows])
    div = ctx.cost[pool] ** COST_POWER if per_cost else np.ones(len(pool))
    d = nearest_distance(Z, rows, ctx.simulated)
    left, cost = _hours_left(ctx), ctx.cost[pool]
    order, why = [], []
    if not np.isfinite(d).any():  # nothing simulated: start at the medoid (per sqrt hour: its mean distance x)
        j = int(np.argmin(np.where(cost <= left + 1e-12, D.mean(axis=1) * div, np.inf)))
        order.append(j)
        left -= cost[j]
        why.append("the first pick: the candidates' medoid (the least mean distance to all of them"
                   + (", times sqrt hour)" if per_cost else ")"))
        d = D[j].copy()
    score = np.maximum(d[None, :] - D, 0.0).mean(axis=1) / div
    heap = [(-score[j], j, len(order)) for j in range(len(pool)) if j not in order]
    heapq.heapify(heap)
    buf = np.empty(len(rows))
    while len(order) < min(limit, len(pool)) and heap:
        neg, j, when = heapq.heappop(heap)
        if cost[j] > left + 1e-12:  # an hours budget: it no longer fits, and the hours left only shrink
            continue
        if when != len(order):  # a bound from an earlier pick: recompute and put back
            np.subtract(d, D[j], out=buf)
            np.maximum(buf, 0.0, out=buf)
            heapq.heappush(heap, (-float(buf.mean()) / div[j], j, len(order)))
            continue
        why.append(f"brings the candidates nearer to a simulated workload (mean distance -{-neg * div[j]:.3f}"
                   + (f", per sqrt hour: / {div[j]:.3g})" if per_cost else ")"))
        order.append(j)
        left -= cost[j]
        np.minimum(d, D[j], out=d)
    picked = pool[np.asarray(order, int)]
    rest = cand[~np.isin(cand, picked)]
    if len(rest):  # beyond the picks (a large batch, or what an hours budget skips): the least represented first
        far = nearest_distance(Z, rest, np.concatenate([ctx.simulated, picked]).astype(int))
        rest = rest[np.argsort(-far, kind="stable")]
    return (np.concatenate([picked, rest]),
            why + ["beyond the k-medoids picks: the farthest from the simulated and picked first"] * len(rest))


def _clusters(ctx: Context, per_cost: bool):
    from sklearn.cluster import KMeans

    if ctx.width is None:
        order, why = _k_center(ctx, per_cost, _greedy_limit(ctx))
        return order, [f"{w} (no model yet: too few simulated workloads for an interval width)" for w in why]
    cand, width = ctx.candidates, ctx.width
    div = ctx.cost[cand] ** COST_POWER if per_cost else np.ones(len(cand))
    score = width / div
    b = slots(ctx)
    m = min(len(cand), TOP_PER_SLOT * b)
    top = np.argsort(-width, kind="stable")[:m]  # the uncertain candidates; per hour only within a cluster
    k = min(b, m)
    if k >= 2:
        labels = KMeans(n_clusters=k, n_init=1, random_state=int(ctx.rng.integers(2**31 - 1))).fit_predict(
            ctx.space()[cand[top]])
    else:
        labels = np.zeros(m, int)
    picks = []
    for c in np.unique(labels):
        members = top[labels == c]
        picks.append(members[np.argmax(score[members])])
    picks = sorted(picks, key=lambda j: -score[j])
    taken = np.zeros(len(cand), bool)
    taken[picks] = True
    rest = np.flatnonzero(~taken)
    rest = rest[np.argsort(-score[rest], kind="stable")]
    unit = " per hour" if per_cost else ""
    why = [f"widest interval{unit} of its cluster of uncertain candidates" for _ in picks]
    why += [f"next widest interval{unit}" for _ in rest]
    return cand[np.concatenate([np.asarray(picks, int), rest])], why


def _greedy_limit(ctx: Context) -> int:
    """How many picks the greedy strategies make: a count budget's number; with an hours budget, as many as
    the hours buy (each pick must fit in the hours left, so the order's head is exactly what the budget buys,
    however the costs spread)."""
    return slots(ctx) if ctx.budget.kind == "count" else len(ctx.candidates)


def order(strategy: str, ctx: Context):
    """The candidates in the order ``strategy`` would simulate them, and a reason per candidate."""
    if strategy == "random":
        return _random(ctx)
    if strategy == "stratified":
        return _stratified(ctx)
    if strategy in ("diversity", "cost-diversity"):
        return _k_center(ctx, strategy == "cost-diversity", _greedy_limit(ctx))
    if strategy in ("representative", "cost-representative"):
        return _medoids(ctx, strategy == "cost-representative", _greedy_limit(ctx))
    if strategy == "uncertainty":
        return _clusters(ctx, False)
    if strategy == "cost":
        return _clusters(ctx, True)
    raise ConfigError(f"Unknown strategy {strategy!r}; use auto or one of {', '.join(STRATEGIES)}.")


def fill(ordered: np.ndarray, cost: np.ndarray, budget: Budget) -> np.ndarray:
    """Positions in ``ordered`` that the budget buys, in order (see the module docstring)."""
    if budget.kind == "count":
        return np.arange(min(int(budget.amount), len(ordered)))
    left, out = budget.amount, []
    for i, j in enumerate(ordered):
        if cost[j] <= left + 1e-12:
            out.append(i)
            left -= cost[j]
    return np.asarray(out, int)


__all__ = ["COST_POWER", "Context", "LABELS", "STRATEGIES", "fill", "nearest_distance", "order", "pairwise_distance",
           "slots"]
