"""The four regularized models against a truly converged reference, and what converging costs (printed as
JSON; measured, never a timed assertion).

The leaderboard's Lasso, Lasso/NNLS, Elastic Net and Elastic Net/NNLS choose their penalty by an inner
5-fold CV over 30 penalties. Three settings run the same models on the same 10 outer folds:

* ``today``: the leaderboard's former fit (:class:`Today`: scikit-learn's ``LassoCV`` / ``ElasticNetCV`` at
  ``tol=1e-3``, ``max_iter=5000``, on the target in its own unit), the baseline of the time ratio;
* ``converged``: the leaderboard's solver now (``modeling.crossgen.regularized``: every penalty of every
  inner path and the final fit solved to a duality gap <= 1e-7 ||y||^2 / n);
* ``reference``: scikit-learn's solver at ``tol=1e-7`` with the Gram matrix and ``max_iter=1e6``
  (scikit-learn stops only at a gap <= tol ||y||^2 / n or at max_iter; ``converged`` says no fit reached
  max_iter). ``--reference cd`` uses this project's solver at ``tol=1e-10`` instead (faster, not independent).

The target is scaled to unit variance in ``converged`` and ``reference`` (as the leaderboard's models now do),
not in ``today``: its Elastic Nets' E_out is that of the former leaderboard (181 % on 364 x 577), so only the
two Lassos of ``today`` are comparable with the reference.

On three tables: the HALWPE-shaped 364 x 577 problem (``testkit/halwpe_shaped.make``), the shipped
GTX-680 -> Tesla-P100 duration table with the log transform, and the planted 1,456 x 577 problem
(``make(n=1456)``). Printed per table and setting: seconds and CPU seconds (one process, ``n_jobs=1``), each
model's E_out, its relative distance from the reference's, the largest final-fit duality gap and whether
every fit met its tolerance; per table, the time ratio converged / today, and whether a rerun of
``converged`` gives the same E_out (to 1e-9 relative). The times are of a shared machine: compare the
ratios, measured in the same run (the CPU-time ratio is the steadier one on a loaded machine).

    .venv/bin/python benchmarks/regularized_tolerance.py --json
    .venv/bin/python benchmarks/regularized_tolerance.py --tables 364x577 p100-log --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODELS = {"Lasso": ("lasso", False), "Lasso/NNLS": ("lasso", True), "ElasticNet": ("elasticnet", False),
          "ElasticNet/NNLS": ("elasticnet", True)}
SETTINGS = {
    "today": dict(),
    "converged": dict(solver="cd", tol=1e-7),
    "reference": dict(solver="sklearn", tol=1e-7, max_iter=1_000_000, precompute=True),
}
CD_REFERENCE = dict(solver="cd", tol=1e-10)
TABLES = ("364x577", "p100-log", "1456x577")


def _today_class():
    from modeling.crossgen.estimators import RegularizedRegressor

    class Today(RegularizedRegressor):
        """The leaderboard's regularized fit before the converged solver (unscaled target, tol=1e-3)."""

        def fit(self, X, y):
            from sklearn.model_selection import KFold

            from modeling.crossgen.estimators import _check_fit
            from modeling.crossgen.linear import standardize, to_original
            from modeling.crossgen.regularized import relative_gap

            X, y = _check_fit(self, X, y)
            std = standardize(X, y)
            cv = KFold(min(self.inner_folds, X.shape[0]), shuffle=True, random_state=self.random_state)
            self.solver, self.tol, self.max_iter, self.precompute = "sklearn", 1e-3, 5000, "auto"
            coef = self._fit_sklearn(std.X, std.y, cv)
            self.dual_gap_ = relative_gap(std.X, std.y, coef, self.alpha_, self.l1_ratio_, self.positive)
            self.coef_, self.intercept_ = to_original(std, coef)
            self.selected_ = np.flatnonzero(self.coef_)
            self.n_selected_ = int(self.selected_.size)
            self.n_features_in_ = X.shape[1]
            return self
    return Today


def table(name: str) -> dict:
    """X, y and the run_ensemble options of one benchmark table."""
    from testkit.halwpe_shaped import make

    if name == "p100-log":
        from modeling import shipped

        s = shipped.scenario("GTX-680", "Tesla-P100", "duration")
        return dict(X=s["X"], y=s["y"], options=dict(transform="log", host_index=s["host_index"],
                                                     drop_constant=True))
    n, p = (int(v) for v in name.split("x"))
    X, y, _ = make(n=n, p=p)
    return dict(X=X, y=y, options={})


def run(tab: dict, settings: dict) -> tuple[float, dict]:
    """The four models' 10-fold CV with ``settings`` (empty: :class:`Today`): (seconds, CPU seconds,
    {model: e_out, alpha, gap, converged})."""
    from modeling.crossgen import ensemble
    from modeling.crossgen.estimators import RegularizedRegressor

    fitted: dict[str, list] = {name: [] for name in MODELS}

    def factory(name, kind, positive):
        def fit(self, X, y):  # keeps the fitted models (gaps, convergence) to read after the run
            super(cls, self).fit(X, y)
            fitted[name].append(self)
            return self
        base = RegularizedRegressor if settings else _today_class()
        cls = type("Recorded", (base,), {"fit": fit})  # survives clone() in the transforms
        return lambda seed: cls(kind, positive, random_state=seed, **settings)

    saved = {n: ensemble.MODEL_FACTORIES[n] for n in MODELS}
    ensemble.MODEL_FACTORIES.update({n: factory(n, k, pos) for n, (k, pos) in MODELS.items()})
    try:
        t, c = time.perf_counter(), time.process_time()
        res = ensemble.run_ensemble(tab["X"], tab["y"], models=list(MODELS), folds=10, seed=0, n_jobs=1,
                                    **tab["options"])
        seconds, cpu = time.perf_counter() - t, time.process_time() - c
    finally:
        ensemble.MODEL_FACTORIES.update(saved)
    out = {}
    for m in res.models:
        ests = fitted[m.model]
        out[m.model] = {"e_out": m.e_out, "alpha_all_rows": ests[-1].alpha_,
                        "max_gap": max(e.dual_gap_ for e in ests), "converged": all(e.converged_ for e in ests)}
    return seconds, cpu, out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", nargs="+", default=list(TABLES), choices=TABLES)
    ap.add_argument("--reference", choices=("sklearn", "cd"), default="sklearn")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from testkit.halwpe_shaped import make
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
        rerun = run(tab, settings["converged"])[2]
        ref = rows["reference"][2]
        res = {}
        for k, (sec, cpu, models) in rows.items():
            res[k] = {"seconds": round(sec, 2), "cpu_seconds": round(cpu, 2),
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
        conv = rows["converged"][2]
        res["time_ratio_converged_over_today"] = round(rows["converged"][0] / rows["today"][0], 2)
        res["cpu_ratio_converged_over_today"] = round(rows["converged"][1] / rows["today"][1], 2)
        res["rerun_same_e_out"] = all(abs(rerun[m]["e_out"] - conv[m]["e_out"]) <= 1e-9 * conv[m]["e_out"]
                                      for m in conv)
        out["tables"][name] = res
        print(f"[regularized] {name}: ratio {res['cpu_ratio_converged_over_today']}", file=sys.stderr, flush=True)
    out.update(machine_before=before, machine_after=snapshot())
    print(json.dumps(out, indent=2) if a.json else out)


if __name__ == "__main__":
    main()
