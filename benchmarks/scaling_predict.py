"""The prediction part of ``benchmarks/scaling.py`` (``--predict``): how long ``recommended`` takes to fit, by
rows x counters, situation and real worker processes (see that module's docstring)."""

from __future__ import annotations

import os
import time


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _cpu() -> float:
    """CPU seconds of this process and of its finished (waited-for) worker processes."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _exponent(sizes, seconds):
    from benchmarks.scaling import exponent

    b = exponent(sizes, seconds)
    return None if b is None else round(b, 2)


def one_fit(n: int, p: int, situation: str, workers: int, search: str = "auto") -> dict:
    """Fit ``recommended`` on the planted n x p table; wall seconds and what was chosen."""
    from testkit.cpu_shaped import make
    from modeling.crossgen.predict import fit_predictor

    scen = make(n, p=p)
    t0, c0 = time.perf_counter(), _cpu()
    pred = fit_predictor(scen, situation=situation, n_jobs=workers, search=search)
    sel = pred.selection or {}
    return {"seconds": round(time.perf_counter() - t0, 2), "cpu_seconds": round(_cpu() - c0, 2),
            "chosen": sel.get("chosen"), "model": pred.choice.model,
            "cv_male": round(pred.cv_error["male"], 5), "cv_mean_ape": round(pred.cv_error["mean_ape"], 3),
            "chosen_in_folds": sel.get("chosen_in_folds"), "search": sel.get("search"),
            "fits_final_choice": sel.get("fits"),
            "fits_final_choice_exhaustive": sel.get("fits_exhaustive"), "scheme": pred.scheme}


def one_choice(n: int, p: int, situation: str) -> dict:
    """One choice on all n rows (one process, CPU seconds: the machine may be shared): the race against today's
    exhaustive search (``score_candidates``, which also fits every candidate on all rows)."""
    from testkit.cpu_shaped import make
    from modeling.crossgen import racing, versus_baseline
    from modeling.crossgen.ensemble import PRESETS, TRANSFORMS
    from modeling.crossgen.prediction_folds import INNER_FOLDS, splits_for
    from modeling.crossgen.recommend import score_candidates

    scen = make(n, p=p)
    X, y, g = scen["X"], scen["y"], scen["groups"]
    _, cv, k, _ = splits_for(n, situation, g, INNER_FOLDS, 0, inner=True)
    kw = dict(models=PRESETS["halwpe"], transforms=list(TRANSFORMS), host_index=0, groups=g, cv=cv, folds=k,
              seed=0, include_baseline=True)
    c0 = _cpu()
    raced, info = racing.race(X, y, **kw)
    t_race, c0 = _cpu() - c0, _cpu()
    exhaustive = score_candidates(X, y, **kw)
    t_ex = _cpu() - c0
    pr, pe = versus_baseline.pick(raced), versus_baseline.pick(exhaustive)
    return {"race_cpu_seconds": round(t_race, 2), "exhaustive_cpu_seconds": round(t_ex, 2),
            "ratio_exhaustive_over_race": round(t_ex / t_race, 2), "fits_race": info["fits"],
            # today's search: per transform, every model and the baseline in every fold and on all rows
            "fits_exhaustive": len(TRANSFORMS) * (len(PRESETS["halwpe"]) + 1) * (info["folds"] + 1),
            "same_choice": pr["label"] == pe["label"] and pr["male"] == pe["male"],
            "chosen": pr["label"], "chosen_exhaustive": pe["label"]}


def run(a) -> dict:
    from modeling.crossgen.forest_trees import warm_up

    warm_up()
    shapes = [tuple(int(v) for v in s.lower().split("x")) for s in a.predict_sizes]
    out = {"problem": "testkit/cpu_shaped.make(n, p): 22 applications, host run time mapped, 6 orders of "
                      "magnitude", "procedure": "fit_predictor(model='recommended', transform='auto', "
                                                "models='halwpe', 10 outer folds, 5 inner)",
           "cpu_count": os.cpu_count(), "load_before": _load(), "seconds": {}}
    for n, p in shapes:
        for sit in a.situations:
            for w in a.workers:
                first = None
                for i, search in enumerate(getattr(a, "searches", None) or ["auto"]):
                    r = one_fit(n, p, sit, w, search)
                    if first is None:
                        first = r
                    else:  # the same choices, CV error and predictions' residuals as the first search's
                        r["same_as_first"] = all(r[key] == first[key] for key in
                                                 ("chosen", "model", "cv_male", "cv_mean_ape", "chosen_in_folds"))
                        r["cpu_ratio_over_first"] = round(r["cpu_seconds"] / first["cpu_seconds"], 2)
                    key = f"W={w}" if i == 0 else f"W={w} {search}"
                    out["seconds"].setdefault(f"{n}x{p}", {}).setdefault(sit, {})[key] = r
                    print(f"[scaling] predict {n}x{p} {sit} {key}: {r['seconds']} s, {r['cpu_seconds']} CPU-s "
                          f"(load {_load()})", flush=True, file=__import__("sys").stderr)
    if not a.workers:  # only the one-choice comparison
        a.predict_before, w0 = True, None
    else:
        w0 = a.workers[0]
    p_min, n_max = min(p for _, p in shapes), max(n for n, _ in shapes)
    along_n = sorted((n, f"{n}x{p}") for n, p in shapes if p == p_min)
    along_p = sorted((p, f"{n}x{p}") for n, p in shapes if n == n_max)
    def growth(sit, key):
        def secs(k):
            return out["seconds"][k][sit][f"W={w0}"][key]
        return {"in_n": _exponent([n for n, _ in along_n], [secs(k) for _, k in along_n]) if len(along_n) > 1
                else None,
                "in_p": _exponent([p for p, _ in along_p], [secs(k) for _, k in along_p]) if len(along_p) > 1
                else None}

    # wall seconds follow the machine's load; the CPU seconds (this process and its workers) less so
    out["growth_exponent"] = ({sit: {"wall": growth(sit, "seconds"), "cpu": growth(sit, "cpu_seconds")}
                               for sit in a.situations} if w0 is not None else None)
    if a.predict_before:
        n, p = max(shapes)
        out["one_choice"] = {sit: one_choice(n, p, sit) for sit in a.situations}
    out["load_after"] = _load()
    out["note"] = "wall seconds on this machine, shared with other work: compare within one run"
    return out


__all__ = ["one_choice", "one_fit", "run"]
