"""A program never run on the target, every shipped cBench program in turn: its 2000 MHz trace predicted
from its 1000 MHz run (host run 1, cut into phases from its samples alone), trained on the other 29
programs' phase table (the program's rows are removed before anything is fitted), model chosen by
program-grouped CV (``auto``). Scored afterwards against the measured target run 1: the whole-program error
and whether the measured total fell inside the 90 % interval; per phase the share inside the interval.

Each run is judged whole (its phases and its first and last samples) against the error the prediction quotes
(``quoted_cv_ape``: the used model's mean whole-run error in the program-grouped CV on the training programs).
A trace with runs of several configurations (PARSEC: 1 and 2 cores) has one prediction per program and core
count (the first run of each).

Beside ``auto``, the naive answer for a program, the host x median whole-program ratio of the training
programs (``program_ratio_*``): ``auto`` is meant never to be worse. The whole-program interval: coverage
over the programs that got one, its median width (upper / lower), and how many programs got none (too few
training programs for the level).

``python -m benchmarks.phases_new_program [--host-freq 1000] [--target-freq 2000] [--level 0.9]
[--targets cycles,power] [--trace FILE] [--model auto]`` prints JSON; ``--trace`` reads a raw armpm-layout
trace (for example the PARSEC one, ``benchmarks/data/parsec_xu3/parsec_xu3.data.gz``) instead of the shipped
cBench samples: each of its programs held out in turn, trained on the trace's other programs.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import pandas as pd

from modeling.build import armpm
from modeling.phases import data
from testkit.phases_holdout import predict_one


def measured(phases: pd.DataFrame, program: str, target: str, run: int = 1) -> tuple[np.ndarray, float]:
    """The measured target per phase and for the whole run, its edges included (read only to score)."""
    g = phases[(phases["program"] == program) & (phases["host_run"] == run)].sort_values("phase")
    k = ~armpm.is_edge(g)
    if target == "cycles":
        y = g["target_cycles"].to_numpy(float)
        return y[k], float(y.sum())
    y = g["target_power_w"].to_numpy(float)
    return y[k], float((g["target_power_w"] * g["target_time_s"]).sum() / g["target_time_s"].sum())


def run(host_freq=1000.0, target_freq=2000.0, level=0.9, targets=("cycles", "power"), trace=None,
        model="auto") -> dict:
    if trace:
        samples, read_notes = armpm.samples(armpm.read_trace(trace))
        granularity, note = data.supported_granularity(samples, host_freq, target_freq)
        read_notes += [note] if note else []
        phases = data.pair_from(samples, host_freq, target_freq, granularity)
    else:
        granularity = data.shipped_granularity(host_freq, target_freq).value
        phases = data.shipped_pair(host_freq, target_freq, granularity)
        samples, read_notes = data.shipped_samples(), []
    config = armpm.config_columns(phases)
    out = {"data": str(trace or "shipped cBench"), "granularity": granularity, "host_freq": host_freq,
           "target_freq": target_freq, "level": level, "reading_notes": read_notes, "targets": {}}
    for target in targets:
        rows = []
        t0 = time.perf_counter()
        firsts = phases.groupby(["program", *config])["host_run"].min()  # run 1 unless quality control
        for key, run in firsts.items():
            key = key if isinstance(key, tuple) else (key,)
            prog, conf = key[0], dict(zip(config, key[1:]))
            run = int(run)
            res = predict_one(prog, phases, samples, target, host_freq, target_freq, level, granularity, run, model)
            y, total = measured(phases, prog, target, run)
            p = np.asarray(res.predicted)
            inside = (np.asarray(res.lower) <= y) & (y <= np.asarray(res.upper))
            t = res.total
            ok = res.total_supported
            rows.append({"program": prog, **{c: (v.item() if hasattr(v, "item") else v) for c, v in conf.items()},
                         "run": run, "model": res.model, "phases": len(y), "measured": total,
                         "predicted": t["predicted"], "lower": t["lower"], "upper": t["upper"],
                         "error_percent": 100 * (t["predicted"] - total) / total,
                         "ape": 100 * abs(t["predicted"] - total) / total,
                         "quoted_cv_ape": res.cv[res.model]["program_mean_ape"],
                         "expected_median_ape": t["expected_error"]["median_ape"],
                         "expected_max_ape": t["expected_error"]["max_ape"],
                         "baseline_ape": 100 * abs(t["baseline"] - total) / total,
                         "program_ratio_ape": 100 * abs(t["program_ratio"] - total) / total,
                         "supported": ok, "inside": bool(ok and t["lower"] <= total <= t["upper"]),
                         "phase_mape": float(np.mean(100 * np.abs(p - y) / y)),
                         "phases_inside": float(np.mean(inside)), "fallback_phases": int(sum(res.fallback)),
                         "interval_ratio": t["upper"] / t["lower"] if ok else None})
        df = pd.DataFrame(rows)
        sup = df[df["supported"]]
        out["targets"][target] = {
            "programs": int(df["program"].nunique()), "runs": len(df),
            "models_chosen": df["model"].value_counts().to_dict(),
            "quoted_cv_mean_ape": float(df["quoted_cv_ape"].mean()),
            "whole_program_mean_ape": float(df["ape"].mean()), "whole_program_median_ape": float(df["ape"].median()),
            "whole_program_max_ape": float(df["ape"].max()),
            "program_ratio_mean_ape": float(df["program_ratio_ape"].mean()),
            "program_ratio_median_ape": float(df["program_ratio_ape"].median()),
            "auto_worse_than_program_ratio": df.loc[df["ape"] > df["program_ratio_ape"] + 1e-9, "program"].tolist(),
            "baseline_mean_ape": float(df["baseline_ape"].mean()),
            "total_supported_programs": int(len(sup)),
            "total_coverage_percent": float(100 * sup["inside"].mean()) if len(sup) else None,
            "outside": sup.loc[~sup["inside"], "program"].tolist(),
            "phase_coverage_percent": float(100 * (df["phases_inside"] * df["phases"]).sum() / df["phases"].sum()),
            "per_phase_mape": float((df["phase_mape"] * df["phases"]).sum() / df["phases"].sum()),
            "median_total_interval_ratio": float(sup["interval_ratio"].median()) if len(sup) else None,
            "fallback_phases": int(df["fallback_phases"].sum()),
            "seconds": time.perf_counter() - t0, "rows": rows}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--host-freq", type=float, default=1000)
    p.add_argument("--target-freq", type=float, default=2000)
    p.add_argument("--level", type=float, default=0.9)
    p.add_argument("--targets", default="cycles,power")
    p.add_argument("--trace", help="a raw armpm-layout trace to use instead of the shipped cBench samples")
    p.add_argument("--model", default="auto", help="auto, or one model by name (e.g. program-ratio)")
    p.add_argument("--summary", action="store_true", help="leave out the per-program rows")
    a = p.parse_args(argv)
    res = run(a.host_freq, a.target_freq, a.level, tuple(a.targets.split(",")), a.trace, a.model)
    if a.summary:
        for v in res["targets"].values():
            v.pop("rows")
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
