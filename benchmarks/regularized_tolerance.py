"""The four regularized models against a truly converged reference, and what converging costs (printed as
JSON; measured, never a timed assertion).

The leaderboard's Lasso, Lasso/NNLS, Elastic Net and Elastic Net/NNLS choose their penalty by an inner
5-fold CV over 30 penalties. Three settings run the same models on the same 10 outer folds:

* ``today``: scikit-learn's ``LassoCV`` / ``ElasticNetCV`` at the leaderboard's former setting
  (``tol=1e-3``, ``max_iter=5000``);
* ``converged``: the leaderboard's solver now (``modeling.crossgen.regularized``: every penalty of every
  inner path and the final fit solved to a duality gap <= 1e-7 ||y||^2 / n);
* ``reference``: scikit-learn's solver at ``tol=1e-7`` with the Gram matrix and ``max_iter=1e6``
  (scikit-learn stops only at a gap <= tol ||y||^2 / n or at max_iter; ``converged`` says no fit reached
  max_iter). ``--reference cd`` uses this project's solver at ``tol=1e-10`` instead (faster, not independent).

On three tables: the HALWPE-shaped 364 x 577 problem (``benchmarks/halwpe_shaped.make``), the shipped
GTX-680 -> Tesla-P100 duration table with the log transform, and the planted 1,456 x 577 problem
(``make(n=1456)``). Printed per table and setting: seconds (one process, ``n_jobs=1``), each model's E_out,
its relative distance from the reference's, the largest final-fit duality gap and whether every fit met its
tolerance; per table, the time ratio converged / today, and whether a rerun of ``converged`` gives the same
E_out (to 1e-9 relative). The times are of a shared machine: compare the ratios, measured in the same run.

    .venv/bin/python benchmarks/regularized_tolerance.py --json
    .venv/bin/python benchmarks/regularized_tolerance.py --tables 364x577 p100-log --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = {"Lasso": ("lasso", False), "Lasso/NNLS": ("lasso", True), "ElasticNet": ("elasticnet", False),
          "ElasticNet/NNLS": ("elasticnet", True)}
SETTINGS = {
    "today": dict(solver="sklearn", tol=1e-3, max_iter=5000, precompute="auto"),
    "converged": dict(solver="cd", tol=1e-7),
    "reference": dict(solver="sklearn", tol=1e-7, max_iter=1_000_000, precompute=True),
}
CD_REFERENCE = dict(solver="cd", tol=1e-10)
TABLES = ("364x577", "p100-log", "1456x577")


def table(name: str) -> dict:
    """X, y and the run_ensemble options of one benchmark table."""
    from benchmarks.halwpe_shaped import make

    if name == "p100-log":
        from modeling import shipped

        s = shipped.scenario("GTX-680", "Tesla-P100", "duration")
        return dict(X=s["X"], y=s["y"], options=dict(transform="log", host_index=s["host_index"],
                                                     drop_constant=True))
    n, p = (int(v) for v in name.split("x"))
    X, y, _ = make(n=n, p=p)
    return dict(X=X, y=y, options={})


def run(tab: dict, settings: dict) -> tuple[float, dict]:
    """The four models' 10-fold CV with ``settings``: (seconds, {model: e_out, alpha, gap, converged})."""
    from modeling.crossgen import ensemble
    from modeling.crossgen.estimators import RegularizedRegressor

    fitted: dict[str, list] = {name: [] for name in MODELS}

    def factory(name, kind, positive):
        def fit(self, X, y):  # keeps the fitted models (gaps, convergence) to read after the run
            RegularizedRegressor.fit(self, X, y)
            fitted[name].append(self)
            return self
        cls = type("Recorded", (RegularizedRegressor,), {"fit": fit})  # survives clone() in the transforms
        return lambda seed: cls(kind, positive, random_state=seed, **settings)

    saved = {n: ensemble.MODEL_FACTORIES[n] for n in MODELS}
    ensemble.MODEL_FACTORIES.update({n: factory(n, k, pos) for n, (k, pos) in MODELS.items()})
    try:
        t = time.perf_counter()
        res = ensemble.run_ensemble(tab["X"], tab["y"], models=list(MODELS), folds=10, seed=0, n_jobs=1,
                                    **tab["options"])
        seconds = time.perf_counter() - t
    finally:
        ensemble.MODEL_FACTORIES.update(saved)
    out = {}
    for m in res.models:
        ests = fitted[m.model]
        out[m.model] = {"e_out": m.e_out, "alpha_all_rows": ests[-1].alpha_,
                        "max_gap": max(e.dual_gap_ for e in ests), "converged": all(e.converged_ for e in ests)}
    return seconds, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    ap.add_argument("--reference", choices=("sklearn", "cd"), default="sklearn")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from benchmarks.halwpe_shaped import make
    from benchmarks.machine import snapshot
    from modeling.crossgen.regularized import warm_up

    before = snapshot()
    warm_up()
    X, y, _ = make()
    run(dict(X=X[:60], y=y[:60], options={}), SETTINGS["today"])  # imports outside every timing
    settings = dict(SETTINGS)
    if a.reference == "cd":
        settings["reference"] = CD_REFERENCE
    out = {"settings": {k: {kk: str(vv) for kk, vv in v.items()} for k, v in settings.items()},
           "gap": "duality gap relative to ||y||^2 / n of the fit's own (standardized) problem", "tables": {}}
    for name in a.tables:
        tab = table(name)
        rows = {k: run(tab, v) for k, v in settings.items()}
        rerun = run(tab, settings["converged"])[1]
        ref = rows["reference"][1]
        res = {}
        for k, (sec, models) in rows.items():
            res[k] = {"seconds": round(sec, 2),
                      "e_out": {m: round(v["e_out"], 4) for m, v in models.items()},
                      "relative_to_reference": {m: round(abs(v["e_out"] - ref[m]["e_out"]) / ref[m]["e_out"], 5)
                                                for m, v in models.items()},
                      "same_alpha_as_reference": {m: bool(abs(v["alpha_all_rows"] - ref[m]["alpha_all_rows"])
                                                          <= 1e-9 * ref[m]["alpha_all_rows"])
                                                  for m, v in models.items()},
                      "max_final_gap": {m: float(f"{v['max_gap']:.2e}") for m, v in models.items()},
                      "all_fits_met_tol": all(v["converged"] for v in models.values()),
                      "within_1_percent": all(abs(v["e_out"] - ref[m]["e_out"]) <= 0.01 * ref[m]["e_out"]
                                              for m, v in models.items())}
        conv = rows["converged"][1]
        res["time_ratio_converged_over_today"] = round(rows["converged"][0] / rows["today"][0], 2)
        res["rerun_same_e_out"] = all(abs(rerun[m]["e_out"] - conv[m]["e_out"]) <= 1e-9 * conv[m]["e_out"]
                                      for m in conv)
        out["tables"][name] = res
        print(f"[regularized] {name}: ratio {res['time_ratio_converged_over_today']}", file=sys.stderr, flush=True)
    out.update(machine_before=before, machine_after=snapshot())
    print(json.dumps(out, indent=2) if a.json else out)


if __name__ == "__main__":
    main()
