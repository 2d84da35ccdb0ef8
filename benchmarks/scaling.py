"""How the ensemble's cost grows with the table, and what W workers would make of it (printed as JSON).

For each size (default: n = 364, 1,456, 5,824 workloads at p = 577 counters, and p = 100 at n = 5,824) the
whole ensemble (all 15 models, the RastSim preset, 10-fold CV, as benchmarks/ensemble.py) runs once on the
HALWPE-shaped generator (``testkit/halwpe_shaped.py``: correlated counters, exact derived ones, a
positive target), every (model, fold) fit timed on its own in this one process. Printed:

* ``seconds_by_model``: per size, each model's seconds (all its fits summed) and the total;
* ``growth``: per model, the exponent b of seconds ~ n^b (least squares over the n sizes at p = 577) and of
  seconds ~ p^b (the two p sizes at the largest n): how its cost grows with the work;
* ``schedule`` (``--schedule W [W ...]``): the measured fit durations replayed on W simulated workers, each
  taking the next fit of the plan's order when it is free (as the Celery fan-out hands them out,
  ``dashboard.jobs.fanout``): the expected wall time per size, beside one process's total. The replay
  counts compute only (not the transfer of the table to each worker, nor Redis round trips).

* ``fanout`` (``--fanout W [W ...]``): per size, the whole ensemble run again on W real forked worker
  processes (``modeling.parallel``, each fit one task, as a dashboard job on one server spreads them): its
  wall seconds, its speed-up over the one-process total, how far every model's out-of-fold predictions and
  E_out are from the one-process run's, and the load average before and after. On a machine with fewer
  cores than W the workers share them.

* ``before`` (``--before REV``): the same sizes run by the code of commit ``REV`` (a temporary git worktree,
  its kernels warmed first; its own ``benchmarks/scaling.py``, one size at a time, each size run before then
  now, so that slow drift of a shared machine hits both sides alike): its seconds per size and model,
  and the ratio before / after.

    .venv/bin/python benchmarks/scaling.py --json
    .venv/bin/python benchmarks/scaling.py --sizes 364x577 1456x577 --schedule 1 2 4 8
    .venv/bin/python benchmarks/scaling.py --sizes 5824x577 --before 94b060e --json

* ``forest`` (``--forest REV``): the forest alone, instead of the ensemble: 128 trees (R's defaults, mtry =
  p / 3, nodesize 5) fitted on one training fold of 1,456 x 577 (nine tenths of the rows) and ``--forest-trees``
  trees (default 32, to keep the run short) on the whole 5,824 x 577 table, by the forest of commit ``REV``
  (its ``forest_trees.py`` loaded beside this one), by this one, and by scikit-learn's
  ``RandomForestRegressor`` with the same settings (``max_features=1/3``, ``min_samples_split=6``, one job).
  The three take turns (``--forest-reps`` rounds, CPU seconds of this process summed), and REV's trees must
  equal this one's node for node (the run stops otherwise).

    .venv/bin/python benchmarks/scaling.py --forest main --json

The prediction procedure (``--predict``): ``predict --model recommended`` (:func:`modeling.crossgen.predict.
fit_predictor`: the nested cross-validation, models x transforms and the baseline, raced) on the planted
CPU-table shape (``testkit/cpu_shaped.py``: 22 applications, the host's run time mapped, run times over six
orders of magnitude) for every size of ``--predict-sizes`` (rows x counters, default 1,500 / 3,000 / 6,000 x 15
and 6,000 x 30) and situation (new inputs, new applications), on ``--workers`` real forked worker processes
(``modeling.parallel``: each outer fold's choice is one task). Printed:

* ``predict.seconds``: wall seconds per size, situation and worker count, with the fits the races made and the
  fits an exhaustive search makes;
* ``predict.growth_exponent``: b of seconds ~ n^b (over the sizes at the smallest p) and ~ p^b (the p sizes at
  the largest n), per situation, at the first worker count;
* with ``--searches auto race exhaustive`` each search in turn (``modeling.crossgen.predict.SEARCHES``; keys
  ``W=2`` for the first, ``W=2 race`` ... for the others), and whether each chose and scored as the first;
* ``predict.one_choice`` (``--predict-before``): one choice on all rows of the largest size (an inner
  cross-validation over every candidate, one process), by racing and by today's exhaustive search
  (``modeling.crossgen.recommend.score_candidates``, the fits on all workloads included), and their ratio;
* the load average before and after, since the machine may be shared.

    .venv/bin/python benchmarks/scaling.py --predict --workers 1 2 4 --predict-before --json
"""

