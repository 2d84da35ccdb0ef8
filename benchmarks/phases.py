"""Batched SCQP (LACross eq. 4.1) against one-phase-at-a-time OSQP, printed as JSON (a ratio, never a test).

Problems: the shipped cBench phases. Training = the 1000 -> 2000 MHz phases (target cycles); test phases =
the host features of every shipped phase of every frequency pair at 2e9 and 1.8e9 instructions (the first
``--phases``, default 10,000); features = standardized per-instruction rates + host time and power + bias
(d = 14); neighbourhoods at the 25th percentile of training distances, T = the global NNLS l1 norm.

Both sides include the neighbourhood and Gram computation. The batched side forms every phase's system at
once and runs :func:`modeling.phases.scqp.solve`: ``active-set`` (the default: the exact active-set method,
compiled, phases in parallel; its first call's compilation is done before timing) or ``apg`` (accelerated
projected gradient only); OSQP, one phase at a time, forms that phase's system and solves it, reusing one
solver object (warm-started from the previous phase's solution, matrices updated in place), with
eps_abs = eps_rel = ``--tol``. Reported per batched solver: ``speedup`` (OSQP seconds / batched seconds),
``phases_per_second``, the Gram time, ``speedup_over_osqp_on_batched_systems`` (OSQP given every system
formed the batched way, timed with it: the solvers alone compared), the largest relative objective gap
to OSQP (positive = OSQP worse); and how many OSQP solves did not report "solved".

    .venv/bin/python benchmarks/phases.py [--phases 10000] [--tol 1e-6] [--solvers active-set,apg] [--repeats 5]
        [--json]

Times are medians of ``--repeats`` runs with [min, max] beside them (projected gradient: one run).
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

    train = data.shipped_pair(1000, 2000)
    tests = [data.shipped_phases()] + [data.shipped_pair(h, t, 1.8e9) for h in data.frequencies()
                                       for t in data.frequencies()]
    test = pd.concat(tests, ignore_index=True).iloc[:n_phases]
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
    if solver == "active-set":  # compile once, outside the timing (a server compiles on its first job)
        from modeling.phases.scqp import solve_active_set

        solve_active_set(Problem(np.eye(X.shape[1])[None], np.ones((1, X.shape[1])), np.ones(1)))
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


def _median_of(runs):
    """(median seconds, [min, max]) and the run whose time is the median."""
    ts = sorted(r[0] for r in runs)
    mid = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    return float(np.median(ts)), [round(ts[0], 3), round(ts[-1], 3)], mid


def run(n_phases: int = 10000, tol: float = 1e-6, solvers=("active-set", "apg"), repeats: int = 5) -> dict:
    from modeling.phases.scqp import Problem

    from benchmarks.machine import snapshot

    before = snapshot()
    X, ys, V, eps, T = problems(n_phases)
    to, to_range, (_, th_osqp, status, _) = _median_of(
        [one_at_a_time(X, ys, V, eps, T, tol) for _ in range(repeats)])
    to_b, to_b_range, (_, _, _, tg_b) = _median_of(
        [one_at_a_time(X, ys, V, eps, T, tol, batched_systems=True) for _ in range(repeats)])
    out = {"phases": int(len(V)), "d": int(X.shape[1]), "training_phases": int(len(X)), "tol": tol,
           "repeats": repeats, "osqp_seconds": round(to, 3), "osqp_seconds_range": to_range,
           "osqp_phases_per_second": round(len(V) / to),
           "osqp_on_batched_systems_seconds": round(to_b, 3), "osqp_on_batched_systems_range": to_b_range,
           "osqp_on_batched_systems_gram_seconds": round(tg_b, 3),
           "osqp_not_solved": int(sum(s != "solved" for s in status)),
           "osqp_max_bound_violation": float(max(0.0, -th_osqp.min(), (th_osqp.sum(axis=1) - T).max()))}
    for solver in solvers:
        reps = repeats if solver == "active-set" else 1  # projected gradient takes ~15 s a run
        tb, tb_range, (_, sol, Q, c, tg) = _median_of([batched(X, ys, V, eps, T, tol, solver) for _ in range(reps)])
        prob = Problem(Q, c, np.full(len(V), T))
        f_o = prob.objective(np.maximum(th_osqp, 0.0))  # OSQP's small bound violations clipped first
        gap = (f_o - sol.objective) / np.maximum(np.abs(sol.objective), 1e-12)
        out[solver] = {"seconds": round(tb, 3), "seconds_range": tb_range, "gram_seconds": round(tg, 3),
                       "speedup": round(to / tb, 2),
                       "speedup_over_osqp_on_batched_systems": round(to_b / tb, 2),
                       "phases_per_second": round(len(V) / tb), "found": int(sol.found.sum()),
                       "max_objective_gap": float(np.max(np.abs(gap))), "median_objective_gap": float(np.median(gap)),
                       "iterations_median_max": [int(np.median(sol.iterations)), int(sol.iterations.max())]}
    out["machine_before"], out["machine_after"] = before, snapshot()
    return out


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
