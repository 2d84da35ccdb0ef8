"""Batched SCQP (LACross eq. 4.1) against one-phase-at-a-time OSQP, printed as JSON (a ratio, never a test).

Problems: the shipped cBench phases. Training = the 1000 -> 2000 MHz phases (target cycles); test phases =
the host features of every shipped phase of every frequency pair at 2e9 and 1.8e9 instructions (the first
``--phases``, default 10,000); features = standardized per-instruction rates + host time and power + bias
(d = 14); neighbourhoods at the 25th percentile of training distances, T = the global NNLS l1 norm.

Both sides include the neighbourhood and Gram computation. The batched side forms every phase's system at
once and runs :func:`modeling.phases.scqp.solve`: ``active-set`` (the default: the exact active-set method,
compiled, phases in parallel) or ``apg`` (accelerated
projected gradient only); OSQP, one phase at a time, forms that phase's system and solves it, reusing one
solver object (warm-started from the previous phase's solution, matrices updated in place), with
eps_abs = eps_rel = ``--tol``. Reported per batched solver: ``speedup`` (OSQP seconds / batched seconds),
``phases_per_second``, the Gram time, ``speedup_over_osqp_on_batched_systems`` (OSQP given every system
formed the batched way, timed with it: the solvers alone compared), the largest relative objective gap
to OSQP (positive = OSQP worse); and how many OSQP solves did not report "solved". Also: ``shuffled``, both
sides on the same phases in a random order (the test phases come program by program, consecutive phases
alike, which the batched side's Gram sums use); ``distinct_phases`` (phases whose features occur more than
once are not solved once: every phase is solved on both sides); ``fallback_share`` (phases whose
neighbourhood fell back to the k nearest).

    .venv/bin/python benchmarks/phases.py [--phases 10000] [--tol 1e-6] [--solvers active-set,apg] [--repeats 5]
        [--json]

Times are medians of ``--repeats`` runs with [min, max] beside them (the active-set side: 3 x ``--repeats``
runs, each a few hundredths of a second; projected gradient: one run), after one
untimed run of each side (compiled kernels loaded, first allocations done, as in a server after its first
job).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def problems(n_phases: int):
    from modeling.phases import data
    from modeling.phases.model import distance_percentile, nnls_fit

    from modeling.build.armpm import core

    train = core(data.shipped_pair(1000, 2000))  # phases only (a run's first and last samples are no phase)
    tests = [data.shipped_phases()] + [data.shipped_pair(h, t, 1.8e9) for h in data.frequencies()
                                       for t in data.frequencies()]
    test = core(pd.concat(tests, ignore_index=True)).iloc[:n_phases]
    d = data.design(train, test, "z", "counters+host")
    y = train["target_cycles"].to_numpy(float)
    ys = y / np.median(y)
    eps = distance_percentile(d.X, 25.0)
    T = float(nnls_fit(d.X, ys).sum())
    return d.X, ys, d.V, eps, T


def batched(X, ys, V, eps, T, tol, solver="apg"):
    from modeling.phases.model import neighbourhood_problems
    from modeling.phases.scqp import Problem, solve

    SOLVERS = {"apg": lambda p, tol: solve(p, tol=tol, method="apg"),
               "active-set": lambda p, tol: solve(p, tol=tol, method="active-set")}
    t0 = time.perf_counter()
    k_min = max(2 * X.shape[1], 10)
    Q, c, _ = neighbourhood_problems(X, ys, V, eps, k_min)
    tg = time.perf_counter() - t0
    sol = SOLVERS[solver](Problem(Q, c, np.full(len(V), T)), tol)
    return time.perf_counter() - t0, sol, Q, c, tg


def one_at_a_time(X, ys, V, eps, T, tol, batched_systems=False):
    import osqp
    from scipy import sparse

    from modeling.phases.model import neighbourhood_problems

    d = X.shape[1]
    k_min = max(2 * d, 10)
    # the upper triangle in CSC order (column j: rows 0..j), kept dense so every update has one pattern
    rows = np.concatenate([np.arange(j + 1) for j in range(d)])
    cols = np.concatenate([np.full(j + 1, j) for j in range(d)])
    indptr = np.r_[0, np.cumsum(np.arange(1, d + 1))]
    A = sparse.csc_matrix(np.vstack([np.eye(d), np.ones((1, d))]))
    lo, up = np.r_[np.zeros(d), -np.inf], np.r_[np.full(d, np.inf), T]
    t0 = time.perf_counter()
    if batched_systems:  # every system formed at once, as the batched side does: a solver-only comparison
        Qall, call, _ = neighbourhood_problems(X, ys, V, eps, k_min)
    tg = time.perf_counter() - t0
    solver, thetas, status = None, [], []
    for i in range(len(V)):
        if not batched_systems:  # one phase at a time: its neighbourhood, its system (X_N^T X_N), its solve
            D2 = ((X - V[i]) ** 2).sum(axis=1)
            w = D2 <= eps * eps
            if w.sum() < k_min:
                w = np.zeros(len(X), bool)
                w[np.argpartition(D2, k_min - 1)[:k_min]] = True
            Xw = X[w]
            Qi, ci = Xw.T @ Xw / len(Xw), Xw.T @ ys[w] / len(Xw)
        else:
            Qi, ci = Qall[i], call[i]
        Px = Qi[rows, cols]
        if solver is None:
            P = sparse.csc_matrix((Px, rows, indptr), shape=(d, d))
            solver = osqp.OSQP()
            solver.setup(P=P, q=-ci, A=A, l=lo, u=up, eps_abs=tol, eps_rel=tol, max_iter=10000, polish=True,
                         verbose=False, warm_starting=True)
        else:
            solver.update(q=-ci, Px=Px)
        r = solver.solve()
        thetas.append(np.asarray(r.x, float))
        status.append(str(r.info.status))
    return time.perf_counter() - t0, np.array(thetas), status, tg


def _repeat(fn, n: int):
    """Run ``fn`` n times, one after another, keeping only the last run's arrays (as a server does between
    jobs, so each run's memory can be reused by the next). Returns (median seconds, [min, max], the last run,
    the last element of the run whose time is the median: its Gram seconds). ``fn`` is deterministic: the
    last run's results are every run's."""
    runs, last = [], None
    for _ in range(n):
        last = None
        last = fn()
        runs.append((last[0], last[-1]))
    ts = sorted(t for t, _ in runs)
    mid = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    return float(np.median(ts)), [round(ts[0], 3), round(ts[-1], 3)], last, mid[1]


def run(n_phases: int = 10000, tol: float = 1e-6, solvers=("active-set", "apg"), repeats: int = 5) -> dict:
    from modeling.phases.model import neighbourhood_problems
    from modeling.phases.scqp import Problem

    from benchmarks.machine import snapshot

    before = snapshot()
    X, ys, V, eps, T = problems(n_phases)
    # one untimed run of each side first: compiled kernels loaded, first allocations and imports done (as in
    # a server after its first job)
    one_at_a_time(X, ys, V, eps, T, tol)
    if "active-set" in solvers:  # (projected gradient is numpy only and takes ~15 s a run)
        batched(X, ys, V, eps, T, tol, "active-set")
    to, to_range, (_, th_osqp, status, _), _ = _repeat(lambda: one_at_a_time(X, ys, V, eps, T, tol), repeats)
    to_b, to_b_range, _, tg_b = _repeat(lambda: one_at_a_time(X, ys, V, eps, T, tol, batched_systems=True),
                                        repeats)
    out = {"phases": int(len(V)), "d": int(X.shape[1]), "training_phases": int(len(X)), "tol": tol,
           "repeats": repeats, "osqp_seconds": round(to, 3), "osqp_seconds_range": to_range,
           "osqp_phases_per_second": round(len(V) / to),
           "osqp_on_batched_systems_seconds": round(to_b, 3), "osqp_on_batched_systems_range": to_b_range,
           "osqp_on_batched_systems_gram_seconds": round(tg_b, 3),
           "osqp_not_solved": int(sum(s != "solved" for s in status)),
           "osqp_max_bound_violation": float(max(0.0, -th_osqp.min(), (th_osqp.sum(axis=1) - T).max()))}
    for solver in solvers:
        # the active-set side takes ~0.04 s a run: three times the runs, for a steadier median; projected
        # gradient takes ~15 s a run: one
        reps = 3 * repeats if solver == "active-set" else 1
        tb, tb_range, (_, sol, Q, c, _), tg = _repeat(lambda: batched(X, ys, V, eps, T, tol, solver), reps)
        prob = Problem(Q, c, np.full(len(V), T))
        f_o = prob.objective(np.maximum(th_osqp, 0.0))  # OSQP's small bound violations clipped first
        gap = (f_o - sol.objective) / np.maximum(np.abs(sol.objective), 1e-12)
        out[solver] = {"seconds": round(tb, 3), "seconds_range": tb_range, "gram_seconds": round(tg, 3),
                       "speedup": round(to / tb, 2),
                       "speedup_over_osqp_on_batched_systems": round(to_b / tb, 2),
                       "phases_per_second": round(len(V) / tb), "found": int(sol.found.sum()),
                       "max_objective_gap": float(np.max(np.abs(gap))), "median_objective_gap": float(np.median(gap)),
                       "iterations_median_max": [int(np.median(sol.iterations)), int(sol.iterations.max())]}
    if "active-set" in solvers:
        out["shuffled"] = shuffled(X, ys, V, eps, T, tol, repeats)
    _, _, small = neighbourhood_problems(X, ys, V, eps, max(2 * X.shape[1], 10))
    out["distinct_phases"] = int(len(np.unique(V, axis=0)))
    out["fallback_share"] = round(float(small.mean()), 3)
    out["machine_before"], out["machine_after"] = before, snapshot()
    return out


def shuffled(X, ys, V, eps, T, tol, repeats):
    """Both sides again on the test phases in a random order: consecutive phases are then unrelated, so the
    batched side cannot update a phase's sums from the previous phase's (nor OSQP warm-start usefully)."""
    Vs = V[np.random.default_rng(0).permutation(len(V))]
    to, to_range, _, _ = _repeat(lambda: one_at_a_time(X, ys, Vs, eps, T, tol), repeats)
    tb, tb_range, _, tg = _repeat(lambda: batched(X, ys, Vs, eps, T, tol, "active-set"), 3 * repeats)
    return {"osqp_seconds": round(to, 3), "osqp_seconds_range": to_range, "active_set_seconds": round(tb, 3),
            "active_set_seconds_range": tb_range, "active_set_gram_seconds": round(tg, 3),
            "speedup": round(to / tb, 2), "phases_per_second": round(len(V) / tb)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--phases", type=int, default=10000)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--solvers", default="active-set,apg", help="batched solvers to time (active-set, apg)")
    ap.add_argument("--repeats", type=int, default=5, help="runs per side; medians and [min, max] reported")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    print(json.dumps(run(a.phases, a.tol, tuple(a.solvers.split(",")), a.repeats), indent=2))


if __name__ == "__main__":
    main()