from __future__ import annotations

import argparse
import heapq
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.before import Before  # noqa: E402

DEFAULT_SIZES = ("364x577", "1456x577", "5824x577", "5824x100")
PREDICT_SIZES = ("1500x15", "3000x15", "6000x15", "6000x30")


def timed_fits(n: int, p: int, folds: int = 10, seed: int = 0):
    """Run the ensemble on the n x p problem, one fit at a time; returns ``(model, fold, seconds)`` per fit in
    the plan's order (fold None: the fit on every workload), and the ensemble's result."""
    from testkit.halwpe_shaped import make
    from modeling.crossgen.ensemble import run_ensemble

    X, y, _ = make(n=n, p=p)
    durations: list[tuple[str, object, float]] = []

    def one_at_a_time(tasks, fit):
        for model, fold in tasks:
            t = time.perf_counter()
            out = fit(model, fold)
            durations.append((model, fold, time.perf_counter() - t))
            yield model, fold, out

    res = run_ensemble(X, y, models="rastsim", folds=folds, seed=seed, fit_runner=one_at_a_time)
    return durations, res


def fanout_wall(n: int, p: int, workers: int, folds: int = 10, seed: int = 0):
    """Wall seconds of the whole ensemble on ``workers`` real forked worker processes (``modeling.parallel``,
    each (model, fold) fit one task, as a dashboard job spreads them), and its result."""
    import os

    from testkit.halwpe_shaped import make
    from modeling.crossgen.ensemble import run_ensemble

    X, y, _ = make(n=n, p=p)
    load0 = os.getloadavg()[0]
    t = time.perf_counter()
    res = run_ensemble(X, y, models="rastsim", folds=folds, seed=seed, n_jobs=workers)
    return time.perf_counter() - t, res, (round(load0, 2), round(os.getloadavg()[0], 2))


