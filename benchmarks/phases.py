"""Batched SCQP (LACross eq. 4.1) against one-phase-at-a-time OSQP, printed as JSON (a ratio, never a test).

Problems: the shipped cBench phases. Training = the 1000 -> 2000 MHz phases (target cycles); test phases =
the host features of every shipped phase of every frequency pair at 2e9 and 1.8e9 instructions (the first
``--phases``, default 10,000); features = standardized per-instruction rates + host time and power + bias
(d = 14); neighbourhoods at the 25th percentile of training distances, T = the global NNLS l1 norm.

Both sides include the neighbourhood and Gram computation. The batched side forms every phase's system at
once and runs :func:`modeling.phases.scqp.solve` (``apg``, accelerated projected gradient); OSQP forms
one phase's system and solves it, reusing one
solver object (warm-started from the previous phase's solution, matrices updated in place), with
eps_abs = eps_rel = ``--tol``. Reported per batched solver: ``speedup`` (OSQP seconds / batched seconds),
``phases_per_second``, the Gram time, the largest relative objective gap to OSQP (positive = OSQP worse);
and how many OSQP solves did not report "solved".

    .venv/bin/python benchmarks/phases.py [--phases 10000] [--tol 1e-6] [--json]
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

    SOLVERS = {"apg": solve}
    t0 = time.perf_counter()
    k_min = max(2 * X.shape[1], 10)
    Q, c, _ = neighbourhood_problems(X, ys, V, eps, k_min)
    tg = time.perf_counter() - t0
    sol = SOLVERS[solver](Problem(Q, c, np.full(len(V), T)), tol=tol)
    return time.perf_counter() - t0, sol, Q, c, tg


def one_at_a_time(X, ys, V, eps, T, tol):
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
    solver, thetas, status = None, [], []
    for i in range(len(V)):
        Q, c, _ = neighbourhood_problems(X, ys, V[i:i + 1], eps, k_min)
        Px = Q[0][rows, cols]
        if solver is None:
            P = sparse.csc_matrix((Px, rows, indptr), shape=(d, d))
            solver = osqp.OSQP()
            solver.setup(P=P, q=-c[0], A=A, l=lo, u=up, eps_abs=tol, eps_rel=tol, max_iter=10000, polish=True,
                         verbose=False, warm_starting=True)
        else:
            solver.update(q=-c[0], Px=Px)
        r = solver.solve()
        thetas.append(np.asarray(r.x, float))
        status.append(str(r.info.status))
    return time.perf_counter() - t0, np.array(thetas), status


def run(n_phases: int = 10000, tol: float = 1e-6, solvers=("apg",)) -> dict:
    from modeling.phases.scqp import Problem

    X, ys, V, eps, T = problems(n_phases)
    to, th_osqp, status = one_at_a_time(X, ys, V, eps, T, tol)
    out = {"phases": int(len(V)), "d": int(X.shape[1]), "training_phases": int(len(X)), "tol": tol,
           "osqp_seconds": round(to, 3), "osqp_phases_per_second": round(len(V) / to),
           "osqp_not_solved": int(sum(s != "solved" for s in status)),
           "osqp_max_bound_violation": float(max(0.0, -th_osqp.min(), (th_osqp.sum(axis=1) - T).max()))}
    for solver in solvers:
        tb, sol, Q, c, tg = batched(X, ys, V, eps, T, tol, solver)
        prob = Problem(Q, c, np.full(len(V), T))
        f_o = prob.objective(np.maximum(th_osqp, 0.0))  # OSQP's small bound violations clipped first
        gap = (f_o - sol.objective) / np.maximum(np.abs(sol.objective), 1e-12)
        out[solver] = {"seconds": round(tb, 3), "gram_seconds": round(tg, 3), "speedup": round(to / tb, 2),
                       "phases_per_second": round(len(V) / tb), "found": int(sol.found.sum()),
                       "max_objective_gap": float(np.max(np.abs(gap))), "median_objective_gap": float(np.median(gap)),
                       "iterations_median_max": [int(np.median(sol.iterations)), int(sol.iterations.max())]}
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--phases", type=int, default=10000)
    ap.add_argument("--tol", type=float, default=1e-6)
    ap.add_argument("--solvers", default="apg", help="batched solvers to time (apg)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    print(json.dumps(run(a.phases, a.tol, tuple(a.solvers.split(","))), indent=2))


if __name__ == "__main__":
    main()
