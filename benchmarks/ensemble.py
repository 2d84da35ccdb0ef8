"""Ensemble benchmarks, printed as JSON (measured ratios, never timed assertions).

* full_ensemble_seconds: all 15 models, 10-fold CV, forest of 128 trees, on
  the HALWPE-shaped 364 x 577 problem, cold (a fresh interpreter, imports
  included), with the models spread over the machine's cores; the median of
  ``--cold-repeats`` runs (default 3), all runs listed.
* stepwise_speedup: the 8 stepwise variants against a straightforward
  implementation that refits statsmodels OLS / scipy NNLS for every candidate
  at every step, in the same run, on the same folds and the same number of
  steps (the straightforward forward-AIC run would take hours to saturate, so
  both sides stop after ``--steps`` steps; their choices are checked equal).
* shipped_ensemble_seconds: the same for the shipped GTX-680 -> Tesla-P100 data.
* forest_vs_sklearn: the project's compiled forest against scikit-learn's
  RandomForestRegressor with the same settings (128 trees, mtry = p/3, R's
  nodesize), on the same 10 folds of the 364 x 577 problem and of the shipped
  GTX-680 -> GTX-980 and -> Tesla-P100 data: time ratio and both E_out.

* before_after (``--before REV``, default :data:`BEFORE`): the same cold full-ensemble run with the code of
  an earlier commit (a temporary git worktree, its compiled kernels warmed first), interleaved with this
  checkout's runs so that drift of a shared machine hits both sides alike: medians, all runs, the ratio,
  and whether the two leaderboards are identical (every model's selected features equal and E_out within
  1e-9 relative). ``--before none`` skips it.

Usage: python benchmarks/ensemble.py [--json] [--folds-compared 2] [--steps 20] [--before REV|none]
"""

from __future__ import annotations

import argparse
import json
import warnings
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testkit import halwpe_shaped  # noqa: E402
from modeling.crossgen.linear import independent_subset, information_criterion, standardize  # noqa: E402
from modeling.crossgen.stepwise import SELECTORS  # noqa: E402

COLD = """
import time, json, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from testkit import halwpe_shaped
from modeling.crossgen.ensemble import run_ensemble
X, y, g = halwpe_shaped.make()
t1 = time.perf_counter()
r = run_ensemble(X, y, models="rastsim", folds=10, seed=0, n_jobs={jobs})
t2 = time.perf_counter()
print(json.dumps({{"total": t2 - t0, "ensemble": t2 - t1,
                  "models": {{m.model: round(m.fit_seconds, 3) for m in r.models}},
                  "best": r.best().model, "best_e_out": r.best().e_out,
                  "leaderboard": {{m.model: [m.e_out, sorted(m.selected)] for m in r.models}}}}))
"""

#: The last commit before the ensemble's speed work of issue 17 (compiled forest partition, shared fold
#: factorizations, kept NNLS bounds): the "before" side of ``before_after``.
BEFORE = "ea2ebb0"

COLD_SHIPPED = """
import time, json, sys
t0 = time.perf_counter()
sys.path.insert(0, {root!r})
from modeling import shipped
from modeling.crossgen.ensemble import run_ensemble
s = shipped.scenario("GTX-680", "Tesla-P100", "duration")
r = run_ensemble(s["X"], s["y"], models="rastsim", folds=10, seed=0, host_index=s["host_index"],
                 drop_constant=True, n_jobs={jobs})
print(json.dumps({{"total": time.perf_counter() - t0}}))
"""


def _crit(rss, n, k, tss, kind):
    return information_criterion(rss, n, k + 1, tss, kind)


def naive_select(Xs, y, fit_kind, direction, criterion, max_steps):
    """Refit every candidate at every step (statsmodels OLS or scipy NNLS)."""
    import statsmodels.api as sm
    from scipy.optimize import nnls

    n, p = Xs.shape
    tss = float(y @ y)

    def score(cols):
        if fit_kind == "ols":
            if not cols:
                return _crit(tss, n, 0, tss, criterion), list(cols)
            res = sm.OLS(y, sm.add_constant(Xs[:, cols], has_constant="add")).fit()
            return (res.aic if criterion == "aic" else res.bic), list(cols)
        if not cols:
            return (tss, _crit(tss, n, 0, tss, criterion)), []
        x, rn = nnls(Xs[:, cols], y, maxiter=50 * len(cols) + 100)
        active = [c for c, v in zip(cols, x) if v > 0]
        return (rn**2, _crit(rn**2, n, len(active), tss, criterion)), active

    def pick(cands):
        """Best candidate: lowest criterion (OLS) or lowest RSS (NNLS); its criterion and set."""
        if fit_kind == "ols":
            best = min(cands, key=lambda t: t[0])
            return best[0], best[1]
        best = min(cands, key=lambda t: t[0][0])
        return best[0][1], best[1]

    if direction == "forward":
        S = []
        cur = score(S)[0]
        cur_c = cur if fit_kind == "ols" else cur[1]
        for _ in range(max_steps):
            new_c, new_S = pick([score(S + [j]) for j in range(p) if j not in S])
            if not new_c < cur_c:
                break
            S, cur_c = new_S, new_c
        return sorted(S)
    if fit_kind == "ols":
        S = list(independent_subset(Xs))
        cur_c = score(S)[0]
    else:
        x, rn = nnls(Xs, y, maxiter=50 * p + 100)
        S = list(np.flatnonzero(x > 0))
        cur_c = _crit(rn**2, n, len(S), tss, criterion)
    for _ in range(max_steps):
        if not S:
            break
        new_c, new_S = pick([score([c for c in S if c != j]) for j in S])
        if not new_c < cur_c:
            break
        S, cur_c = new_S, new_c
    return sorted(S)


