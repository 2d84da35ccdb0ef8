"""How long a new-applications prediction (``predict --model recommended --situation new-applications``) takes
to fit, this code against an earlier commit's in one run, and whether both give the same numbers.

    .venv/bin/python benchmarks/new_applications_speed.py --before REV [--sizes 6000x15] [--workers 2] [--json]

For every size (rows x counters of the planted CPU-shaped table, ``testkit/cpu_shaped.py``: 22 applications,
run times over six orders of magnitude) the fit (:func:`modeling.crossgen.predict.fit_predictor`, every HALWPE
model x transform and the baseline, 10-fold over applications outside, leave-one-application-out inside) runs
in a fresh process for each side, the earlier commit's first (a temporary git worktree, its compiled kernels
warmed first, ``benchmarks/before.py``), then this code's, ``--repeats`` times interleaved. Reported per side:
wall seconds, CPU seconds of the process and its worker processes (the machine may be shared: CPU seconds are
distorted less by other load than wall seconds), the 1-minute load average before and after, what was chosen
(on all workloads and in each outer fold), the cross-validated errors, and a digest of every held-out error
and of the predictions of 500 new workloads with their intervals: ``same_results`` is true when both sides'
digests and choices are equal.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def one(code: str, n: int, p: int, workers: int) -> dict:
    """One fit with the code in ``code`` (a checkout of this repository), in this process."""
    sys.path.insert(0, code)
    import hashlib

    from modeling.crossgen.forest_trees import warm_up
    from modeling.crossgen.predict import fit_predictor
    from testkit.cpu_shaped import make

    warm_up()
    scen = make(n, p=p)
    new = make(500, p=p, seed=7)
    new = {"X": new["X"], "feature_names": new["feature_names"], "workload_ids": new["workload_ids"],
           "groups": None}
    load0, t0, c0 = os.getloadavg()[0], time.perf_counter(), _cpu()
    pred = fit_predictor(scen, situation="new-applications", n_jobs=workers)
    wall, cpu, load1 = time.perf_counter() - t0, _cpu() - c0, os.getloadavg()[0]
    out = pred.predict(new)
    digest = hashlib.sha256(json.dumps([pred.abs_r.tolist(), out.predicted, out.lower, out.upper,
                                        pred.cv_error, pred.base_cv]).encode()).hexdigest()[:16]
    sel = pred.selection or {}
    return {"code": code, "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
            "load_before_after": [round(load0, 2), round(load1, 2)], "model": pred.choice.model,
            "transform": pred.choice.transform, "chosen": sel.get("chosen"),
            "chosen_in_folds": sel.get("chosen_in_folds"), "fits_choice_on_all": sel.get("fits"),
            "cv_male": pred.cv_error["male"], "cv_mean_ape": pred.cv_error["mean_ape"],
            "baseline_used": None if pred.verdict is None else pred.verdict.baseline_used, "digest": digest}


def _side(code: Path, n: int, p: int, workers: int) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(code), "--sizes", f"{n}x{p}",
           "--workers", str(workers)]
    out = subprocess.run(cmd, cwd=code, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{code}: {out.stderr[-1500:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default=None, help="an earlier commit to run beside")
    ap.add_argument("--sizes", nargs="+", default=["6000x15"], help="rows x counters")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)  # a single fit with the code in this folder
    a = ap.parse_args(argv)
    shapes = [tuple(int(v) for v in s.lower().split("x")) for s in a.sizes]
    if a.one:
        print(json.dumps(one(a.one, *shapes[0], a.workers)))
        return 0
    sys.path.insert(0, str(ROOT))
    from benchmarks.before import Before

    before = Before(a.before) if a.before else None
    result = {"workers": a.workers, "cpu_count": os.cpu_count(), "before": a.before, "sizes": {}}
    try:
        for n, p in shapes:
            runs = {"before": [], "after": []}
            for _ in range(a.repeats):
                if before is not None:
                    runs["before"].append(_side(before.where, n, p, a.workers))
                    print(f"[new applications] {n}x{p} before: {runs['before'][-1]['seconds']} s", file=sys.stderr)
                runs["after"].append(_side(ROOT, n, p, a.workers))
                print(f"[new applications] {n}x{p} after: {runs['after'][-1]['seconds']} s", file=sys.stderr)
            size = {"runs": runs}
            if before is not None:
                keys = ("model", "transform", "chosen", "chosen_in_folds", "cv_male", "cv_mean_ape", "digest")
                size["same_results"] = all({k: r[k] for k in keys} == {k: runs["after"][0][k] for k in keys}
                                           for r in runs["before"] + runs["after"])
                b = min(r["seconds"] for r in runs["before"])
                f = min(r["seconds"] for r in runs["after"])
                bc = min(r["cpu_seconds"] for r in runs["before"])
                fc = min(r["cpu_seconds"] for r in runs["after"])
                size["ratio_before_over_after"] = {"wall": round(b / f, 2), "cpu": round(bc / fc, 2)}
            result["sizes"][f"{n}x{p}"] = size
    finally:
        if before is not None:
            before.close()
    if a.json:
        print(json.dumps(result, indent=1))
        return 0
    for name, size in result["sizes"].items():
        for side, rs in size["runs"].items():
            for r in rs:
                print(f"{name} {side}: {r['seconds']} s wall, {r['cpu_seconds']} CPU-s, load "
                      f"{r['load_before_after'][0]}-{r['load_before_after'][1]}; {r['chosen']} -> {r['model']} "
                      f"({r['transform']}), CV male {r['cv_male']:.5f}, mean APE {r['cv_mean_ape']:.3f} %, "
                      f"digest {r['digest']}")
        if "same_results" in size:
            print(f"{name}: same results {size['same_results']}; before / after {size['ratio_before_over_after']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