def _forest_of(rev: str):
    """The ``forest_trees`` module of commit ``rev``, loaded from a temporary folder (its own kernel cache)."""
    import importlib.util
    import subprocess
    import tempfile

    src = subprocess.run(["git", "show", f"{rev}:modeling/crossgen/forest_trees.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp(prefix="perfcast-forest-")) / "forest_before.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location("forest_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def forest_speed(rev: str, big_trees: int = 32, reps: int = 2) -> dict:
    """CPU seconds of REV's forest, this one and scikit-learn's on the two tables; REV's trees must be ours."""
    from sklearn.ensemble import RandomForestRegressor

    from testkit.halwpe_shaped import make
    from modeling.crossgen import forest_trees

    before = _forest_of(rev)
    before.warm_up()
    forest_trees.warm_up()
    out = {"before": rev, "cpu_seconds": {}, "ratio": {}, "same_trees": {}}
    for n, trees in ((1456, 128), (5824, big_trees)):
        X, y, _ = make(n=n, p=577)
        if n == 1456:
            X, y = X[: n - n // 10], y[: n - n // 10]  # one training fold of ten
        name = f"{X.shape[0]}x{X.shape[1]}, {trees} trees"
        mtry = X.shape[1] // 3
        secs = {"before": 0.0, "now": 0.0, "scikit-learn": 0.0}
        same = True
        for rep in range(reps):
            t = time.process_time()
            old = before.TreeArrays(X, y, trees, mtry, 5, True, rep)
            secs["before"] += time.process_time() - t
            t = time.process_time()
            new = forest_trees.TreeArrays(X, y, trees, mtry, 5, True, rep)
            secs["now"] += time.process_time() - t
            t = time.process_time()
            RandomForestRegressor(trees, max_features=1 / 3, min_samples_split=6, n_jobs=1,
                                  random_state=rep).fit(X, y)
            secs["scikit-learn"] += time.process_time() - t
            same = same and all(np.array_equal(getattr(old, k), getattr(new, k)) for k in
                                ("node_count", "feature", "threshold", "left", "right", "value", "decrease"))
            print(f"[forest] {name} round {rep + 1}: {secs}", file=sys.stderr, flush=True)
        if not same:
            raise SystemExit(f"{name}: the trees differ from {rev}'s")
        out["cpu_seconds"][name] = {k: round(v, 2) for k, v in secs.items()}
        out["ratio"][name] = {"before_over_now": round(secs["before"] / secs["now"], 2),
                              "scikit_learn_over_now": round(secs["scikit-learn"] / secs["now"], 2)}
        out["same_trees"][name] = same
    return out


def replay(durations: list[float], workers: int) -> float:
    """Wall time of running ``durations`` in order on ``workers`` workers, each taking the next one when free."""
    free = [0.0] * workers
    heapq.heapify(free)
    end = 0.0
    for d in durations:
        start = heapq.heappop(free)
        heapq.heappush(free, start + d)
        end = max(end, start + d)
    return end


def exponent(sizes: list[float], seconds: list[float]) -> float | None:
    """b of seconds ~ size^b, by least squares on the logs (None with fewer than two sizes)."""
    if len(sizes) < 2 or min(seconds) <= 0:
        return None
    return float(np.polyfit(np.log(sizes), np.log(seconds), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", nargs="+", default=list(DEFAULT_SIZES), help="n x p, e.g. 364x577")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--schedule", nargs="*", type=int, default=[1, 2, 4, 8], help="simulated worker counts")
    ap.add_argument("--fanout", nargs="*", type=int, default=[],
                    help="also run the whole ensemble on this many real worker processes, per size")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--before", default=None, help="an earlier commit to run beside, size by size")
    ap.add_argument("--forest", default=None, help="time the forest alone against this commit's and scikit-learn's")
    ap.add_argument("--forest-trees", type=int, default=32, help="trees on the 5,824-row table (--forest)")
    ap.add_argument("--forest-reps", type=int, default=2)
    ap.add_argument("--predict", action="store_true", help="time the prediction procedure instead")
    ap.add_argument("--predict-sizes", nargs="+", default=list(PREDICT_SIZES), help="rows x counters")
    ap.add_argument("--situations", nargs="+", default=["new-inputs", "new-applications"])
    ap.add_argument("--workers", nargs="*", type=int, default=[2],
                    help="real worker processes (none: only the one-choice comparison)")
    ap.add_argument("--predict-before", action="store_true",
                    help="also time one choice on all rows, racing against the exhaustive search")
    ap.add_argument("--searches", nargs="+", default=["auto"],
                    help="how recommended searches (auto, race, bound, exhaustive), each timed in turn")
    a = ap.parse_args()
    if a.forest or a.predict:
        if a.forest:
            out = forest_speed(a.forest, a.forest_trees, a.forest_reps)
        else:
            from benchmarks.scaling_predict import run

            out = run(a)
        print(json.dumps(out, indent=2) if a.json else out)
        return
    shapes = [tuple(int(v) for v in s.lower().split("x")) for s in a.sizes]
    by_size, schedule = {}, {}
    timed_fits(80, 100, 3)  # compiled kernels loaded (or compiled) before anything is timed
    before = Before(a.before) if a.before else None
    before_by_size = {}
    try:
        for n, p in shapes:
            if before is not None:
                before_by_size[f"{n}x{p}"] = before.size(f"{n}x{p}", a.folds)
                print(f"[scaling] {n}x{p} before ({a.before}): {before_by_size[f'{n}x{p}']['total_seconds']} s",
                      file=sys.stderr, flush=True)
            _one_size(n, p, a, by_size, schedule)
    finally:
        if before is not None:
            before.close()
    _report(shapes, a, by_size, schedule, before_by_size)


def _one_size(n, p, a, by_size, schedule) -> None:
    fits, one = timed_fits(n, p, a.folds)
    per_model: dict[str, float] = {}
    for model, _, s in fits:
        per_model[model] = per_model.get(model, 0.0) + s
    name = f"{n}x{p}"
    total = sum(per_model.values())
    by_size[name] = {"total_seconds": round(total, 2), "fits": len(fits),
                     "models": {m: round(s, 3) for m, s in sorted(per_model.items(), key=lambda kv: -kv[1])}}
    order = [s for _, _, s in fits]
    schedule[name] = {f"W={w}": round(replay(order, w), 2) for w in a.schedule}
    schedule[name]["longest_fit_seconds"] = round(max(order), 2)
    print(f"[scaling] {name}: {total:.1f} s in one process", file=sys.stderr, flush=True)
    for w in a.fanout:
        wall, res, load = fanout_wall(n, p, w, a.folds)
        assert [m.model for m in res.models] == [m.model for m in one.models]
        # the workers run one BLAS thread each, so a Gram matrix may round differently (1e-9 relative seen)
        rel = max(float(np.max(np.abs(np.subtract(m.oof_prediction, o.oof_prediction))
                               / np.maximum(np.abs(o.oof_prediction), 1e-300))) for m, o in zip(res.models, one.models))
        by_size[name].setdefault("fanout", {})[f"W={w}"] = {
            "wall_seconds": round(wall, 2), "speedup_over_one_process": round(total / wall, 2),
            "max_relative_difference_of_predictions": rel,
            "max_e_out_difference_points": max(abs(m.e_out - o.e_out) for m, o in zip(res.models, one.models)),
            "load_average_before_after": load}
        print(f"[scaling] {name}: {wall:.1f} s on {w} worker processes (predictions within {rel:.1e})",
              file=sys.stderr, flush=True)


def _report(shapes, a, by_size, schedule, before_by_size) -> None:
    models = sorted({m for v in by_size.values() for m in v["models"]})
    p_max = max(p for _, p in shapes)
    n_max = max(n for n, _ in shapes)
    along_n = sorted((n, f"{n}x{p}") for n, p in shapes if p == p_max)
    along_p = sorted((p, f"{n}x{p}") for n, p in shapes if n == n_max)
    growth = {}
    for m in models + ["total"]:
        def secs(name):
            return by_size[name]["total_seconds"] if m == "total" else by_size[name]["models"].get(m, 0.0)
        growth[m] = {
            "in_n": None if len(along_n) < 2 else round(exponent([n for n, _ in along_n],
                                                                 [secs(k) for _, k in along_n]) or 0, 2),
            "in_p": None if len(along_p) < 2 else round(exponent([p for p, _ in along_p],
                                                                 [secs(k) for _, k in along_p]) or 0, 2)}
    out = {"problem": "testkit/halwpe_shaped.make(n, p): correlated counters, 60 exact derived ones",
           "ensemble": f"RastSim preset, {len(models)} models, {a.folds}-fold CV, every fit in one process, timed "
                       "alone, after a warm-up run",
           "seconds_by_size": by_size, "growth_exponent": growth,
           "schedule_wall_seconds": schedule,
           "schedule_note": "fits replayed in the plan's order on W simulated workers (compute only)"}
    if before_by_size:
        out["before"] = {"commit": a.before, "seconds_by_size": before_by_size,
                         "ratio_before_over_after": {k: round(v["total_seconds"] / by_size[k]["total_seconds"], 2)
                                                     for k, v in before_by_size.items()},
                         "model_ratio_before_over_after": {
                             k: {m: round(s / max(by_size[k]["models"].get(m, 0.0), 1e-9), 2)
                                 for m, s in v["models"].items()} for k, v in before_by_size.items()}}
    print(json.dumps(out, indent=2) if a.json else out)


if __name__ == "__main__":
    main()