def _rss(std, cols):
    cols = list(cols)
    if not cols:
        return float(std.y @ std.y)
    A = std.X[:, cols]
    r = std.y - A @ np.linalg.lstsq(A, std.y, rcond=None)[0]
    return float(r @ r)


def stepwise_speedup(X, y, folds_compared, steps, seed=0):
    from modeling.crossgen.ensemble import make_splits

    splits = make_splits(len(y), "kfold", 10, None, seed)[:folds_compared]
    per_variant = {}
    fast_total = naive_total = 0.0
    for fk, d, c in [(a, b, e) for a in ("ols", "nnls") for b in ("forward", "backward") for e in ("aic", "bic")]:
        tf = tn = 0.0
        agree = same_fit = True
        for train, _ in splits:
            std = standardize(X[train], y[train])
            t0 = time.perf_counter()
            sel = SELECTORS[(fk, d)](std, c, max_steps=steps)
            tf += time.perf_counter() - t0
            t0 = time.perf_counter()
            ref = naive_select(std.X, std.y, fk, d, c, steps)
            tn += time.perf_counter() - t0
            agree &= sorted(sel.selected.tolist()) == [int(v) for v in ref]
            # exact ties (derived counters equal to sums of others) may be broken either way:
            # compare the fits too
            same_fit &= bool(np.isclose(_rss(std, sel.selected), _rss(std, ref), rtol=1e-9))
        name = f"{fk.upper()}/{d.title()}/{c.upper()}"
        per_variant[name] = {"fast_s": round(tf, 4), "naive_s": round(tn, 3),
                             "ratio": round(tn / tf, 1), "same_selection": bool(agree),
                             "same_rss": same_fit}
        fast_total += tf
        naive_total += tn
    return naive_total / fast_total, per_variant, fast_total, naive_total


def forest_vs_sklearn(seed=0):
    """Compiled forest vs scikit-learn's on the same folds: seconds and E_out of each."""
    from sklearn.ensemble import RandomForestRegressor

    from modeling import shipped
    from modeling.crossgen.ensemble import make_splits
    from modeling.metrics import ape
    from modeling.crossgen.estimators import ForestRegressor

    X, y, _ = halwpe_shaped.make()
    problems = {"halwpe_shaped": (X, y)}
    for target in ("GTX-980", "Tesla-P100"):
        s = shipped.scenario("GTX-680", target, "duration")
        problems[f"GTX-680->{target}"] = (s["X"], s["y"])
    ForestRegressor(2).fit(X[:20], y[:20])  # load the compiled kernels outside the timing
    out = {}
    for name, (X, y) in problems.items():
        splits = make_splits(len(y), "kfold", 10, None, seed)
        row = {}
        for label, make in (
                ("project", lambda k: ForestRegressor(128, random_state=seed + k)),
                ("sklearn", lambda k: RandomForestRegressor(
                    128, max_features=1 / 3, min_samples_split=6, random_state=seed + k, n_jobs=1))):
            pred = np.empty_like(y)
            t = time.perf_counter()
            for k, (train, test) in enumerate(splits):
                pred[test] = make(k).fit(X[train], y[train]).predict(X[test])
            row[f"{label}_seconds"] = round(time.perf_counter() - t, 2)
            row[f"{label}_e_out"] = round(float(ape(y, pred).mean()), 2)
        row["speedup"] = round(row["sklearn_seconds"] / row["project_seconds"], 2)
        out[name] = row
    return out


def cold_run(code, cwd=ROOT):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def same_leaderboard(a: dict, b: dict, rtol: float = 1e-9) -> dict:
    """Whether two leaderboards agree: the same models, selected features and E_out within ``rtol``."""
    worst = max(abs(a[m][0] - b[m][0]) / max(abs(a[m][0]), 1e-300) for m in a) if set(a) == set(b) else None
    selections = set(a) == set(b) and all(a[m][1] == b[m][1] for m in a)
    return {"identical": bool(selections and worst is not None and worst <= rtol), "same_selections": selections,
            "largest_relative_e_out_difference": worst}


def before_after(rev: str, repeats: int, jobs: int) -> tuple[list, dict]:
    """Cold full-ensemble runs of commit ``rev`` and of this checkout, interleaved (see the module notes):
    this checkout's runs, and the comparison."""
    from benchmarks.before import Before

    before = Before(rev)  # the older checkout, its kernels compiled (or loaded) first, as its ./run.sh would have
    where = before.where
    try:
        runs = {"before": [], "after": []}
        shipped = {"before": [], "after": []}
        for _ in range(repeats):
            for side, root in (("before", where), ("after", ROOT)):
                runs[side].append(cold_run(COLD.format(root=str(root), jobs=jobs), cwd=root))
                shipped[side].append(cold_run(COLD_SHIPPED.format(root=str(root), jobs=jobs), cwd=root)["total"])
    finally:
        before.close()
    med = {k: sorted(r["total"] for r in v)[len(v) // 2] for k, v in runs.items()}
    return runs["after"], {"before_commit": rev,
            "before_seconds": round(med["before"], 2), "before_runs": [round(r["total"], 2) for r in runs["before"]],
            "after_seconds": round(med["after"], 2), "after_runs": [round(r["total"], 2) for r in runs["after"]],
            "speedup": round(med["before"] / med["after"], 2),
            "shipped_before_seconds": round(sorted(shipped["before"])[repeats // 2], 2),
            "shipped_after_seconds": round(sorted(shipped["after"])[repeats // 2], 2),
            "leaderboard": same_leaderboard(runs["before"][0]["leaderboard"], runs["after"][0]["leaderboard"])}


def main(argv=None):
    warnings.simplefilter("ignore")  # statsmodels warns on the collinear candidates it refits
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--folds-compared", type=int, default=2)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--stepwise-only", action="store_true")
    ap.add_argument("--ensemble-only", action="store_true", help="only the cold full-ensemble runs")
    ap.add_argument("--cold-repeats", type=int, default=3, help="cold full-ensemble runs (median reported)")
    ap.add_argument("--before", default=BEFORE, help="commit for the before/after comparison, or 'none'")
    a = ap.parse_args(argv)
    if a.stepwise_only:
        X, y, _ = halwpe_shaped.make()
        ratio, per, tf, tn = stepwise_speedup(X, y, a.folds_compared, a.steps)
        print(json.dumps({"stepwise_speedup": round(ratio, 1), "stepwise_per_variant": per}, indent=2))
        return
    from benchmarks.machine import snapshot

    before = snapshot()
    X, y, _ = halwpe_shaped.make()
    # the machine's speed drifts between runs (shared host): median of several cold runs
    if a.before == "none":
        compared = None
        colds = [cold_run(COLD.format(root=str(ROOT), jobs=a.jobs)) for _ in range(a.cold_repeats)]
    else:  # this checkout's runs of the comparison are the cold runs (not run a second time)
        colds, compared = before_after(a.before, a.cold_repeats, a.jobs)
    cold = sorted(colds, key=lambda c: c["total"])[len(colds) // 2]
    cold_serial = cold_run(COLD.format(root=str(ROOT), jobs=1))
    if a.ensemble_only:
        print(json.dumps({"full_ensemble_seconds": round(cold["total"], 2),
                          "before_after": compared,
                          "full_ensemble_seconds_runs": [round(c["total"], 2) for c in colds],
                          "full_ensemble_seconds_one_process": round(cold_serial["total"], 2),
                          "model_seconds_one_process": cold_serial["models"],
                          "machine_before": before, "machine_after": snapshot()}, indent=2))
        return
    shipped = cold_run(COLD_SHIPPED.format(root=str(ROOT), jobs=a.jobs))
    forest = forest_vs_sklearn()
    ratio, per, tf, tn = stepwise_speedup(X, y, a.folds_compared, a.steps)
    out = {
        "problem": {"workloads": int(X.shape[0]), "features": int(X.shape[1]), "folds": 10,
                    "models": 15, "forest_trees": 128, "jobs": a.jobs, "cpu_count": os.cpu_count()},
        "full_ensemble_seconds": round(cold["total"], 2),
        "full_ensemble_seconds_runs": [round(c["total"], 2) for c in colds],
        "full_ensemble_seconds_one_process": round(cold_serial["total"], 2),
        "model_seconds_one_process": cold_serial["models"],
        "before_after": compared,
        "shipped_ensemble_seconds": round(shipped["total"], 2),
        "forest_vs_sklearn": forest,
        # the stable-across-machines figure: the whole ensemble against scikit-learn's forest alone
        "ensemble_over_sklearn_forest": round(cold["total"] / forest["halwpe_shaped"]["sklearn_seconds"], 3),
        "stepwise_speedup": round(ratio, 1),
        "stepwise_compared": {"folds": a.folds_compared, "max_steps": a.steps,
                              "fast_seconds": round(tf, 3), "naive_seconds": round(tn, 2)},
        "stepwise_per_variant": per,
        "machine_before": before,
        "machine_after": snapshot(),
    }
    print(json.dumps(out, indent=2 if a.json else None))


if __name__ == "__main__":
    main()
